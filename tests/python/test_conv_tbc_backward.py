"""aclnn_cpu.conv_tbc_backward against torch.ops.aten.conv_tbc_backward in float64."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the oracle")

import aclnn_cpu  # noqa: E402
import oracle  # noqa: E402
import views  # noqa: E402

DTYPES = ["float32", "float16", "bfloat16"]


def tbc_problem(seed):
    rng = np.random.default_rng(seed)
    k, pad = int(rng.integers(1, 5)), int(rng.integers(0, 3))
    t = int(rng.integers(max(1, k - 2 * pad), 9))
    b, cin, cout = (int(v) for v in rng.integers(1, 5, size=3))
    kind = "torch" if seed % 2 else "numpy"
    choices = DTYPES if kind == "torch" else DTYPES[:2]
    dtypes = [choices[seed // 2 % len(choices)]] * 3
    if rng.random() < 0.2:
        dtypes = [str(rng.choice(choices)) for _ in range(3)]
    use_out = bool(rng.random() < 0.4)
    out_dtypes = [dtypes[1], dtypes[2], dtypes[0]]
    if use_out:
        out_dtypes = [str(rng.choice(choices)) for _ in range(3)]
    layouts = [str(rng.choice(views.layouts_for(r, kind))) if rng.random() < 0.4 else "dense"
               for r in (3, 3, 3, 1, 3, 3, 1)]
    return dict(shapes=[[t + 2 * pad - k + 1, b, cout], [t, b, cin], [k, cin, cout], [cout]],
                pad=pad, kind=kind, dtypes=dtypes, bias_dtype=str(rng.choice(choices)),
                out_dtypes=out_dtypes, use_out=use_out, cube=seed // 6 % 4, layouts=layouts,
                rng=rng)


@pytest.mark.parametrize("seed", range(2000, 2048))
def test_random_problem(seed):
    p = tbc_problem(seed)
    rng, kind = p["rng"], p["kind"]
    dts = p["dtypes"] + [p["bias_dtype"]]
    vals = [oracle.round_to(torch.from_numpy(rng.uniform(-1, 1, size=s)), dt)
            for s, dt in zip(p["shapes"], dts)]
    ins = [views.make(kind, dt, views.Layout(lay, v.shape), v)[0]
           for v, dt, lay in zip(vals, dts, p["layouts"][:4])]
    out_layouts = [views.Layout(lay, s) for lay, s in
                   zip(p["layouts"][4:], [p["shapes"][1], p["shapes"][2], p["shapes"][3]])]
    outs = bufs = None
    if p["use_out"]:
        made = [views.make(kind, dt, lay) for dt, lay in zip(p["out_dtypes"], out_layouts)]
        outs, bufs = [m[0] for m in made], [m[1] for m in made]
    got = aclnn_cpu.conv_tbc_backward(*ins, p["pad"], cube_math_type=p["cube"], out=outs)
    ref, absref, count = oracle.tbc_reference(*vals[:3], vals[3], p["pad"], p["dtypes"],
                                              p["cube"])
    compute, _ = oracle.operand_dtype(p["dtypes"], p["cube"])
    # Spec conv-tbc-backward 4.2: dX and dW pass through input's / weight's dtype
    # before the copy into the outputs.
    chains = [[compute, p["dtypes"][1], p["out_dtypes"][0]],
              ["float32", p["dtypes"][2], p["out_dtypes"][1]],
              [p["dtypes"][0], p["out_dtypes"][2]]]
    for i, name in enumerate(["grad_input", "grad_weight", "grad_bias"]):
        what = f"{name} of {p}"
        if p["use_out"]:
            assert got[i] is outs[i]
            assert views.outside_view_untouched(kind, out_layouts[i], bufs[i]), what
        else:
            assert str(got[i].dtype).replace("torch.", "") == p["out_dtypes"][i], what
        oracle.check(views.to_float64(got[i]), ref[i], absref[i], count[i], chains[i], what)


def test_doc_example_all_ones():
    """The upstream doc example: self [5,1,2], input [5,1,2], weight [1,2,2], pad 0."""
    ones = [np.ones(s, np.float32) for s in ([5, 1, 2], [5, 1, 2], [1, 2, 2], [2])]
    gi, gw, gb = aclnn_cpu.conv_tbc_backward(*ones, 0, cube_math_type=1)
    np.testing.assert_array_equal(gi, np.full((5, 1, 2), 2, np.float32))
    np.testing.assert_array_equal(gw, np.full((1, 2, 2), 5, np.float32))
    np.testing.assert_array_equal(gb, [5, 5])


def test_bias_values_are_not_used():
    rng = np.random.default_rng(3)
    s, x, w = (rng.standard_normal(sh).astype(np.float32) for sh in ([4, 2, 3], [4, 2, 2],
                                                                       [1, 2, 3]))
    a = aclnn_cpu.conv_tbc_backward(s, x, w, np.zeros(3, np.float32), 0)
    b = aclnn_cpu.conv_tbc_backward(s, x, w, np.full(3, np.nan, np.float32), 0)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
