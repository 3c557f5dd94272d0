"""The independent oracle of the Python suites: PyTorch's aten backward ops in float64.

The reference sees the operands the NPU's cube sees (spec convolution-backward 6.2:
promoted dtype, fp16 for cube_math_type 2, HF32 for 1/3 with fp32), so what is left
between it and the library is fp32 accumulation and the output roundings. Each
element's tolerance is derived from those:

    |got - ref| <= (n * u32 + sum of the chain's unit roundoffs) * sum|terms| + floor

where n is the number of products summed into that element (the same aten op on all-ones
operands counts them exactly), n * u32 bounds fp32 accumulation of n terms in any order
(u32 = 2^-24), the chain is every rounding the result goes through on its way out (to
the operand dtype for dX, to fp32 for dW, to grad_output's dtype for db, then to the
output dtype) and floor covers fp16's subnormal spacing. A wrong term, a dropped term or
a wrong rounding step is far outside this bound for the sizes used here.
"""

import numpy as np
import torch
import torch.nn.functional as F

UNIT = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def promote(*names):
    return names[0] if all(n == names[0] for n in names) else "float32"


def round_to(values, dtype):
    """float64 tensor rounded to `dtype` (nearest even), back in float64."""
    return values.to(TORCH_DTYPE[dtype]).to(torch.float64)


def hf32(values):
    """fp32 values rounded to HF32: 11 explicit mantissa bits, ties away from zero
    (finite values; NaN/Inf unchanged) - spec convolution-backward decision 7."""
    f32 = values.to(torch.float32).numpy()
    bits = f32.view(np.uint32)
    rounded = ((bits + np.uint32(0x800)) & np.uint32(0xFFFFF000)).view(np.float32)
    rounded = np.where(np.isfinite(f32), rounded, f32)
    return torch.from_numpy(rounded.astype(np.float64))


def operand_dtype(dtypes, cube):
    """The dtype the cube multiplies in, and whether HF32 applies."""
    promoted = promote(*dtypes)
    compute = "float16" if cube == 2 else promoted
    return compute, compute == "float32" and cube in (1, 3)


def npu_operands(values, dtypes, cube):
    """The operands as the NPU's cube sees them (float64 tensors)."""
    compute, use_hf32 = operand_dtype(dtypes, cube)
    out = [round_to(v, compute) for v in values]
    return [hf32(v) for v in out] if use_hf32 else out


def check(got, ref, absref, count, chain, what):
    """Asserts `got` is within the derived tolerance; chain: dtypes rounded to on the way out."""
    got = got.to(torch.float64) if isinstance(got, torch.Tensor) else torch.from_numpy(
        np.asarray(got, dtype=np.float64))
    assert tuple(got.shape) == tuple(ref.shape), f"{what}: shape {tuple(got.shape)} != " \
                                                 f"{tuple(ref.shape)}"
    rel = count * UNIT["float32"] + sum(UNIT[d] for d in chain)
    floor = 2.0**-24 if "float16" in chain else 0.0
    bound = rel * absref + floor
    err = (got - ref).abs()
    bad = ~(err <= bound)  # NaN (an unwritten or garbage element) fails
    if bool(bad.any()):
        i = int(torch.nonzero(bad.flatten())[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())}/{bad.numel()} elements outside the tolerance; first at "
            f"flat {i}: got {float(got.flatten()[i])!r}, ref {float(ref.flatten()[i])!r}, "
            f"sum|terms| {float(absref.flatten()[i])!r}, bound {float(bound.flatten()[i])!r}")


def _conv_bwd(go, x, w, p):
    """aten.convolution_backward (float64), asymmetric 2D padding by explicit zero padding."""
    pads, d = p["pads"], len(p["pads"])
    common = (p["stride"], None, p["dilation"], p["transposed"], p["output_padding"],
              p["groups"], [True, True, True])
    bias = [go.shape[1]]
    if all(lo == hi for lo, hi in pads):
        return torch.ops.aten.convolution_backward(go, x, w, bias, common[0],
                                                   [lo for lo, _ in pads], *common[2:])
    fpad = [v for pair in reversed(pads) for v in pair]  # F.pad order: last dim first
    zero = [0] * d
    if not p["transposed"]:
        gi, gw, gb = torch.ops.aten.convolution_backward(go, F.pad(x, fpad), w, bias, common[0],
                                                         zero, *common[2:])
        crop = (slice(None), slice(None)) + tuple(slice(lo, lo + s) for (lo, _), s in
                                                  zip(pads, x.shape[2:]))
        return gi[crop], gw, gb
    # Transposed: the padded output is the full one cropped, so its gradient is
    # grad_output surrounded by zeros.
    return torch.ops.aten.convolution_backward(F.pad(go, fpad), x, w, bias, common[0], zero,
                                               *common[2:])


def conv_backward_reference(p, go, x, w):
    """(refs, absrefs, counts) for (dX, dW, db); go/x/w float64 values already in their dtypes."""
    ops = npu_operands([go, x, w], p["dtypes"], p["cube"])
    ref = list(_conv_bwd(*ops, p))
    absref = list(_conv_bwd(*[o.abs() for o in ops], p))
    count = list(_conv_bwd(*[torch.ones_like(o) for o in ops], p))
    # gradBias is summed from the original grad_output (spec 6.3).
    dims = [0] + list(range(2, go.dim()))
    ref[2], absref[2] = go.sum(dims), go.abs().sum(dims)
    return ref, absref, count


def conv_backward_chains(p, out_dtypes):
    """The roundings of (dX, dW, db) on their way to the outputs."""
    compute, _ = operand_dtype(p["dtypes"], p["cube"])
    return [[compute, out_dtypes[0]], ["float32", out_dtypes[1]],
            [p["dtypes"][0], out_dtypes[2]]]


def tbc_reference(self_grad, x, w, bias, pad, dtypes, cube):
    ops = npu_operands([self_grad, x, w], dtypes, cube)
    ref = list(torch.ops.aten.conv_tbc_backward(ops[0], ops[1], ops[2], bias, pad))
    absref = list(torch.ops.aten.conv_tbc_backward(*[o.abs() for o in ops], bias, pad))
    count = list(torch.ops.aten.conv_tbc_backward(*[torch.ones_like(o) for o in ops], bias,
                                                  pad))
    ref[2], absref[2] = self_grad.sum((0, 1)), self_grad.abs().sum((0, 1))
    return ref, absref, count
