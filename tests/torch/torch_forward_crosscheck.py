#!/usr/bin/env python3
"""Cross-check aclnnConvolution (normal and transposed), aclnnConvDepthwise2d and
aclnnConvTbc against PyTorch in float64.

Usage: torch_forward_crosscheck.py /path/to/libascendcl.so [seed]

Shares the ctypes binding, device tensors and tolerance model of
torch_crosscheck.py (same folder).  The oracle is torch.nn.functional.conv{1,2,3}d
/ conv_transpose{1,2,3}d and torch.conv_tbc evaluated in float64 on the values
our operator sees (already rounded to their dtype), plus the bias as decision 8
gives it (rounded to fp16 when the compute dtype is fp16); the tolerance of every
element is relative to the float64 sum of |terms|.

Prints "N passed, M failed" and exits 0 only when M == 0; exits 77 (skip) when
torch or numpy cannot be imported.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_crosscheck as base  # noqa: E402  (exits 77 when torch is missing)

np, torch, F = base.np, base.torch, base.F
ACL_FORMAT_NDHWC = 27
DeviceTensor, Layout, rounded, compare, promote = (base.DeviceTensor, base.Layout, base.rounded,
                                                   base.compare, base.promote)


class ForwardAcl(base.Acl):
    def __init__(self, path):
        super().__init__(path)
        lib = ctypes.CDLL(path)
        vp, u64, i64 = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int64

        def fn(name, res, *args):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, list(args)
            setattr(self, name, f)

        i32 = ctypes.c_int32
        fn("aclnnConvolutionGetWorkspaceSize", i32, vp, vp, vp, vp, vp, vp, ctypes.c_bool, vp, i64,
           vp, ctypes.c_int8, ctypes.POINTER(u64), ctypes.POINTER(vp))
        fn("aclnnConvolution", i32, vp, u64, vp, vp)
        fn("aclnnConvDepthwise2dGetWorkspaceSize", i32, vp, vp, vp, vp, vp, vp, vp, vp,
           ctypes.c_int8, ctypes.POINTER(u64), ctypes.POINTER(vp))
        fn("aclnnConvDepthwise2d", i32, vp, u64, vp, vp)
        fn("aclnnConvTbcGetWorkspaceSize", i32, vp, vp, vp, i64, vp, ctypes.c_int8,
           ctypes.POINTER(u64), ctypes.POINTER(vp))
        fn("aclnnConvTbc", i32, vp, u64, vp, vp)


def bias_as_computed(bias, compute):
    """Decision 8: the bias joins the fp32 sum, rounded to fp16 first when c = fp16."""
    return bias.to(torch.float16).to(torch.float64) if compute == "fp16" else bias


def conv_nd(d, transposed):
    if transposed:
        return {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[d]
    return {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[d]


def conv_oracle(p, x, w):
    """float64 forward without bias; asymmetric padding by explicit zero padding / cropping."""
    d, pads = p["d"], p["pads"]
    f = conv_nd(d, p["transposed"])
    if p["transposed"]:
        full = f(x, w, None, p["stride"], 0, p["output_padding"], p["groups"], p["dilation"])
        crop = [slice(None), slice(None)] + [slice(lo, full.shape[2 + i] - hi)
                                             for i, (lo, hi) in enumerate(pads)]
        return full[tuple(crop)]
    fpad = [v for lo_hi in reversed(pads) for v in lo_hi]
    return f(F.pad(x, fpad), w, None, p["stride"], 0, p["dilation"], p["groups"])


def make_conv_problem(rng, index):
    d = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
    transposed = bool(rng.random() < 0.4)
    groups = int(rng.choice([1, 1, 2, 3]))
    a_pg, b_pg = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    n = int(rng.integers(1, 3))
    k = [int(rng.integers(1, 4 if d < 3 else 3)) for _ in range(d)]
    stride = [int(rng.integers(1, 4)) for _ in range(d)]
    dil = [int(rng.choice([1, 1, 2, 3])) for _ in range(d)]
    span = [dil[i] * (k[i] - 1) for i in range(d)]
    two_sided = (d == 2) or (d == 1 and not transposed)
    if two_sided and rng.random() < 0.4:
        pads = [(int(rng.integers(0, s + 2)), int(rng.integers(0, s + 2))) for s in span]
    else:
        pads = [(q, q) for q in (int(rng.integers(0, s // 2 + 2)) for s in span)]
    out_pad, in_sp, out_sp = [0] * d, [], []
    for i in range(d):
        lo, hi = pads[i]
        if not transposed:
            least = max(1, span[i] + 1 - lo - hi)
            x = int(rng.integers(least, least + 6))
            in_sp.append(x)
            out_sp.append((x + lo + hi - span[i] - 1) // stride[i] + 1)
        else:
            # smaller than stride OR dilation (the PyTorch rule the API follows)
            out_pad[i] = int(rng.integers(0, max(stride[i], dil[i])))
            x = int(rng.integers(1, 6))
            full = (x - 1) * stride[i] + span[i] + out_pad[i] + 1
            while full - lo - hi < 1:
                lo, hi = max(0, lo - 1), max(0, hi - 1)
            pads[i] = (lo, hi)
            in_sp.append(x)
            out_sp.append(full - lo - hi)
    if transposed:  # weight [C_in, C_out/G, k]
        w_shape = [groups * a_pg, b_pg] + k
        in_c, out_c = groups * a_pg, groups * b_pg
    else:  # weight [C_out, C_in/G, k]
        w_shape = [groups * a_pg, b_pg] + k
        in_c, out_c = groups * b_pg, groups * a_pg
    names = list(base.DTYPES)
    dt = names[index % 3]
    x_dt = w_dt = b_dt = o_dt = dt
    if rng.random() < 0.15:
        x_dt, w_dt, b_dt, o_dt = (str(rng.choice(names)) for _ in range(4))
    compute = promote(x_dt, w_dt)
    if transposed and compute != "fp32" and o_dt == "fp32":
        o_dt = compute  # decision 5 (361001) is covered by the conformance suite
    if all(lo == hi for lo, hi in pads):
        padding = [lo for lo, _ in pads]
    else:
        padding = [v for lo_hi in pads for v in lo_hi]
    return dict(d=d, transposed=transposed, groups=groups, stride=stride, dilation=dil,
                pads=pads, padding=padding, output_padding=out_pad,
                in_shape=[n, in_c] + in_sp, w_shape=w_shape, out_shape=[n, out_c] + out_sp,
                dtypes=(x_dt, w_dt, b_dt, o_dt), compute=compute,
                bias=bool(rng.random() < 0.7), strided=[bool(rng.random() < 0.3) for _ in range(4)],
                channels_last=d == 3 and rng.random() < 0.3)


def describe(p):
    keys = ["d", "transposed", "groups", "in_shape", "w_shape", "out_shape", "stride", "padding",
            "dilation", "output_padding", "dtypes", "bias", "strided", "channels_last"]
    return " ".join(f"{k}={p[k]}" for k in keys if k in p)


def to_channels_last(t):
    return t.permute(0, 2, 3, 4, 1).contiguous()


def run_conv_problem(acl, runner, rng, p):
    x_dt, w_dt, b_dt, o_dt = p["dtypes"]
    x = rounded(rng, p["in_shape"], x_dt)
    w = rounded(rng, p["w_shape"], w_dt)
    b = rounded(rng, [p["out_shape"][1]], b_dt)
    ref = conv_oracle(p, x, w)
    absref = conv_oracle(p, x.abs(), w.abs())
    shape_b = [1, -1] + [1] * p["d"]
    if p["bias"]:
        bc = bias_as_computed(b, p["compute"])
        ref = ref + bc.reshape(shape_b)
        absref = absref + bc.abs().reshape(shape_b)
    last = p["channels_last"]
    fmt = ACL_FORMAT_NDHWC if last else base.conv_format(len(p["in_shape"]))
    if last:
        x, ref, absref = to_channels_last(x), to_channels_last(ref), to_channels_last(absref)

    def layout(shape, i):
        return Layout.strided(shape, rng) if p["strided"][i] else Layout.dense(shape)

    made, arrays = [], []
    try:
        t_x = DeviceTensor(acl, "input", x, x_dt, layout(list(x.shape), 0), fmt)
        t_w = DeviceTensor(acl, "weight", w, w_dt, layout(p["w_shape"], 1),
                           base.conv_format(len(p["w_shape"])))
        made += [t_x, t_w]
        t_b = None
        if p["bias"]:
            t_b = DeviceTensor(acl, "bias", b, b_dt, layout([p["out_shape"][1]], 2),
                               base.ACL_FORMAT_ND)
            made.append(t_b)
        t_o = DeviceTensor(acl, "output", None, o_dt, layout(list(ref.shape), 3), fmt)
        made.append(t_o)

        def int_array(values):
            h = acl.aclCreateIntArray(base.i64_array(values), len(values))
            arrays.append(h)
            return h

        args = (t_x.handle, t_w.handle, t_b.handle if t_b else None, int_array(p["stride"]),
                int_array(p["padding"]), int_array(p["dilation"]), p["transposed"],
                int_array(p["output_padding"]), p["groups"], t_o.handle, 0)
        problems = runner.run_two_phase(acl.aclnnConvolutionGetWorkspaceSize,
                                        acl.aclnnConvolution, args, "aclnnConvolution")
        if problems:
            return problems
        problems += compare(t_o.fetch(), ref, absref, {p["compute"], o_dt})
        if not t_o.untouched_outside(include_view=False):
            problems.append("output: storage outside the view was written")
        return problems
    finally:
        for t in made:
            t.free()
        for h in arrays:
            acl.aclDestroyIntArray(h)


def make_depthwise_problem(rng, index):
    c, m, n = int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    k = [int(rng.integers(1, 4)) for _ in range(2)]
    stride = [int(rng.integers(1, 3)) for _ in range(2)]
    dil = [int(rng.choice([1, 2])) for _ in range(2)]
    pad = [int(rng.integers(0, 3)) for _ in range(2)]
    sp, out = [], []
    for i in range(2):
        span = dil[i] * (k[i] - 1)
        x = max(1, span + 1 - 2 * pad[i]) + int(rng.integers(0, 6))
        sp.append(x)
        out.append((x + 2 * pad[i] - span - 1) // stride[i] + 1)
    dt = list(base.DTYPES)[index % 3]
    return dict(d=2, transposed=False, groups=c, stride=stride, dilation=dil, padding=pad,
                pads=[(q, q) for q in pad], output_padding=[0, 0], in_shape=[n, c] + sp,
                w_shape=[c * m, 1] + k, out_shape=[n, c * m] + out, dtypes=(dt, dt, dt, dt),
                compute=dt, bias=bool(rng.random() < 0.6),
                strided=[bool(rng.random() < 0.3) for _ in range(4)])


def run_depthwise_problem(acl, runner, rng, p):
    dt = p["dtypes"][0]
    x, w = rounded(rng, p["in_shape"], dt), rounded(rng, p["w_shape"], dt)
    b = rounded(rng, [p["out_shape"][1]], dt)
    ref = F.conv2d(x, w, b if p["bias"] else None, p["stride"], p["padding"], p["dilation"],
                   p["groups"])
    absref = F.conv2d(x.abs(), w.abs(), b.abs() if p["bias"] else None, p["stride"],
                      p["padding"], p["dilation"], p["groups"])

    def layout(shape, i):
        return Layout.strided(shape, rng) if p["strided"][i] else Layout.dense(shape)

    made, arrays = [], []
    try:
        nchw = base.ACL_FORMAT_NCHW
        t_x = DeviceTensor(acl, "self", x, dt, layout(p["in_shape"], 0), nchw)
        t_w = DeviceTensor(acl, "weight", w, dt, layout(p["w_shape"], 1), nchw)
        made += [t_x, t_w]
        t_b = None
        if p["bias"]:
            t_b = DeviceTensor(acl, "bias", b, dt, layout([p["out_shape"][1]], 2),
                               base.ACL_FORMAT_ND)
            made.append(t_b)
        t_o = DeviceTensor(acl, "out", None, dt, layout(p["out_shape"], 3), nchw)
        made.append(t_o)

        def int_array(values):
            h = acl.aclCreateIntArray(base.i64_array(values), len(values))
            arrays.append(h)
            return h

        args = (t_x.handle, t_w.handle, int_array(p["w_shape"][2:]),
                t_b.handle if t_b else None, int_array(p["stride"]), int_array(p["padding"]),
                int_array(p["dilation"]), t_o.handle, 0)
        problems = runner.run_two_phase(acl.aclnnConvDepthwise2dGetWorkspaceSize,
                                        acl.aclnnConvDepthwise2d, args, "aclnnConvDepthwise2d")
        if problems:
            return problems
        problems += compare(t_o.fetch(), ref, absref, {dt})
        if not t_o.untouched_outside(include_view=False):
            problems.append("out: storage outside the view was written")
        return problems
    finally:
        for t in made:
            t.free()
        for h in arrays:
            acl.aclDestroyIntArray(h)


def make_tbc_problem(rng, index):
    k, pad = int(rng.integers(1, 5)), int(rng.integers(0, 3))
    t = max(1, k - pad) + int(rng.integers(0, 7))  # upstream's single-pad rule T + pad >= K
    b, cin, cout = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    dt = list(base.DTYPES)[index % 3]
    return dict(in_shape=[t, b, cin], w_shape=[k, cin, cout], out_shape=[t + 2 * pad - k + 1, b,
                                                                          cout],
                pad=pad, dtype=dt, bias_dtype=str(rng.choice(list(base.DTYPES))),
                ncl=bool(rng.random() < 0.3), strided=[bool(rng.random() < 0.3) for _ in range(4)])


def run_tbc_problem(acl, runner, rng, p):
    dt = p["dtype"]
    x, w = rounded(rng, p["in_shape"], dt), rounded(rng, p["w_shape"], dt)
    b = rounded(rng, [p["w_shape"][2]], p["bias_dtype"])
    ref = torch.conv_tbc(x, w, bias_as_computed(b, dt), p["pad"])
    absref = torch.conv_tbc(x.abs(), w.abs(), bias_as_computed(b, dt).abs(), p["pad"])

    def layout(shape, i):
        return Layout.strided(shape, rng) if p["strided"][i] else Layout.dense(shape)

    fmt = base.ACL_FORMAT_NCL if p["ncl"] else base.ACL_FORMAT_ND
    made = []
    try:
        t_x = DeviceTensor(acl, "self", x, dt, layout(p["in_shape"], 0), fmt)
        t_w = DeviceTensor(acl, "weight", w, dt, layout(p["w_shape"], 1), fmt)
        t_b = DeviceTensor(acl, "bias", b, p["bias_dtype"], layout([p["w_shape"][2]], 2),
                           base.ACL_FORMAT_ND)
        t_o = DeviceTensor(acl, "output", None, dt, layout(p["out_shape"], 3), fmt)
        made += [t_x, t_w, t_b, t_o]
        args = (t_x.handle, t_w.handle, t_b.handle, p["pad"], t_o.handle, 0)
        problems = runner.run_two_phase(acl.aclnnConvTbcGetWorkspaceSize, acl.aclnnConvTbc, args,
                                        "aclnnConvTbc")
        if problems:
            return problems
        problems += compare(t_o.fetch(), ref, absref, {dt})
        if not t_o.untouched_outside(include_view=False):
            problems.append("output: storage outside the view was written")
        return problems
    finally:
        for t in made:
            t.free()


def main():
    if len(sys.argv) < 2:
        print("usage: torch_forward_crosscheck.py /path/to/libascendcl.so [seed]")
        return 2
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261201
    torch.set_num_threads(1)
    acl = ForwardAcl(sys.argv[1])
    acl.check(acl.aclInit(None), "aclInit")
    acl.check(acl.aclrtSetDevice(0), "aclrtSetDevice")
    stream = ctypes.c_void_p()
    acl.check(acl.aclrtCreateStream(ctypes.byref(stream)), "aclrtCreateStream")
    runner = base.Runner(acl, stream)
    rng = np.random.default_rng(seed)

    kinds = {"conv": (make_conv_problem, run_conv_problem, 300),
             "depthwise": (make_depthwise_problem, run_depthwise_problem, 60),
             "tbc": (make_tbc_problem, run_tbc_problem, 60)}
    passed, failed, counts = 0, 0, {}
    for kind, (make, run, count) in kinds.items():
        for i in range(count):
            p = make(rng, i)
            try:
                problems = run(acl, runner, rng, p)
            except Exception as exc:  # one bad case must not hide the others
                problems = [f"exception: {exc!r}"]
            if problems:
                failed += 1
                print(f"FAIL {kind}#{i}: {describe(p)}")
                for m in problems:
                    print(f"    {m}")
            else:
                passed += 1
                counts[kind] = counts.get(kind, 0) + 1
    acl.aclrtDestroyStream(stream)
    acl.aclrtResetDevice(0)
    acl.aclFinalize()
    print(f"passed per operator: {counts}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
