"""The operators: Python arguments -> descriptors -> two-phase aclnn call -> results.

Each function checks the Python types first (TypeError before any C call), makes
the outputs it was not given, creates the descriptors for the call, runs phase 1,
the workspace, phase 2 and the stream synchronisation on the calling thread's
stream, and destroys every descriptor before returning.
"""

import ctypes

from . import _abi, _arrays, _params
from ._errors import AclnnError
from ._runtime import RUNTIME


def _run(op_name, build_args):
    """Runs aclnn operator `op_name`; build_args(descriptors) gives the phase-1
    arguments before workspaceSize/executor."""
    phase1, phase2 = RUNTIME.operator(op_name)
    api = RUNTIME.api()
    stream = RUNTIME.stream()
    api.aclGetRecentErrMsg()  # start from an empty message log on this thread
    with _arrays.Descriptors(api) as descriptors:
        args = build_args(descriptors)
        ws_size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        rc = phase1(*args, ctypes.byref(ws_size), ctypes.byref(executor))
        if rc != _abi.ACLNN_SUCCESS:
            raise AclnnError(rc, op_name + "GetWorkspaceSize", api.message())
        workspace = ctypes.c_void_p()
        if ws_size.value:
            rc = api.aclrtMalloc(ctypes.byref(workspace), ws_size.value,
                                 _abi.ACL_MEM_MALLOC_HUGE_FIRST)
            if rc != _abi.ACL_SUCCESS:
                message = api.message()
                api.aclDestroyAclOpExecutor(executor)  # never run: free it ourselves
                api.aclGetRecentErrMsg()
                raise AclnnError(rc, "aclrtMalloc(workspace)", message)
        try:
            rc = phase2(workspace, ws_size.value, executor, stream)
            if rc != _abi.ACLNN_SUCCESS:
                raise AclnnError(rc, op_name, api.message())
            rc = api.aclrtSynchronizeStream(stream)
            if rc != _abi.ACL_SUCCESS:
                raise AclnnError(rc, "aclrtSynchronizeStream", api.message())
        finally:
            if workspace.value:
                api.aclrtFree(workspace)


def _kind(*ops):
    """Results are numpy for numpy inputs, torch for torch inputs (the first one decides)."""
    return next((o.kind for o in ops if o is not None), "numpy")


def _output(name, given, kind, shape, dtype):
    """(array, Operand) for an output: the caller's array, or a new one; (None, None) when
    there is neither (its shape comes from an input that was None)."""
    if given is not None:
        return given, _arrays.operand(name, given, writable=True)
    if shape is None:
        return None, None
    array = _arrays.new_array(kind, shape, dtype)
    return array, _arrays.operand(name, array, writable=True)


def _shape(op):
    return None if op is None else op.shape


def _dtype(op, default="float32"):
    return default if op is None else op.dtype


def _dims(*ops):
    """Spatial dims from the first operand that is present."""
    return _params.spatial_dims(next((o.ndim for o in ops if o is not None), 3))


