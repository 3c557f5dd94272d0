"""aclnn_cpu.torch: layers whose backward runs aclnnConvolutionBackward."""

import copy

import pytest

torch = pytest.importorskip("torch", reason="aclnn_cpu.torch needs PyTorch")

import aclnn_cpu  # noqa: E402
import aclnn_cpu.torch as act  # noqa: E402

CASES = [
    (act.Conv2d, torch.nn.Conv2d, dict(in_channels=4, out_channels=6, kernel_size=3, padding=1),
     (2, 4, 9, 9)),
    (act.Conv2d, torch.nn.Conv2d, dict(in_channels=4, out_channels=6, kernel_size=(3, 2),
                                       stride=2, dilation=(1, 2), groups=2, bias=False),
     (2, 4, 11, 10)),
    (act.Conv2d, torch.nn.Conv2d, dict(in_channels=3, out_channels=3, kernel_size=4,
                                       padding="same", groups=3), (1, 3, 8, 7)),
    (act.Conv2d, torch.nn.Conv2d, dict(in_channels=2, out_channels=4, kernel_size=3, padding=2,
                                       padding_mode="reflect"), (2, 2, 6, 6)),
    (act.Conv1d, torch.nn.Conv1d, dict(in_channels=3, out_channels=5, kernel_size=5, stride=2,
                                       padding=2), (3, 3, 20)),
    (act.Conv3d, torch.nn.Conv3d, dict(in_channels=2, out_channels=3, kernel_size=3, padding=1),
     (1, 2, 5, 6, 4)),
]


def _grads(layer, x, seed):
    """Gradients of a fixed random projection of the layer's output."""
    x = x.clone().requires_grad_()
    y = layer(x)
    proj = torch.randn(y.shape, generator=torch.Generator().manual_seed(seed)).to(y.dtype)
    (y * proj).sum().backward()
    return [x.grad] + [p.grad for p in layer.parameters()]


@pytest.mark.filterwarnings("ignore:Using padding='same'")  # PyTorch's own, for case 2
@pytest.mark.parametrize("case", range(len(CASES)))
def test_gradients_match_pytorch(case):
    ours_cls, torch_cls, kwargs, shape = CASES[case]
    torch.manual_seed(case)
    ref_layer = torch_cls(**kwargs)
    layer = ours_cls(**kwargs)
    layer.load_state_dict(ref_layer.state_dict())
    x = torch.randn(shape)
    fp64 = _grads(copy.deepcopy(ref_layer).double(), x.double(), case)
    ours = _grads(layer, x, case)
    fp32 = _grads(ref_layer, x, case)
    for got, want32, want64 in zip(ours, fp32, fp64):
        # The gradients are sums of a few hundred fp32 products: both PyTorch's fp32
        # and ours are within 1e-5 of the float64 result, relative to its scale.
        scale = float(want64.abs().max())
        assert float((got.double() - want64).abs().max()) <= 1e-5 * scale
        assert float((want32.double() - want64).abs().max()) <= 1e-5 * scale


def test_forward_is_library_or_pytorch():
    torch.manual_seed(0)
    layer = act.Conv2d(3, 4, 3, padding=1)
    x = torch.randn(2, 3, 6, 6)
    y = layer(x)
    if act.forward_uses_library():
        want = aclnn_cpu.convolution(x, layer.weight.detach(), layer.bias.detach(), 1, 1, 1)
    else:
        want = torch.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1)
    assert torch.equal(y, want)


def _tiny_cnn():
    torch.manual_seed(1234)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(4, 8, 3, stride=2), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(8 * 3 * 3, 3))


def _train(model, steps=6):
    gen = torch.Generator().manual_seed(99)
    data = torch.randn(16, 1, 8, 8, generator=gen)
    target = torch.randint(0, 3, (16,), generator=gen)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(data), target)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    return losses


def test_training_loop_matches_pytorch():
    reference = _train(_tiny_cnn())
    ours = _train(act.convert(_tiny_cnn(), cube_math_type=0))
    assert reference[-1] < reference[0]  # it does learn
    for a, b in zip(ours, reference):
        assert a == pytest.approx(b, rel=1e-5)
    hf32 = _train(act.convert(_tiny_cnn(), cube_math_type="ALLOW_FP32_DOWN_PRECISION"))
    assert hf32 != ours  # HF32 operands change the gradients...
    for a, b in zip(hf32, reference):  # ...at the HF32 level only
        assert a == pytest.approx(b, rel=1e-2)


def test_convert_keeps_weights_and_leaves_others():
    model = torch.nn.Sequential(torch.nn.Conv1d(2, 3, 3), torch.nn.Sequential(
        torch.nn.Conv3d(3, 3, 1), torch.nn.ConvTranspose2d(3, 3, 2)), torch.nn.Linear(4, 4))
    weights = [model[0].weight, model[1][0].weight, model[1][0].bias]
    converted = act.convert(model, cube_math_type=3)
    assert converted is model
    assert type(model[0]) is act.Conv1d and type(model[1][0]) is act.Conv3d
    assert type(model[1][1]) is torch.nn.ConvTranspose2d and type(model[2]) is torch.nn.Linear
    assert model[0].weight is weights[0] and model[1][0].weight is weights[1]
    assert model[1][0].bias is weights[2] and model[0].cube_math_type == 3
    assert list(dict(model.named_parameters())) == [
        "0.weight", "0.bias", "1.0.weight", "1.0.bias", "1.1.weight", "1.1.bias", "2.weight",
        "2.bias"]
    single = torch.nn.Conv2d(1, 1, 1)
    assert type(act.convert(single)) is act.Conv2d
    assert "cube_math_type=0" in repr(act.convert(single))


def test_no_grad_needed_means_no_call():
    layer = act.Conv2d(2, 2, 3)
    for p in layer.parameters():
        p.requires_grad_(False)
    x = torch.randn(1, 2, 5, 5, requires_grad=True)
    layer(x).sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_layer_gradients(dtype):
    """A bf16/fp16 layer: gradients at the level of the dtype's rounding of the results."""
    dt = getattr(torch, dtype)
    torch.manual_seed(3)
    layer = act.Conv2d(3, 4, 3, padding=1).to(dt)
    x = torch.randn(2, 3, 6, 6).to(dt)
    if not act.forward_uses_library():
        try:  # PyTorch's CPU forward for this dtype is what the layer falls back to
            torch.nn.functional.conv2d(x, layer.weight, layer.bias, padding=1)
        except RuntimeError as exc:
            pytest.skip(f"PyTorch has no CPU {dtype} convolution for the forward: {exc}")
    ours = _grads(layer, x, 3)
    ref = torch.nn.Conv2d(3, 4, 3, padding=1).double()
    ref.load_state_dict({k: v.double() for k, v in layer.state_dict().items()})
    want = _grads(ref, x.double(), 3)
    for got, w64 in zip(ours, want):
        assert got.dtype == dt
        scale = float(w64.abs().max())
        assert float((got.double() - w64).abs().max()) <= 2.0**-7 * scale


def test_grad_output_with_zero_strides():
    """sum().backward() hands the layer an expanded (zero-stride) gradient: used in place."""
    torch.manual_seed(5)
    layer = act.Conv2d(2, 3, 3)
    ref = torch.nn.Conv2d(2, 3, 3)
    ref.load_state_dict(layer.state_dict())
    x = torch.randn(2, 2, 6, 6)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    layer(xa).sum().backward()
    ref(xb).sum().backward()
    torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(layer.weight.grad, ref.weight.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(layer.bias.grad, ref.bias.grad, rtol=1e-5, atol=1e-5)
