"""aclnn_cpu.convolution / conv_tbc / conv_depthwise2d against aten in float64.

They run only when the loaded library exports the forward operators; otherwise they
are skipped with that reason, and the one test that runs checks the clear error.
The numerics (spec convolution-forward decision 8): operands rounded to the compute
dtype c (HF32 for fp32 with cube_math_type 1/3, fp16 for 2), fp32 accumulation, the
bias added in the accumulator (rounded to fp16 when c is fp16), one rounding to c,
then the cast to the output dtype.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the oracle")
import torch.nn.functional as F  # noqa: E402

import aclnn_cpu  # noqa: E402
import oracle  # noqa: E402
import problems  # noqa: E402
import views  # noqa: E402


def _requires(name):
    return pytest.mark.skipif(not aclnn_cpu.has_operator(name),
                              reason=f"{name} is not exported by {aclnn_cpu.library_path()} "
                                     "(forward operators not in this build yet)")


def _values(rng, shape, dtype):
    return oracle.round_to(torch.from_numpy(rng.uniform(-1.0, 1.0, size=shape)), dtype)


def _forward(x, w, p):
    """aten.convolution in float64 (no bias), asymmetric padding made explicit."""
    pads, d = p["pads"], len(p["pads"])
    zero = [0] * d
    if not p["transposed"]:
        xp = F.pad(x, [v for pair in reversed(pads) for v in pair])
        return torch.ops.aten.convolution(xp, w, None, p["stride"], zero, p["dilation"], False,
                                          zero, p["groups"])
    full = torch.ops.aten.convolution(x, w, None, p["stride"], zero, p["dilation"], True,
                                      p["output_padding"], p["groups"])
    crop = (slice(None), slice(None)) + tuple(slice(lo, n - hi) for (lo, hi), n in
                                              zip(pads, full.shape[2:]))
    return full[crop]


def _bias_term(bias, compute, rank):
    b = oracle.round_to(bias, "float16") if compute == "float16" else bias
    return b.reshape([1, -1] + [1] * (rank - 2))


@_requires("aclnnConvolution")
@pytest.mark.parametrize("seed", range(3000, 3096))
def test_convolution_random(seed):
    p = problems.conv_problem(seed)
    rng = np.random.default_rng(seed + 11)
    kind, (x_dt, w_dt, b_dt) = p["kind"], (p["dtypes"][1], p["dtypes"][2], p["dtypes"][0])
    x_v, w_v = _values(rng, p["in_shape"], x_dt), _values(rng, p["w_shape"], w_dt)
    with_bias = seed % 3 != 0
    b_v = _values(rng, [p["go_shape"][1]], b_dt) if with_bias else None
    x, w = (views.make(kind, dt, views.Layout(lay, v.shape), v)[0]
            for v, dt, lay in ((x_v, x_dt, p["layouts"][1]), (w_v, w_dt, p["layouts"][2])))
    b = views.make(kind, b_dt, views.Layout(p["layouts"][5], b_v.shape), b_v)[0] \
        if with_bias else None
    out_layout = views.Layout(p["layouts"][0], p["go_shape"])
    out_dt = p["out_dtypes"][0] if p["use_out"] else oracle.promote(x_dt, w_dt)
    out, buf = views.make(kind, out_dt, out_layout) if p["use_out"] else (None, None)
    compute, _ = oracle.operand_dtype([x_dt, w_dt], p["cube"])
    args = (x, w, b, p["stride"], p["padding"], p["dilation"], p["transposed"],
            p["output_padding"], p["groups"])
    if (p["transposed"] and compute in ("float16", "bfloat16") and out_dt == "float32"
            and p["cube"] != 2):
        with pytest.raises(aclnn_cpu.AclnnError) as info:  # spec step 9.2: no such kernel
            aclnn_cpu.convolution(*args, cube_math_type=p["cube"], out=out)
        assert info.value.status == 361001
        return
    got = aclnn_cpu.convolution(*args, cube_math_type=p["cube"], out=out)
    xo, wo = oracle.npu_operands([x_v, w_v], [x_dt, w_dt], p["cube"])
    ref = _forward(xo, wo, p)
    absref = _forward(xo.abs(), wo.abs(), p)
    count = _forward(torch.ones_like(xo), torch.ones_like(wo), p)
    if with_bias:
        bt = _bias_term(b_v, compute, xo.dim())
        ref, absref, count = ref + bt, absref + bt.abs(), count + 1
    what = problems.describe(p) + f" bias={with_bias}"
    if p["use_out"]:
        assert got is out and views.outside_view_untouched(kind, out_layout, buf), what
    else:
        assert str(got.dtype).replace("torch.", "") == out_dt, what
    oracle.check(views.to_float64(got), ref, absref, count, [compute, out_dt], what)


@_requires("aclnnConvTbc")
@pytest.mark.parametrize("seed", range(4000, 4024))
def test_conv_tbc_random(seed):
    rng = np.random.default_rng(seed)
    k, pad = int(rng.integers(1, 5)), int(rng.integers(0, 3))
    t = int(rng.integers(max(1, k - pad), 9))  # upstream's T + pad >= K rule
    bsz, cin, cout = (int(v) for v in rng.integers(1, 5, size=3))
    kind = "torch" if seed % 2 else "numpy"
    dts = ["float32", "float16", "bfloat16"] if kind == "torch" else ["float32", "float16"]
    dt, b_dt, cube = dts[seed // 2 % len(dts)], str(rng.choice(dts)), seed // 4 % 4
    s_v, w_v, b_v = (_values(rng, sh, d) for sh, d in
                     (([t, bsz, cin], dt), ([k, cin, cout], dt), ([cout], b_dt)))
    lay = [str(rng.choice(views.layouts_for(3, kind))) for _ in range(2)]
    s = views.make(kind, dt, views.Layout(lay[0], s_v.shape), s_v)[0]
    w = views.make(kind, dt, views.Layout(lay[1], w_v.shape), w_v)[0]
    b = views.make(kind, b_dt, views.Layout("dense", b_v.shape), b_v)[0]
    got = aclnn_cpu.conv_tbc(s, w, b, pad, cube_math_type=cube)
    so, wo = oracle.npu_operands([s_v, w_v], [dt, dt], cube)
    compute, _ = oracle.operand_dtype([dt, dt], cube)
    bt = oracle.round_to(b_v, "float16") if compute == "float16" else b_v
    ref = torch.ops.aten.conv_tbc(so, wo, bt, pad)
    absref = torch.ops.aten.conv_tbc(so.abs(), wo.abs(), bt.abs(), pad)
    count = torch.ops.aten.conv_tbc(torch.ones_like(so), torch.ones_like(wo),
                                    torch.ones_like(bt), pad)
    assert str(got.dtype).replace("torch.", "") == dt
    oracle.check(views.to_float64(got), ref, absref, count, [compute, dt],
                 f"T={t} B={bsz} Cin={cin} Cout={cout} K={k} pad={pad} {dt} bias {b_dt} "
                 f"cube={cube} {kind} {lay}")


@_requires("aclnnConvDepthwise2d")
@pytest.mark.parametrize("seed", range(5000, 5024))
def test_conv_depthwise2d_random(seed):
    rng = np.random.default_rng(seed)
    n, c, m = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 3))
    kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
    stride = [int(v) for v in rng.integers(1, 3, size=2)]
    dil = [int(v) for v in rng.integers(1, 3, size=2)]
    pad = [int(rng.integers(0, 2)), int(rng.integers(0, 2))]
    h, wd = (int(dil[0] * (kh - 1) + rng.integers(1, 6)),
             int(dil[1] * (kw - 1) + rng.integers(1, 6)))
    kind = "torch" if seed % 2 else "numpy"
    dt, cube = ("float32", "float16", "bfloat16")[seed % (3 if kind == "torch" else 2)], \
        seed // 3 % 4
    x_v = _values(rng, [n, c, h, wd], dt)
    w_v = _values(rng, [c * m, 1, kh, kw], dt)
    b_v = _values(rng, [c * m], dt) if seed % 4 else None
    lay = str(rng.choice(views.layouts_for(4, kind)))
    x = views.make(kind, dt, views.Layout(lay, x_v.shape), x_v)[0]
    w = views.make(kind, dt, views.Layout("dense", w_v.shape), w_v)[0]
    b = None if b_v is None else views.make(kind, dt, views.Layout("dense", b_v.shape), b_v)[0]
    got = aclnn_cpu.conv_depthwise2d(x, w, [kh, kw], b, stride, pad, dil, cube_math_type=cube)
    xo, wo = oracle.npu_operands([x_v, w_v], [dt, dt], cube)
    compute, _ = oracle.operand_dtype([dt, dt], cube)

    def conv(a, b_):
        return torch.ops.aten.convolution(a, b_, None, stride, pad, dil, False, [0, 0], c)

    ref, absref, count = conv(xo, wo), conv(xo.abs(), wo.abs()), conv(torch.ones_like(xo),
                                                                       torch.ones_like(wo))
    if b_v is not None:
        bt = _bias_term(b_v, compute, 4)
        ref, absref, count = ref + bt, absref + bt.abs(), count + 1
    oracle.check(views.to_float64(got), ref, absref, count, [compute, dt],
                 f"x={list(x_v.shape)} w={list(w_v.shape)} stride={stride} pad={pad} "
                 f"dil={dil} {dt} cube={cube} {kind} {lay} bias={b_v is not None}")


@_requires("aclnnConvolution")
def test_convolution_hand_example():
    """Upstream's doc example: ones [2,2,2,2] * ones [1,2,1,1] = 2 everywhere."""
    out = aclnn_cpu.convolution(np.ones((2, 2, 2, 2), np.float32),
                                np.ones((1, 2, 1, 1), np.float32), None, 1, 0, 1, False, 0, 1,
                                cube_math_type=1)
    np.testing.assert_array_equal(out, np.full((2, 1, 2, 2), 2, np.float32))


