#!/usr/bin/env python3
"""Cross-check aclnnConvolutionBackward and aclnnConvTbcBackward against PyTorch.

Usage: torch_crosscheck.py /path/to/libascendcl.so [seed]

The library is driven only through its public C API (ctypes), exactly as a CANN
program would: aclInit, device, stream, aclrtMalloc/aclrtMemcpy, aclCreateTensor,
two-phase operator call, stream synchronisation.  The oracle is PyTorch's aten
backward operators evaluated in float64 on the very values our operator sees
(already rounded to their dtype), so the only differences left are the
operator's own rounding.  The tolerance of every element is relative to the
float64 sum of |terms| that make it up (the same aten op applied to absolute
values), which bounds any summation order.

Prints "N passed, M failed" and exits 0 only when M == 0; exits 77 (skip) when
torch or numpy cannot be imported.
"""
import ctypes
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except Exception as exc:  # pragma: no cover - depends on the host
    print(f"torch_crosscheck: skipped, cannot import torch/numpy: {exc}")
    sys.exit(77)

# ---------------------------------------------------------------------------
# Constants from include/acl/*.h (values fixed by the CANN ABI).
ACL_FLOAT, ACL_FLOAT16, ACL_BF16 = 0, 1, 27
ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NCDHW, ACL_FORMAT_NCL = 0, 2, 30, 47
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2

DTYPES = {
    "fp32": (ACL_FLOAT, torch.float32),
    "fp16": (ACL_FLOAT16, torch.float16),
    "bf16": (ACL_BF16, torch.bfloat16),
}
# Relative tolerance (against the sum of |terms|) for a result that was rounded
# to this dtype somewhere along its way.
REL_TOL = {"fp32": 1e-5, "fp16": 2e-3, "bf16": 1.6e-2}
# Absolute floor: a value below the dtype's normal range can only be held to
# its subnormal spacing (fp16 subnormals are 2^-24 apart; bf16 shares fp32's range).
ABS_TOL = {"fp32": 0.0, "fp16": 2.0**-24, "bf16": 0.0}


def promote(*names):
    """PromoteType over {fp32, fp16, bf16}: uniform stays, any mixture is fp32."""
    return names[0] if all(n == names[0] for n in names) else "fp32"


def tolerance(chain):
    """Loosest tolerance among the dtypes a result is rounded to on its way out."""
    return max(REL_TOL[d] for d in chain), max(ABS_TOL[d] for d in chain)


# ---------------------------------------------------------------------------
# ctypes binding of the public API.
c_int64_p = ctypes.POINTER(ctypes.c_int64)
c_bool_p = ctypes.POINTER(ctypes.c_bool)


class Acl:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        vp, i32, i64, u64 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64
        size_t = ctypes.c_size_t

        def fn(name, res, *args):
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = list(args)
            setattr(self, name, f)

        # acl/acl_rt.h (aclError is int, aclrtStream is void*)
        fn("aclInit", ctypes.c_int, ctypes.c_char_p)
        fn("aclFinalize", ctypes.c_int)
        fn("aclGetRecentErrMsg", ctypes.c_char_p)
        fn("aclrtSetDevice", ctypes.c_int, i32)
        fn("aclrtResetDevice", ctypes.c_int, i32)
        fn("aclrtCreateStream", ctypes.c_int, ctypes.POINTER(vp))
        fn("aclrtDestroyStream", ctypes.c_int, vp)
        fn("aclrtSynchronizeStream", ctypes.c_int, vp)
        fn("aclrtMalloc", ctypes.c_int, ctypes.POINTER(vp), size_t, ctypes.c_int)
        fn("aclrtFree", ctypes.c_int, vp)
        fn("aclrtMemcpy", ctypes.c_int, vp, size_t, vp, size_t, ctypes.c_int)
        # aclnn/acl_meta.h (aclnnStatus is int32_t; descriptors are opaque pointers)
        fn("aclCreateTensor", vp, c_int64_p, u64, ctypes.c_int, c_int64_p, i64, ctypes.c_int,
           c_int64_p, u64, vp)
        fn("aclDestroyTensor", i32, vp)
        fn("aclCreateIntArray", vp, c_int64_p, u64)
        fn("aclDestroyIntArray", i32, vp)
        fn("aclCreateBoolArray", vp, c_bool_p, u64)
        fn("aclDestroyBoolArray", i32, vp)
        # aclnnop/aclnn_convolution_backward.h
        fn("aclnnConvolutionBackwardGetWorkspaceSize", i32,
           vp, vp, vp, vp, vp, vp, vp, ctypes.c_bool, vp, ctypes.c_int, vp, ctypes.c_int8,
           vp, vp, vp, ctypes.POINTER(u64), ctypes.POINTER(vp))
        fn("aclnnConvolutionBackward", i32, vp, u64, vp, vp)
        fn("aclnnConvTbcBackwardGetWorkspaceSize", i32,
           vp, vp, vp, vp, i64, ctypes.c_int8, vp, vp, vp, ctypes.POINTER(u64),
           ctypes.POINTER(vp))
        fn("aclnnConvTbcBackward", i32, vp, u64, vp, vp)

    def err(self):
        msg = self.aclGetRecentErrMsg()
        return msg.decode(errors="replace") if msg else "<no message>"

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} returned {rc}: {self.err()}")


