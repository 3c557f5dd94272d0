"""PyTorch layers whose convolutions run through aclnn-cpu (needs torch).

    import aclnn_cpu.torch as act
    layer = act.Conv2d(3, 16, 3, padding=1, cube_math_type="ALLOW_FP32_DOWN_PRECISION")
    model = act.convert(model, cube_math_type=1)   # swaps every nn.Conv1d/2d/3d

The backward pass always runs aclnnConvolutionBackward (NPU numerics for the
chosen cube_math_type). The forward pass runs aclnnConvolution when the loaded
library exports it, and PyTorch's own convolution otherwise
(`forward_uses_library()` says which). Layers take the constructor arguments of
torch.nn.Conv1d/2d/3d plus `cube_math_type`; padding modes other than "zeros" and
string paddings ("same", "valid") are applied with torch.nn.functional.pad first.
Parameters must be float32, float16 or bfloat16 (the library's dtypes).
"""

import torch
import torch.nn.functional as F
from torch import nn

from . import _ops, _params
from ._runtime import has_operator


def forward_uses_library():
    """True when the forward pass of the layers runs aclnnConvolution (else PyTorch's)."""
    return has_operator("aclnnConvolution")


class _Convolution(torch.autograd.Function):
    """Convolution whose gradients come from aclnnConvolutionBackward."""

    @staticmethod
    def forward(ctx, input, weight, bias, stride, padding, dilation, groups, cube_math_type):
        ctx.save_for_backward(input, weight)
        ctx.config = (stride, padding, dilation, groups, cube_math_type, bias is not None)
        if forward_uses_library():
            return _ops.convolution(input, weight, bias, stride, padding, dilation, False, 0,
                                    groups, cube_math_type)
        return torch.ops.aten.convolution(input, weight, bias, stride, padding, dilation, False,
                                          [0] * len(stride), groups)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        stride, padding, dilation, groups, cube, has_bias = ctx.config
        mask = (ctx.needs_input_grad[0], ctx.needs_input_grad[1],
                has_bias and ctx.needs_input_grad[2])
        grads = (None, None, None)
        if any(mask):
            grads = _ops.convolution_backward(
                grad_output, input, weight, bias_sizes=[weight.shape[0]], stride=stride,
                padding=padding, dilation=dilation, groups=groups, output_mask=mask,
                cube_math_type=cube)
        return grads + (None,) * 5


def conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, cube_math_type=0):
    """Functional form: a 1D/2D/3D convolution (symmetric padding) that autograd
    differentiates through aclnnConvolutionBackward."""
    dims = input.dim() - 2
    return _Convolution.apply(input, weight, bias, _params.int_list("stride", stride, dims),
                              _params.int_list("padding", padding, dims),
                              _params.int_list("dilation", dilation, dims),
                              _params.int_value("groups", groups),
                              _params.cube_math_type(cube_math_type))


class _LibraryConv:
    """Mixin: nn.ConvNd with the convolution routed through the library."""

    def __init__(self, *args, cube_math_type=0, **kwargs):
        super().__init__(*args, **kwargs)
        self.cube_math_type = _params.cube_math_type(cube_math_type)

    def forward(self, input):
        padding = self.padding
        if isinstance(padding, str) or self.padding_mode != "zeros":
            # As nn.ConvNd does for these modes: pad explicitly (possibly
            # asymmetrically), then convolve without padding.
            mode = "constant" if self.padding_mode == "zeros" else self.padding_mode
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=mode)
            padding = 0
        return conv(input, self.weight, self.bias, self.stride, padding, self.dilation,
                    self.groups, self.cube_math_type)

    def extra_repr(self):
        return super().extra_repr() + f", cube_math_type={self.cube_math_type}"


class Conv1d(_LibraryConv, nn.Conv1d):
    """torch.nn.Conv1d whose convolution runs through aclnn-cpu (see the module doc)."""


class Conv2d(_LibraryConv, nn.Conv2d):
    """torch.nn.Conv2d whose convolution runs through aclnn-cpu (see the module doc)."""


class Conv3d(_LibraryConv, nn.Conv3d):
    """torch.nn.Conv3d whose convolution runs through aclnn-cpu (see the module doc)."""


_REPLACEMENTS = {nn.Conv1d: Conv1d, nn.Conv2d: Conv2d, nn.Conv3d: Conv3d}


def _swap(old, cube_math_type):
    new = _REPLACEMENTS[type(old)].__new__(_REPLACEMENTS[type(old)])
    # The same attributes, hooks and Parameter objects (so an optimizer built on
    # the old model keeps updating the weights the new layer uses).
    new.__dict__.update(old.__dict__)
    for table in ("_parameters", "_buffers", "_modules"):
        setattr(new, table, type(getattr(old, table))(getattr(old, table)))
    new.cube_math_type = cube_math_type
    return new


def convert(model, cube_math_type=0):
    """Replaces every torch.nn.Conv1d/Conv2d/Conv3d in `model` (in place, recursively) by
    this module's layer with the same weights and settings, and returns the model (or the
    replacement, when `model` itself is such a convolution). Subclasses of nn.ConvNd and
    transposed convolutions are left alone."""
    cube = _params.cube_math_type(cube_math_type)
    if type(model) in _REPLACEMENTS:
        return _swap(model, cube)
    for name, child in model.named_children():
        replacement = convert(child, cube)
        if replacement is not child:
            setattr(model, name, replacement)
    return model