@_requires("aclnnConvolution")
def test_convolution_wrong_output_shape():
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution(np.ones((2, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32),
                              None, 1, 0, 1, False, 0, 1,
                              out=np.empty((2, 3, 3, 4), np.float32))
    assert info.value.status == 161002 and "output" in info.value.message


@pytest.mark.skipif(aclnn_cpu.has_operator("aclnnConvolution"),
                    reason="the library exports the forward operators")
def test_missing_forward_operators_raise_clearly():
    x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 1, 1), np.float32)
    calls = [("aclnnConvolution", lambda: aclnn_cpu.convolution(x, w)),
             ("aclnnConvTbc", lambda: aclnn_cpu.conv_tbc(x[0], x[0], x[0, 0, 0], 0)),
             ("aclnnConvDepthwise2d", lambda: aclnn_cpu.conv_depthwise2d(x, w, [1, 1]))]
    for name, call in calls:
        with pytest.raises(NotImplementedError, match=name) as info:
            call()
        assert isinstance(info.value, aclnn_cpu.OperatorUnavailableError)
        assert not aclnn_cpu.has_operator(name)


@_requires("aclnnConvDepthwise2d")
@_requires("aclnnConvTbc")
@_requires("aclnnConvolution")
def test_forward_nulls_are_161001_naming_them():
    x, w = np.ones((1, 2, 4, 4), np.float32), np.ones((2, 1, 3, 3), np.float32)
    calls = [(lambda: aclnn_cpu.convolution(None, w), "input"),
             (lambda: aclnn_cpu.conv_tbc(x[0], None, x[0, 0, 0], 0), "weight"),
             (lambda: aclnn_cpu.conv_tbc(x[0], x[0], None, 0), "bias"),
             (lambda: aclnn_cpu.conv_depthwise2d(x, w, None), "kernelSize")]
    for call, name in calls:
        with pytest.raises(aclnn_cpu.AclnnError) as info:
            call()
        assert info.value.status == 161001 and name in info.value.message, info.value