def i64_array(values):
    values = [int(v) for v in values]
    return (ctypes.c_int64 * max(1, len(values)))(*values)


# ---------------------------------------------------------------------------
# Device tensors: a strided view over an aclrtMalloc'd storage buffer.
class Layout:
    """Element strides/offset of a view inside a (possibly larger) storage."""

    def __init__(self, shape, strides, offset, storage_numel, contiguous):
        self.shape, self.strides, self.offset = list(shape), list(strides), offset
        self.storage_numel, self.contiguous = storage_numel, contiguous

    @staticmethod
    def dense(shape):
        strides, acc = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i], acc = acc, acc * shape[i]
        return Layout(shape, strides, 0, max(acc, 1), True)

    @staticmethod
    def strided(shape, rng):
        """Random dim order, padded extents and offset: a genuinely non-contiguous view."""
        order = list(rng.permutation(len(shape)))
        extents = [s + int(rng.integers(0, 3)) for s in shape]
        strides, acc = [0] * len(shape), 1
        for d in reversed(order):
            strides[d], acc = acc, acc * extents[d]
        offset = int(rng.integers(0, 6))
        return Layout(shape, strides, offset, offset + acc, False)


class DeviceTensor:
    def __init__(self, acl, name, values64, dtype, layout, fmt, fill=float("nan")):
        """values64: float64 view contents (None for an output, which is pre-filled)."""
        self.acl, self.name, self.dtype, self.layout = acl, name, dtype, layout
        tdtype = DTYPES[dtype][1]
        self.host = torch.full((layout.storage_numel,), fill, dtype=tdtype)
        if values64 is not None:
            self.view().copy_(values64.to(tdtype))
        self.before = self.host.clone()
        self.nbytes = self.host.numel() * self.host.element_size()
        self.dev = ctypes.c_void_p()
        acl.check(acl.aclrtMalloc(ctypes.byref(self.dev), self.nbytes, ACL_MEM_MALLOC_HUGE_FIRST),
                  "aclrtMalloc")
        acl.check(acl.aclrtMemcpy(self.dev, self.nbytes, self.host.data_ptr(), self.nbytes,
                                  ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy H2D")
        storage_dims = layout.shape if layout.contiguous else [layout.storage_numel]
        self.handle = acl.aclCreateTensor(
            i64_array(layout.shape), len(layout.shape), DTYPES[dtype][0],
            i64_array(layout.strides), layout.offset, fmt,
            i64_array(storage_dims), len(storage_dims), self.dev)
        if not self.handle:
            raise RuntimeError(f"aclCreateTensor({name}) failed: {acl.err()}")

    def view(self):
        l = self.layout
        return self.host.as_strided(l.shape, l.strides, l.offset)

    def fetch(self):
        self.acl.check(self.acl.aclrtMemcpy(self.host.data_ptr(), self.nbytes, self.dev,
                                            self.nbytes, ACL_MEMCPY_DEVICE_TO_HOST),
                       "aclrtMemcpy D2H")
        return self.view().to(torch.float64)

    def untouched_outside(self, include_view):
        """True when storage bytes outside the view (or all, if include_view) are unchanged."""
        keep = torch.ones(self.layout.storage_numel, dtype=torch.bool)
        if not include_view:
            l = self.layout
            keep.as_strided(l.shape, l.strides, l.offset).fill_(False)
        bits = torch.int32 if self.host.element_size() == 4 else torch.int16
        return bool(torch.equal(self.host.view(bits)[keep], self.before.view(bits)[keep]))

    def free(self):
        self.acl.aclDestroyTensor(self.handle)
        self.acl.aclrtFree(self.dev)


def conv_format(rank):
    return {3: ACL_FORMAT_NCL, 4: ACL_FORMAT_NCHW, 5: ACL_FORMAT_NCDHW}[rank]


def rounded(rng, shape, dtype, scale=1.0):
    """Uniform values in [-scale, scale) rounded to dtype, returned in float64."""
    data = torch.from_numpy(rng.uniform(-scale, scale, size=shape))
    return data.to(DTYPES[dtype][1]).to(torch.float64)


def compare(got, ref, absref, chain):
    """List of problems with `got` (empty when within tolerance)."""
    rel, atol = tolerance(chain)
    if got.shape != ref.shape:
        return [f"shape {tuple(got.shape)} != {tuple(ref.shape)}"]
    err = (got - ref).abs()
    bound = rel * absref + atol
    bad = ~(err <= bound)  # NaN (unwritten sentinel or stray read) counts as bad
    if not bool(bad.any()):
        return []
    idx = int(torch.nonzero(bad.flatten())[0])
    worst = float(((err - bound) / (absref + 1e-300)).nan_to_num(float("inf")).max())
    return [f"{int(bad.sum())}/{bad.numel()} elements out of tolerance (rel {rel}); "
            f"first at flat {idx}: got {float(got.flatten()[idx])!r} "
            f"ref {float(ref.flatten()[idx])!r} sum|terms| {float(absref.flatten()[idx])!r}; "
            f"worst excess/sum|terms| {worst:.3g}"]


class Runner:
    def __init__(self, acl, stream):
        self.acl, self.stream = acl, stream

    def run_two_phase(self, get_ws, run, args, op, expect_status=0):
        """Phase 1, workspace, phase 2, synchronise. Returns a list of problems."""
        acl = self.acl
        ws_size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        rc = get_ws(*args, ctypes.byref(ws_size), ctypes.byref(executor))
        if rc != expect_status:
            return [f"{op}GetWorkspaceSize returned {rc}, expected {expect_status}: {acl.err()}"]
        if rc != 0:
            return []
        ws = ctypes.c_void_p()
        if ws_size.value > 0:
            acl.check(acl.aclrtMalloc(ctypes.byref(ws), ws_size.value, ACL_MEM_MALLOC_HUGE_FIRST),
                      "aclrtMalloc(workspace)")
        try:
            rc = run(ws, ws_size.value, executor, self.stream)
            if rc != 0:
                return [f"{op} returned {rc}: {acl.err()}"]
            rc = acl.aclrtSynchronizeStream(self.stream)
            if rc != 0:
                return [f"aclrtSynchronizeStream returned {rc}: {acl.err()}"]
        finally:
            if ws.value:
                acl.aclrtFree(ws)
        return []


# ---------------------------------------------------------------------------
# Convolution backward problems.
def make_conv_problem(rng, index):
    d = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
    # Every 25th problem is larger (wide channels, long rows) so that blocked and
    # multi-threaded kernel paths are reached, not only the tiny-shape ones.
    big = index % 25 == 24
    cmul, smul = (8, 4) if big else (1, 1)
    transposed = bool(rng.random() < 0.35)
    kind = rng.random()
    if kind < 0.2:  # depthwise: one "input" channel per group in normal orientation
        groups, a_pg, b_pg = int(rng.integers(1, 6)), int(rng.integers(1, 3 * cmul)), 1
    elif kind < 0.45:
        groups = int(rng.integers(2, 4))
        a_pg, b_pg = int(rng.integers(1, 4 * cmul)), int(rng.integers(1, 4 * cmul))
    else:
        groups, a_pg, b_pg = 1, int(rng.integers(1, 6 * cmul)), int(rng.integers(1, 6 * cmul))
    # weight is [A, B, *k]; non-transposed: A = C_out, B*G = C_in; transposed: A = Ct_in.
    w_shape = [groups * a_pg, b_pg]
    n = int(rng.integers(1, 4))
    kmax = 3 if d == 3 else 4
    k = [int(rng.integers(1, kmax + 1)) for _ in range(d)]
    stride = [int(rng.integers(1, 4)) for _ in range(d)]
    dil = [int(rng.choice([1, 1, 2, 3])) for _ in range(d)]
    four_pad = d == 2 and rng.random() < 0.35
    span = [dil[i] * (k[i] - 1) for i in range(d)]
    if four_pad:
        pads = [(int(rng.integers(0, s + 2)), int(rng.integers(0, s + 2))) for s in span]
    else:
        pads = [(p, p) for p in (int(rng.integers(0, s // 2 + 2)) for s in span)]
    out_pad = [0] * d
    in_sp, go_sp = [], []
    for i in range(d):
        lo, hi = pads[i]
        if not transposed:
            least = max(1, span[i] + 1 - lo - hi)
            x = int(rng.integers(least, least + (4 if d == 3 else 7) * smul))
            in_sp.append(x)
            go_sp.append((x + lo + hi - span[i] - 1) // stride[i] + 1)
        else:
            # outputPadding < stride: torch also allows "< dilation", but then the
            # forward relation that the API checks (spec step 10, decision 2) no longer
            # maps gradOutput back to input, and the NPU rejects such shapes.
            out_pad[i] = int(rng.integers(0, stride[i]))
            x = int(rng.integers(1, (4 if d == 3 else 6) * smul))
            full = (x - 1) * stride[i] + span[i] + out_pad[i] + 1
            while full - lo - hi < 1:  # shrink padding until the output is non-empty
                lo, hi = max(0, lo - 1), max(0, hi - 1)
            pads[i] = (lo, hi)
            in_sp.append(x)
            go_sp.append(full - lo - hi)
    if transposed:
        in_c, go_c = w_shape[0], w_shape[1] * groups
    else:
        in_c, go_c = w_shape[1] * groups, w_shape[0]
    # Dtypes: mostly uniform; sometimes mixed inputs and/or other output dtypes.
    names = list(DTYPES)
    base = names[index % 3]
    in_dt = [base] * 3
    if rng.random() < 0.1:
        in_dt = [str(rng.choice(names)) for _ in range(3)]
    out_dt = [in_dt[1], in_dt[2], in_dt[0]]  # documented intent: input, weight, gradOutput
    if rng.random() < 0.15:
        out_dt = [str(rng.choice(names)) for _ in range(3)]
    mask = [bool(index >> b & 1) for b in range(3)]  # all 8 masks, evenly
    if four_pad:
        padding = [pads[0][0], pads[0][1], pads[1][0], pads[1][1]]
    else:
        padding = [p[0] for p in pads]
    if not transposed and d == 2 and rng.random() < 0.2:
        out_pad_arg = [0, 0, 0, 0]
    else:
        out_pad_arg = out_pad
    # Spec step 12 / decision 8: grouped 3D with an fp32 gradWeight and fp16/bf16
    # operands is rejected like on the NPU; such problems check that status instead.
    rejected = (d == 3 and mask[1] and groups > 1 and out_dt[1] == "fp32"
                and promote(*in_dt) != "fp32")
    return dict(
        expect_status=161002 if rejected else 0,
        d=d, transposed=transposed, groups=groups, stride=stride, dilation=dil,
        padding=padding, pads=pads, output_padding=out_pad, output_padding_arg=out_pad_arg,
        go_shape=[n, go_c] + go_sp, in_shape=[n, in_c] + in_sp, w_shape=w_shape + k,
        in_dtypes=in_dt, out_dtypes=out_dt, mask=mask,
        bias_sizes_null=bool(rng.random() < 0.1),
        strided=[bool(rng.random() < 0.3) for _ in range(6)],
        null_masked=[bool(rng.random() < 0.5) for _ in range(3)],
    )


def conv_oracle(p, go, x, w):
    """aten.convolution_backward in float64; asymmetric padding via explicit zero padding."""
    d, pads = p["d"], p["pads"]
    symmetric = all(lo == hi for lo, hi in pads)
    bias = [p["go_shape"][1]]
    args = (p["stride"], None, p["dilation"], p["transposed"], p["output_padding"], p["groups"],
            [True, True, True])
    if symmetric:
        pad = [lo for lo, _ in pads]
        return torch.ops.aten.convolution_backward(go, x, w, bias, args[0], pad, *args[2:])
    # F.pad wants (last-dim lo, hi, previous-dim lo, hi, ...).
    fpad = [v for lo_hi in reversed(pads) for v in lo_hi]
    zero = [0] * d
    if not p["transposed"]:
        xp = F.pad(x, fpad)
        gi, gw, gb = torch.ops.aten.convolution_backward(go, xp, w, bias, args[0], zero,
                                                         *args[2:])
        crop = [slice(None), slice(None)] + [slice(lo, lo + s)
                                             for (lo, _), s in zip(pads, x.shape[2:])]
        return gi[tuple(crop)], gw, gb
    # Transposed: the output is the padding-free result cropped by (lo, hi), so the
    # gradient of the full output is gradOutput surrounded by zeros.
    gop = F.pad(go, fpad)
    return torch.ops.aten.convolution_backward(gop, x, w, bias, args[0], zero, *args[2:])


def describe_conv(p):
    return (f"expectStatus={p['expect_status']} {p['d']}D transposed={p['transposed']} "
            f"gradOutput={p['go_shape']} "
            f"input={p['in_shape']} weight={p['w_shape']} stride={p['stride']} "
            f"padding={p['padding']} dilation={p['dilation']} "
            f"outputPadding={p['output_padding_arg']} groups={p['groups']} mask={p['mask']} "
            f"dtypes(gO,x,w)={p['in_dtypes']} out(gI,gW,gB)={p['out_dtypes']} "
            f"strided={p['strided']} biasSizesNull={p['bias_sizes_null']}")


def run_conv_problem(acl, runner, rng, p):
    go_dt, x_dt, w_dt = p["in_dtypes"]
    go = rounded(rng, p["go_shape"], go_dt)
    x = rounded(rng, p["in_shape"], x_dt)
    w = rounded(rng, p["w_shape"], w_dt)
    ref = conv_oracle(p, go, x, w)
    absref = conv_oracle(p, go.abs(), x.abs(), w.abs())

    def layout(shape, i):
        return Layout.strided(shape, rng) if p["strided"][i] else Layout.dense(shape)

    rank = len(p["in_shape"])
    made, arrays, bools = [], [], []
    try:
        fmt = conv_format(rank)
        t_go = DeviceTensor(acl, "gradOutput", go, go_dt, layout(p["go_shape"], 0), fmt)
        t_x = DeviceTensor(acl, "input", x, x_dt, layout(p["in_shape"], 1), fmt)
        t_w = DeviceTensor(acl, "weight", w, w_dt, layout(p["w_shape"], 2), fmt)
        made += [t_go, t_x, t_w]
        out_shapes = [p["in_shape"], p["w_shape"], [p["go_shape"][1]]]
        out_fmts = [conv_format(rank), conv_format(rank), ACL_FORMAT_ND]
        outs = []
        for i in range(3):
            if not p["mask"][i] and p["null_masked"][i]:
                outs.append(None)
                continue
            t = DeviceTensor(acl, ["gradInput", "gradWeight", "gradBias"][i], None,
                             p["out_dtypes"][i], layout(out_shapes[i], 3 + i), out_fmts[i])
            made.append(t)
            outs.append(t)

        def int_array(values):
            h = acl.aclCreateIntArray(i64_array(values), len(values))
            arrays.append(h)
            return h

        bias_sizes = None if p["bias_sizes_null"] else int_array([p["go_shape"][1]])
        mask_arr = (ctypes.c_bool * 3)(*p["mask"])
        mask_h = acl.aclCreateBoolArray(mask_arr, 3)
        bools.append(mask_h)
        args = (t_go.handle, t_x.handle, t_w.handle, bias_sizes, int_array(p["stride"]),
                int_array(p["padding"]), int_array(p["dilation"]), p["transposed"],
                int_array(p["output_padding_arg"]), p["groups"], mask_h, 0,
                *[o.handle if o else None for o in outs])
        problems = runner.run_two_phase(acl.aclnnConvolutionBackwardGetWorkspaceSize,
                                        acl.aclnnConvolutionBackward, args,
                                        "aclnnConvolutionBackward", p["expect_status"])
        if problems or p["expect_status"] != 0:
            return problems
        promoted = promote(go_dt, x_dt, w_dt)
        chains = [{promoted, p["out_dtypes"][0]}, {"fp32", p["out_dtypes"][1]},
                  {go_dt, p["out_dtypes"][2]}]
        for i, name in enumerate(["gradInput", "gradWeight", "gradBias"]):
            t = outs[i]
            if t is None:
                continue
            got = t.fetch()
            if not p["mask"][i]:
                if not t.untouched_outside(include_view=True):
                    problems.append(f"{name}: masked off but its buffer was written")
                continue
            problems += [f"{name}: {m}" for m in compare(got, ref[i], absref[i], chains[i])]
            if not t.untouched_outside(include_view=False):
                problems.append(f"{name}: storage outside the view was written")
        return problems
    finally:
        for t in made:
            t.free()
        for h in arrays:
            acl.aclDestroyIntArray(h)
        for h in bools:
            acl.aclDestroyBoolArray(h)


# ---------------------------------------------------------------------------
# ConvTbc backward problems.
def make_tbc_problem(rng, index):
    k = int(rng.integers(1, 5))
    pad = int(rng.integers(0, 4))
    t = int(rng.integers(max(1, k - 2 * pad), 10))
    b, cin, cout = (int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5)))
    dt = list(DTYPES)[index % 3]
    in_dt = [dt] * 3
    if rng.random() < 0.1:
        in_dt = [str(rng.choice(list(DTYPES))) for _ in range(3)]
    bias_dt = str(rng.choice(list(DTYPES)))
    out_dt = [in_dt[1], in_dt[2], bias_dt]  # gradInput~input, gradWeight~weight, gradBias~bias
    return dict(
        self_shape=[t + 2 * pad - k + 1, b, cout], in_shape=[t, b, cin], w_shape=[k, cin, cout],
        bias_shape=[cout], pad=pad, in_dtypes=in_dt, bias_dtype=bias_dt, out_dtypes=out_dt,
        nan_bias=bool(rng.random() < 0.3), ncl=bool(rng.random() < 0.3),
        strided=[bool(rng.random() < 0.3) for _ in range(7)],
    )


def describe_tbc(p):
    return (f"ConvTbc self={p['self_shape']} input={p['in_shape']} weight={p['w_shape']} "
            f"bias={p['bias_shape']} pad={p['pad']} dtypes(self,x,w)={p['in_dtypes']} "
            f"bias={p['bias_dtype']} out(gI,gW,gB)={p['out_dtypes']} nanBias={p['nan_bias']} "
            f"strided={p['strided']}")


def run_tbc_problem(acl, runner, rng, p):
    s_dt, x_dt, w_dt = p["in_dtypes"]
    s = rounded(rng, p["self_shape"], s_dt)
    x = rounded(rng, p["in_shape"], x_dt)
    w = rounded(rng, p["w_shape"], w_dt)
    bias = rounded(rng, p["bias_shape"], p["bias_dtype"])
    ref = torch.ops.aten.conv_tbc_backward(s, x, w, bias, p["pad"])
    absref = torch.ops.aten.conv_tbc_backward(s.abs(), x.abs(), w.abs(), bias, p["pad"])
    if p["nan_bias"]:  # only bias's element count may be used
        bias = torch.full(p["bias_shape"], float("nan"), dtype=torch.float64)

    def layout(shape, i):
        return Layout.strided(shape, rng) if p["strided"][i] else Layout.dense(shape)

    fmt3 = ACL_FORMAT_NCL if p["ncl"] else ACL_FORMAT_ND
    made = []
    try:
        specs = [("self", s, s_dt, p["self_shape"], fmt3), ("input", x, x_dt, p["in_shape"], fmt3),
                 ("weight", w, w_dt, p["w_shape"], fmt3),
                 ("bias", bias, p["bias_dtype"], p["bias_shape"], ACL_FORMAT_ND),
                 ("gradInput", None, p["out_dtypes"][0], p["in_shape"], fmt3),
                 ("gradWeight", None, p["out_dtypes"][1], p["w_shape"], fmt3),
                 ("gradBias", None, p["out_dtypes"][2], p["bias_shape"], ACL_FORMAT_ND)]
        for i, (name, vals, dt, shape, fmt) in enumerate(specs):
            made.append(DeviceTensor(acl, name, vals, dt, layout(shape, i), fmt))
        h = [t.handle for t in made]
        args = (h[0], h[1], h[2], h[3], p["pad"], 0, h[4], h[5], h[6])
        problems = runner.run_two_phase(acl.aclnnConvTbcBackwardGetWorkspaceSize,
                                        acl.aclnnConvTbcBackward, args, "aclnnConvTbcBackward")
        if problems:
            return problems
        promoted = promote(s_dt, x_dt, w_dt)
        chains = [{promoted, x_dt, p["out_dtypes"][0]}, {"fp32", w_dt, p["out_dtypes"][1]},
                  {s_dt, p["out_dtypes"][2]}]
        for i, name in enumerate(["gradInput", "gradWeight", "gradBias"]):
            t = made[4 + i]
            got = t.fetch()
            problems += [f"{name}: {m}" for m in compare(got, ref[i], absref[i], chains[i])]
            if not t.untouched_outside(include_view=False):
                problems.append(f"{name}: storage outside the view was written")
        return problems
    finally:
        for t in made:
            t.free()


# ---------------------------------------------------------------------------
def main():
    if len(sys.argv) < 2:
        print("usage: torch_crosscheck.py /path/to/libascendcl.so [seed]")
        return 2
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240607
    torch.set_num_threads(1)
    acl = Acl(sys.argv[1])
    acl.check(acl.aclInit(None), "aclInit")
    acl.check(acl.aclrtSetDevice(0), "aclrtSetDevice")
    stream = ctypes.c_void_p()
    acl.check(acl.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
    runner = Runner(acl, stream)
    rng = np.random.default_rng(seed)

    cases = [("conv", i) for i in range(304)] + [("tbc", i) for i in range(51)]
    passed, failed = 0, 0
    for kind, i in cases:
        if kind == "conv":
            p = make_conv_problem(rng, i)
            desc = describe_conv(p)
            run = run_conv_problem
        else:
            p = make_tbc_problem(rng, i)
            desc = describe_tbc(p)
            run = run_tbc_problem
        try:
            problems = run(acl, runner, rng, p)
        except Exception as exc:  # report and continue: one bad case must not hide others
            problems = [f"exception: {exc!r}"]
        if problems:
            failed += 1
            print(f"FAIL {kind}#{i}: {desc}")
            for m in problems:
                print(f"    {m}")
        else:
            passed += 1

    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(0)
    acl.aclFinalize()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