def convolution_backward(grad_output, input, weight, bias_sizes=None, stride=1, padding=0,
                         dilation=1, transposed=False, output_padding=0, groups=1,
                         output_mask=(True, True, True), cube_math_type=0, out=None):
    """Gradients of a convolution, computed by aclnnConvolutionBackward with NPU numerics.

    Arguments follow torch.ops.aten.convolution_backward:
      grad_output, input, weight: numpy arrays (float32/float16) or torch CPU tensors
        (float32/float16/bfloat16), any strides; strided views are used in place.
        Layouts: input [N, C_in, *spatial] (1D/2D/3D), weight [C_out, C_in/groups, *k]
        ([C_in, C_out/groups, *k] when transposed), grad_output [N, C_out, *out_spatial].
      bias_sizes: [C_out], or None to take C_out from grad_output.
      stride, padding, dilation, output_padding: an int or one value per spatial dim;
        padding may also be [top, bottom, left, right] for 2D.
      transposed, groups: as in PyTorch.
      output_mask: which of (grad_input, grad_weight, grad_bias) to compute.
      cube_math_type: 0-3 or "KEEP_DTYPE", "ALLOW_FP32_DOWN_PRECISION", "USE_FP16",
        "USE_HF32" (HF32 operands for 1 and 3 with fp32, fp16 operands for 2).
      out: optional (grad_input, grad_weight, grad_bias) arrays to write into, of any
        supported dtype and strides; an entry may be None.

    Returns (grad_input, grad_weight, grad_bias); a masked-off output is None. New outputs
    are of the kind of `input` (numpy or torch), shaped like input / weight / [C_out],
    with the dtype of input / weight / grad_output.

    Raises TypeError for wrong Python types or unsupported dtypes (before any C call) and
    AclnnError (with .status) when the library rejects the call. None for a required
    array is passed on as a null pointer, which the library reports (161001).
    """
    go = _arrays.optional_operand("grad_output", grad_output)
    x = _arrays.optional_operand("input", input)
    w = _arrays.optional_operand("weight", weight)
    dims = _dims(x, go, w)
    stride = _params.int_list("stride", stride, dims)
    padding = _params.int_list("padding", padding, dims)
    dilation = _params.int_list("dilation", dilation, dims)
    output_padding = _params.int_list("output_padding", output_padding, dims)
    groups = _params.int_value("groups", groups)
    mask = _params.bool_triple("output_mask", output_mask)
    cube = _params.cube_math_type(cube_math_type)
    if not isinstance(transposed, bool):
        raise TypeError(f"transposed: expected a bool, got {type(transposed).__name__}")
    if bias_sizes is None:
        bias_sizes = [go.shape[1]] if go is not None and go.ndim > 1 else [0]
    else:
        bias_sizes = _params.int_list("bias_sizes", bias_sizes, 1)
    given = _params.out_triple(out)
    kind = _kind(x, go, w)
    shapes = [_shape(x), _shape(w), bias_sizes[:1]]
    dtypes = [_dtype(x), _dtype(w), _dtype(go)]
    names = ["grad_input", "grad_weight", "grad_bias"]
    results, outs = [], []
    for i in range(3):
        if mask[i]:
            array, op = _output(names[i], given[i], kind, shapes[i], dtypes[i])
        else:
            array, op = None, None
        results.append(array)
        outs.append(op)

    def build(d):
        return (d.tensor(go), d.tensor(x), d.tensor(w), d.int_array(bias_sizes),
                d.int_array(stride), d.int_array(padding), d.int_array(dilation), transposed,
                d.int_array(output_padding), groups, d.bool_array(mask), cube,
                d.tensor(outs[0]), d.tensor(outs[1]), d.tensor(outs[2], _abi.ACL_FORMAT_ND))

    _run("aclnnConvolutionBackward", build)
    return tuple(results)


def conv_tbc_backward(self_grad, input, weight, bias, pad, cube_math_type=0, out=None):
    """Gradients of torch's conv_tbc (time-major 1D convolution) by aclnnConvTbcBackward.

    Arguments follow torch.ops.aten.conv_tbc_backward: self_grad [T_out, B, C_out],
    input [T, B, C_in], weight [K, C_in, C_out], bias [C_out] (only its size is used),
    pad (zeros on both ends of T), cube_math_type as in convolution_backward.
    out: optional (grad_input, grad_weight, grad_bias) arrays.

    Returns (grad_input, grad_weight, grad_bias) shaped like input / weight / bias with the
    dtype of input / weight / self_grad (unless given in out). None for an array is passed
    on as a null pointer, which the library reports (161001).
    """
    s = _arrays.optional_operand("self_grad", self_grad)
    x = _arrays.optional_operand("input", input)
    w = _arrays.optional_operand("weight", weight)
    b = _arrays.optional_operand("bias", bias)
    pad = _params.int_value("pad", pad)
    cube = _params.cube_math_type(cube_math_type)
    given = _params.out_triple(out)
    kind = _kind(x, s, w)
    names = ["grad_input", "grad_weight", "grad_bias"]
    shapes = [_shape(x), _shape(w), _shape(b)]
    dtypes = [_dtype(x), _dtype(w), _dtype(s)]
    pairs = [_output(names[i], given[i], kind, shapes[i], dtypes[i]) for i in range(3)]
    nd = _abi.ACL_FORMAT_ND

    def build(d):
        return (d.tensor(s, nd), d.tensor(x, nd), d.tensor(w, nd), d.tensor(b, nd), pad, cube,
                d.tensor(pairs[0][1], nd), d.tensor(pairs[1][1], nd), d.tensor(pairs[2][1], nd))

    _run("aclnnConvTbcBackward", build)
    return tuple(p[0] for p in pairs)


