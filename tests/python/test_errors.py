"""Errors: library statuses as AclnnError, wrong Python types and dtypes as TypeError."""

import numpy as np
import pytest

import aclnn_cpu


def _problem():
    go = np.ones((1, 2, 3, 3), np.float32)
    x = np.ones((1, 3, 5, 5), np.float32)
    w = np.ones((2, 3, 3, 3), np.float32)
    return go, x, w


def test_wrong_shape_is_161002_naming_the_argument():
    go, x, w = _problem()
    bad_go = np.ones((1, 2, 4, 3), np.float32)  # spatial size inconsistent with input/weight
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution_backward(bad_go, x, w)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert err.status == 161002 and err.api == "aclnnConvolutionBackwardGetWorkspaceSize"
    assert "gradOutput" in err.message and "gradOutput" in str(err) and "161002" in str(err)


def test_wrong_output_shape_names_the_output():
    go, x, w = _problem()
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution_backward(go, x, w, out=(np.empty((1, 3, 5, 4), np.float32), None,
                                                      None))
    assert info.value.status == 161002 and "gradInput" in info.value.message


def test_wrong_array_length_and_bad_values():
    go, x, w = _problem()
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution_backward(go, x, w, stride=[1, 1, 1])
    assert info.value.status == 161002 and "stride" in info.value.message
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution_backward(go, x, w, cube_math_type=7)
    assert info.value.status == 161002 and "cubeMathType" in info.value.message
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.convolution_backward(go, x, w, groups=0)
    assert info.value.status == 161002 and "groups" in info.value.message


def test_tbc_wrong_shape():
    s, x, w, b = (np.ones(sh, np.float32) for sh in ([5, 1, 2], [5, 1, 2], [1, 2, 2], [3]))
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.conv_tbc_backward(s, x, w, b, 0)
    assert info.value.status == 161002 and "bias" in info.value.message


def test_null_where_required_is_161001_naming_it():
    """None for a required array reaches the library as a null pointer."""
    go, x, w = _problem()
    for args, name in (((None, x, w), "gradOutput"), ((go, None, w), "input"),
                       ((go, x, None), "weight")):
        with pytest.raises(aclnn_cpu.AclnnError) as info:
            aclnn_cpu.convolution_backward(*args)
        assert info.value.status == 161001 and name in info.value.message
    tbc = [np.ones(s, np.float32) for s in ([5, 1, 2], [5, 1, 2], [1, 2, 2])]
    with pytest.raises(aclnn_cpu.AclnnError) as info:
        aclnn_cpu.conv_tbc_backward(*tbc, None, 0)
    assert info.value.status == 161001 and "bias" in info.value.message


def test_wrong_python_types():
    go, x, w = _problem()
    with pytest.raises(TypeError, match="grad_output"):
        aclnn_cpu.convolution_backward(go.tolist(), x, w)
    with pytest.raises(TypeError, match="weight: expected a numpy.ndarray or a torch.Tensor"):
        aclnn_cpu.convolution_backward(go, x, 1.0)
    with pytest.raises(TypeError, match="stride"):
        aclnn_cpu.convolution_backward(go, x, w, stride=1.0)
    with pytest.raises(TypeError, match="padding"):
        aclnn_cpu.convolution_backward(go, x, w, padding="same")
    with pytest.raises(TypeError, match="groups"):
        aclnn_cpu.convolution_backward(go, x, w, groups=True)
    with pytest.raises(TypeError, match="output_mask"):
        aclnn_cpu.convolution_backward(go, x, w, output_mask=(True, False))
    with pytest.raises(TypeError, match="transposed"):
        aclnn_cpu.convolution_backward(go, x, w, transposed=1)
    with pytest.raises(TypeError, match="cube_math_type"):
        aclnn_cpu.convolution_backward(go, x, w, cube_math_type=1.5)
    with pytest.raises(ValueError, match="USE_FP8"):
        aclnn_cpu.convolution_backward(go, x, w, cube_math_type="USE_FP8")
    with pytest.raises(TypeError, match="out"):
        aclnn_cpu.convolution_backward(go, x, w, out=(None, None))


def test_unsupported_dtypes_raise_type_error_first():
    go, x, w = _problem()
    for dtype in (np.float64, np.int32, np.complex64):
        with pytest.raises(TypeError, match="input: unsupported dtype"):
            aclnn_cpu.convolution_backward(go, x.astype(dtype), w)
    with pytest.raises(TypeError, match="native byte order"):
        aclnn_cpu.convolution_backward(go, x.astype(">f4"), w)
    with pytest.raises(TypeError, match="grad_bias: unsupported dtype"):
        aclnn_cpu.convolution_backward(go, x, w, out=(None, None, np.empty(2, np.float64)))


def test_unusable_outputs():
    go, x, w = _problem()
    ro = np.empty((1, 3, 5, 5), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        aclnn_cpu.convolution_backward(go, x, w, out=(ro, None, None))
    overlapping = np.lib.stride_tricks.as_strided(np.empty(2, np.float32), (2,), (0,))
    with pytest.raises(ValueError, match="zero stride"):
        aclnn_cpu.convolution_backward(go, x, w, out=(None, None, overlapping))


def test_torch_errors():
    torch = pytest.importorskip("torch", reason="needs PyTorch")
    go, x, w = (torch.from_numpy(a) for a in _problem())
    with pytest.raises(TypeError, match="unsupported dtype torch.float64"):
        aclnn_cpu.convolution_backward(go, x.double(), w)
    with pytest.raises(TypeError, match="layout"):
        aclnn_cpu.convolution_backward(go, x.to_sparse(), w)
    # numpy input -> numpy outputs, but numpy has no bfloat16 for grad_weight.
    with pytest.raises(TypeError, match="bfloat16"):
        aclnn_cpu.convolution_backward(go.numpy(), x.numpy(), w.to(torch.bfloat16))
