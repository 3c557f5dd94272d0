#!/usr/bin/env python3
"""The emulated NPU result of a convolution backward with cube_math_type=1, against float64.

On an Atlas A2/A3 NPU, cubeMathType 1 (ALLOW_FP32_DOWN_PRECISION) makes the cube unit
round fp32 operands to HF32 (11 explicit mantissa bits) before it multiplies; products
still accumulate in fp32. This script computes the gradients of a 3x3 convolution
(a ResNet-style layer, fp32) through aclnn_cpu with cube_math_type 0 and 1, and
compares each with PyTorch's float64 gradients:

  * cube_math_type=0 is at the fp32 level (relative errors around 1e-7..1e-6);
  * cube_math_type=1 is at the HF32 level (around 1e-4..1e-3): what an NPU gives;
  * float64 PyTorch on the HF32-rounded operands agrees with cube_math_type=1 at the
    fp32 level again: the difference really is the operand rounding, nothing else.

Run (from a build tree):   ACLNN_CPU_LIB_DIR=build PYTHONPATH=python \\
                               /usr/bin/python3 python/examples/hf32_conv_backward.py
or, installed:             PYTHONPATH=<prefix>/lib/python3/dist-packages \\
                               /usr/bin/python3 hf32_conv_backward.py
"""

import numpy as np
import torch

import aclnn_cpu


def hf32(a):
    """fp32 -> HF32 as the NPU rounds operands: keep 11 mantissa bits, ties away from zero."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((bits + np.uint32(0x800)) & np.uint32(0xFFFFF000)).view(np.float32)


def torch_float64_backward(grad_output, x, w, stride, padding):
    t = [torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in (grad_output, x, w)]
    return torch.ops.aten.convolution_backward(
        t[0], t[1], t[2], [w.shape[0]], [stride] * 2, [padding] * 2, [1, 1], False, [0, 0], 1,
        [True, True, True])


def main():
    rng = np.random.default_rng(7)
    n, c_in, c_out, size, stride, padding = 4, 32, 32, 14, 1, 1
    x = rng.standard_normal((n, c_in, size, size), dtype=np.float32)
    w = rng.standard_normal((c_out, c_in, 3, 3), dtype=np.float32) * np.float32(0.1)
    grad_output = rng.standard_normal((n, c_out, size, size), dtype=np.float32)

    golden = [g.numpy() for g in torch_float64_backward(grad_output, x, w, stride, padding)]
    # The NPU's operands: HF32-rounded. (gradBias is summed from the original
    # grad_output, so its golden stays the plain one.)
    rounded = torch_float64_backward(hf32(grad_output), hf32(x), hf32(w), stride, padding)
    golden_hf32 = [rounded[0].numpy(), rounded[1].numpy(), golden[2]]
    cube0 = aclnn_cpu.convolution_backward(grad_output, x, w, stride=stride, padding=padding,
                                           cube_math_type=0)
    cube1 = aclnn_cpu.convolution_backward(grad_output, x, w, stride=stride, padding=padding,
                                           cube_math_type="ALLOW_FP32_DOWN_PRECISION")

    print(f"library: {aclnn_cpu.library_path()}")
    print(f"conv 3x3 pad 1, input {x.shape}, weight {w.shape}, fp32")
    print("error level = ||result - golden|| / ||golden||")
    print(f"{'':12s}{'cube 0 vs fp64':>16s}{'cube 1 vs fp64':>16s}"
          f"{'cube 1 vs fp64(HF32 operands)':>31s}")
    for i, name in enumerate(("grad_input", "grad_weight", "grad_bias")):
        levels = [aclnn_cpu.compare(cube0[i], golden[i]).norm_rel_error,
                  aclnn_cpu.compare(cube1[i], golden[i]).norm_rel_error,
                  aclnn_cpu.compare(cube1[i], golden_hf32[i]).norm_rel_error]
        print(f"{name:12s}{levels[0]:16.2e}{levels[1]:16.2e}{levels[2]:31.2e}")
    print("\naclnn_cpu.compare(grad_input with cube 1, float64 golden, dtype='hf32'):")
    print(aclnn_cpu.compare(cube1[0], golden[0], dtype="hf32"))
    print("aclnn_cpu.compare(grad_input with cube 1, float64 golden on HF32 operands):")
    print(aclnn_cpu.compare(cube1[0], golden_hf32[0], dtype="float32"))


if __name__ == "__main__":
    main()