# ---------------------------------------------------------------------------
# Forward operators (aclnnConvolution, aclnnConvTbc, aclnnConvDepthwise2d).

def _trunc_div(a, b):
    """C++ integer division (toward zero), as the spec's shape inference uses."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _pad_pairs(padding, dims):
    """(lo, hi) per spatial dim from the 1-, d- or 2d-value forms."""
    if len(padding) == dims:
        return [(p, p) for p in padding]
    if len(padding) == 2 * dims:
        return [(padding[2 * i], padding[2 * i + 1]) for i in range(dims)]
    return None  # a length the library will reject


def _conv_output_shape(x, w, stride, padding, dilation, transposed, output_padding, groups):
    """The output shape the library infers (spec convolution-forward 6.6), clamped at 0 so
    that an impossible one still makes an array and the library reports the mismatch."""
    dims = x.ndim - 2
    if dims < 1 or w.ndim != x.ndim or len(stride) != dims or len(dilation) != dims:
        return None
    pairs = _pad_pairs(padding, dims)
    if pairs is None:
        return None
    spatial = []
    for i in range(dims):
        k, st, dl = w.shape[2 + i], stride[i], dilation[i]
        lo, hi = pairs[i]
        if st < 1:
            return None
        if transposed:
            op = output_padding[i] if i < len(output_padding) else 0
            n = (x.shape[2 + i] - 1) * st - (lo + hi) + dl * (k - 1) + op + 1
        else:
            n = _trunc_div(x.shape[2 + i] + lo + hi - dl * (k - 1) - 1, st) + 1
        spatial.append(max(n, 0))
    channels = w.shape[1] * groups if transposed else w.shape[0]
    return [x.shape[0], max(channels, 0)] + spatial


def convolution(input, weight, bias=None, stride=1, padding=0, dilation=1, transposed=False,
                output_padding=0, groups=1, cube_math_type=0, out=None):
    """A convolution computed by aclnnConvolution with NPU numerics.

    Arguments follow torch.ops.aten.convolution: input [N, C_in, *spatial], weight
    [C_out, C_in/groups, *k] ([C_in, C_out/groups, *k] when transposed), optional bias
    [C_out]; stride/padding/dilation/output_padding as in convolution_backward (1D padding
    may also be [left, right]); cube_math_type as in convolution_backward; out: an optional
    output array of any supported dtype and strides.

    Returns the output (new: the kind of input, dtype promote(input, weight)).
    Raises OperatorUnavailableError (a NotImplementedError) when the loaded library does not
    export aclnnConvolution.
    """
    x = _arrays.optional_operand("input", input)
    w = _arrays.optional_operand("weight", weight)
    b = _arrays.optional_operand("bias", bias)
    dims = _dims(x, w)
    stride = _params.int_list("stride", stride, dims)
    padding = _params.int_list("padding", padding, dims)
    dilation = _params.int_list("dilation", dilation, dims)
    output_padding = _params.int_list("output_padding", output_padding, dims)
    groups = _params.int_value("groups", groups)
    cube = _params.cube_math_type(cube_math_type)
    if not isinstance(transposed, bool):
        raise TypeError(f"transposed: expected a bool, got {type(transposed).__name__}")
    shape = None
    if x is not None and w is not None:
        shape = _conv_output_shape(x, w, stride, padding, dilation, transposed, output_padding,
                                   groups) or [0] * x.ndim
    result, o = _output("out", out, _kind(x, w), shape,
                        _arrays.promote(_dtype(x), _dtype(w)))

    def build(d):
        return (d.tensor(x), d.tensor(w), d.tensor(b, _abi.ACL_FORMAT_ND), d.int_array(stride),
                d.int_array(padding), d.int_array(dilation), transposed,
                d.int_array(output_padding), groups, d.tensor(o), cube)

    _run("aclnnConvolution", build)
    return result


def conv_tbc(self, weight, bias, pad, cube_math_type=0, out=None):
    """torch's conv_tbc (time-major 1D convolution) computed by aclnnConvTbc.

    self [T, B, C_in], weight [K, C_in, C_out], bias [C_out] (required), pad: zeros on both
    ends of T. Returns [T + 2*pad - K + 1, B, C_out] in self's dtype (unless out is given).
    Raises OperatorUnavailableError when the library does not export aclnnConvTbc.
    """
    s = _arrays.optional_operand("self", self)
    w = _arrays.optional_operand("weight", weight)
    b = _arrays.optional_operand("bias", bias)
    pad = _params.int_value("pad", pad)
    cube = _params.cube_math_type(cube_math_type)
    shape = None if s is None or w is None else [0, 0, 0]
    if shape is not None and s.ndim == 3 and w.ndim == 3:
        shape = [max(s.shape[0] + 2 * pad - w.shape[0] + 1, 0), s.shape[1], w.shape[2]]
    result, o = _output("out", out, _kind(s, w), shape, _dtype(s))
    nd = _abi.ACL_FORMAT_ND

    def build(d):
        return (d.tensor(s, nd), d.tensor(w, nd), d.tensor(b, nd), pad, d.tensor(o, nd), cube)

    _run("aclnnConvTbc", build)
    return result


def conv_depthwise2d(self, weight, kernel_size, bias=None, stride=1, padding=0, dilation=1,
                     cube_math_type=0, out=None):
    """A depthwise 2D convolution computed by aclnnConvDepthwise2d.

    Arguments follow torch.ops.aten._conv_depthwise2d: self [N, C, H, W], weight
    [C*m, 1, kH, kW], kernel_size [kH, kW], optional bias [C*m], stride/padding/dilation
    (an int or two values; padding symmetric). Returns [N, C*m, H', W'] in self's dtype.
    Raises OperatorUnavailableError when the library does not export aclnnConvDepthwise2d.
    """
    s = _arrays.optional_operand("self", self)
    w = _arrays.optional_operand("weight", weight)
    b = _arrays.optional_operand("bias", bias)
    if kernel_size is not None:  # None goes on as a null pointer (161001)
        kernel_size = _params.int_list("kernel_size", kernel_size, 2)
    stride = _params.int_list("stride", stride, 2)
    padding = _params.int_list("padding", padding, 2)
    dilation = _params.int_list("dilation", dilation, 2)
    cube = _params.cube_math_type(cube_math_type)
    shape = None
    if s is not None and w is not None:
        shape = [0, 0, 0, 0]
        if s.ndim == 4:
            shape = _conv_output_shape(s, w, stride, padding, dilation, False, [0, 0], 1) or shape
    result, o = _output("out", out, _kind(s, w), shape, _dtype(s))

    def build(d):
        return (d.tensor(s), d.tensor(w), d.int_array(kernel_size), d.tensor(b, _abi.ACL_FORMAT_ND),
                d.int_array(stride), d.int_array(padding), d.int_array(dilation), d.tensor(o), cube)

    _run("aclnnConvDepthwise2d", build)
    return result
