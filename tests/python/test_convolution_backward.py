"""aclnn_cpu.convolution_backward against torch.ops.aten.convolution_backward in float64."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch (python3-torch) is the oracle")

import aclnn_cpu  # noqa: E402
import oracle  # noqa: E402
import problems  # noqa: E402
import views  # noqa: E402

SEEDS = range(1000, 1480)  # 480 problems: every mask x cube_math_type combination 15 times


def _param(values, as_int):
    return values[0] if as_int and all(v == values[0] for v in values) else values


def _values(rng, shape, dtype):
    data = torch.from_numpy(rng.uniform(-1.0, 1.0, size=shape))
    return oracle.round_to(data, dtype)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_problem(seed):
    p = problems.conv_problem(seed)
    rng = np.random.default_rng(seed + 7)
    kind, names = p["kind"], ["grad_input", "grad_weight", "grad_bias"]
    go_v, x_v, w_v = (_values(rng, s, dt) for s, dt in
                      zip([p["go_shape"], p["in_shape"], p["w_shape"]], p["dtypes"]))
    ins = [views.make(kind, dt, views.Layout(lay, v.shape), v)[0]
           for v, dt, lay in zip([go_v, x_v, w_v], p["dtypes"], p["layouts"][:3])]
    out_shapes = [p["in_shape"], p["w_shape"], [p["go_shape"][1]]]
    out_layouts = [views.Layout(lay, s) for lay, s in zip(p["layouts"][3:], out_shapes)]
    outs, bufs = [None] * 3, [None] * 3
    if p["use_out"]:
        for i in range(3):
            outs[i], bufs[i] = views.make(kind, p["out_dtypes"][i], out_layouts[i])
    kwargs = dict(stride=_param(p["stride"], p["int_params"]),
                  padding=_param(p["padding"], p["int_params"]),
                  dilation=_param(p["dilation"], p["int_params"]), transposed=p["transposed"],
                  output_padding=_param(p["output_padding"], p["int_params"]),
                  groups=p["groups"], output_mask=p["mask"], cube_math_type=p["cube"],
                  out=tuple(outs) if p["use_out"] else None)
    if problems.rejected(p):
        with pytest.raises(aclnn_cpu.AclnnError) as info:
            aclnn_cpu.convolution_backward(*ins, **kwargs)
        assert info.value.status == 161002, problems.describe(p)
        return
    got = aclnn_cpu.convolution_backward(*ins, **kwargs)
    ref, absref, count = oracle.conv_backward_reference(p, go_v, x_v, w_v)
    chains = oracle.conv_backward_chains(p, p["out_dtypes"])
    for i in range(3):
        what = f"{names[i]} of {problems.describe(p)}"
        if not p["mask"][i]:
            assert got[i] is None, what
            if p["use_out"]:  # masked off: its buffer is never written
                assert _all_nan(bufs[i]), what
            continue
        if p["use_out"]:
            assert got[i] is outs[i], what
            assert views.outside_view_untouched(kind, out_layouts[i], bufs[i]), what
        else:
            is_torch = isinstance(got[i], torch.Tensor)
            assert is_torch == (kind == "torch"), what
            assert str(got[i].dtype).replace("torch.", "") == p["out_dtypes"][i], what
        oracle.check(views.to_float64(got[i]), ref[i], absref[i], count[i], chains[i], what)


def _all_nan(buf):
    return bool(np.all(np.isnan(views.to_float64(buf).numpy())))


def test_masked_outputs_are_none_and_untouched():
    rng = np.random.default_rng(5)
    go = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    x = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    gb_buf = np.full(4, np.nan, np.float32)
    gi, gw, gb = aclnn_cpu.convolution_backward(go, x, w, output_mask=(False, True, False),
                                                out=(None, None, gb_buf))
    assert gi is None and gb is None and gw.shape == (4, 3, 3, 3)
    assert np.all(np.isnan(gb_buf))


def test_hand_computed_all_ones():
    """The upstream doc example: ones everywhere, so each gradient counts its terms."""
    go = np.ones((1, 2, 3, 3), np.float32)
    x = np.ones((1, 3, 5, 5), np.float32)
    w = np.ones((2, 3, 3, 3), np.float32)
    gi, gw, gb = aclnn_cpu.convolution_backward(go, x, w)
    corner_to_centre = np.array([1, 2, 3, 2, 1], np.float32)
    np.testing.assert_array_equal(gi[0, 0], 2 * np.outer(corner_to_centre, corner_to_centre))
    np.testing.assert_array_equal(gw, np.full((2, 3, 3, 3), 9, np.float32))
    np.testing.assert_array_equal(gb, [9, 9])


def test_cube_math_names_equal_numbers():
    rng = np.random.default_rng(9)
    go = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((2, 2, 3, 3)).astype(np.float32)
    for name, value in aclnn_cpu.CUBE_MATH_TYPES.items():
        by_name = aclnn_cpu.convolution_backward(go, x, w, cube_math_type=name)
        by_value = aclnn_cpu.convolution_backward(go, x, w, cube_math_type=value)
        for a, b in zip(by_name, by_value):
            np.testing.assert_array_equal(a, b)
    # HF32 really changes the result (the operands are rounded), USE_FP16 more so.
    exact = aclnn_cpu.convolution_backward(go, x, w, cube_math_type=0)[0]
    hf32 = aclnn_cpu.convolution_backward(go, x, w, cube_math_type="USE_HF32")[0]
    fp16 = aclnn_cpu.convolution_backward(go, x, w, cube_math_type="USE_FP16")[0]
    assert 0 < np.abs(hf32 - exact).max() < 1e-2
    assert np.abs(fp16 - exact).max() > 0


def test_views_are_not_copied():
    """A strided output view is written in place (the library writes through its strides)."""
    rng = np.random.default_rng(11)
    go = torch.from_numpy(rng.standard_normal((2, 3, 4, 4)).astype(np.float32))
    x = torch.from_numpy(rng.standard_normal((2, 3, 6, 6)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((3, 3, 3, 3)).astype(np.float32))
    big = torch.full((2, 3, 6, 13), float("nan"))
    gi_view = big[:, :, :, 1::2]
    gi, _, _ = aclnn_cpu.convolution_backward(go, x, w, out=(gi_view, None, None),
                                              output_mask=(True, False, False))
    assert gi is gi_view and gi.data_ptr() == big.data_ptr() + 4
    ref = torch.ops.aten.convolution_backward(go, x, w, [3], [1, 1], [0, 0], [1, 1], False,
                                              [0, 0], 1, [True, False, False])[0]
    torch.testing.assert_close(big[:, :, :, 1::2], ref, rtol=1e-5, atol=1e-5)
    assert torch.isnan(big[:, :, :, 0::2]).all()


def test_empty_batch_gives_zero_weight_and_bias_gradients():
    """Spec decision 4: true gradients of an empty reduction are zeros."""
    go = np.ones((0, 2, 3, 3), np.float32)
    x = np.ones((0, 3, 5, 5), np.float32)
    w = np.ones((2, 3, 3, 3), np.float32)
    gw_out, gb_out = np.full((2, 3, 3, 3), np.nan, np.float32), np.full(2, np.nan, np.float32)
    gi, gw, gb = aclnn_cpu.convolution_backward(go, x, w, out=(None, gw_out, gb_out))
    assert gi.shape == (0, 3, 5, 5)
    np.testing.assert_array_equal(gw, np.zeros((2, 3, 3, 3), np.float32))
    np.testing.assert_array_equal(gb, np.zeros(2, np.float32))


def test_operands_are_the_callers_memory():
    """What aclCreateTensor gets: the root buffer, the view's offset and strides."""
    from aclnn_cpu._arrays import operand
    root = np.zeros((4, 6, 8), np.float32)
    view = root[1:, ::2, ::-1]
    op = operand("x", view)
    assert op.base == root.ctypes.data and op.storage_numel == root.size
    assert op.strides == (48, 16, -1) and op.offset == 48 + 7
    assert op.shape == view.shape
    t = torch.zeros(5, 7)[1:, 2:].t()
    op = operand("t", t)
    assert (op.base, op.offset, op.strides, op.storage_numel) == (
        t.storage().data_ptr(), 9, (1, 7), 35)
    cl = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    assert operand("cl", cl).strides == (60, 1, 15, 3)
