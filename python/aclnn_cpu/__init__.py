"""aclnn_cpu: Huawei CANN's aclnn convolution operators, with NPU numerics, on the CPU.

A thin ctypes layer over the public C API of aclnn-cpu's libascendcl.so. Call the
operators on numpy arrays or torch CPU tensors, with any cubeMathType, and compare
results with NPU dumps or float64 goldens.

Operators (keyword names as in torch.ops.aten):
    convolution_backward(grad_output, input, weight, bias_sizes=None, stride=1,
        padding=0, dilation=1, transposed=False, output_padding=0, groups=1,
        output_mask=(True, True, True), cube_math_type=0, out=None)
        -> (grad_input, grad_weight, grad_bias)
    conv_tbc_backward(self_grad, input, weight, bias, pad, cube_math_type=0, out=None)
        -> (grad_input, grad_weight, grad_bias)
    convolution(input, weight, bias, stride, padding, dilation, transposed,
        output_padding, groups, cube_math_type=0, out=None)
    conv_tbc(self, weight, bias, pad, cube_math_type=0, out=None)
    conv_depthwise2d(self, weight, kernel_size, bias=None, stride=1, padding=0,
        dilation=1, cube_math_type=0, out=None)
    The forward three need a library that exports them (has_operator tells);
    otherwise they raise OperatorUnavailableError, a NotImplementedError.

cube_math_type: 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION (fp32 operands rounded to
HF32), 2 USE_FP16 (operands rounded to fp16), 3 USE_HF32; names are accepted too.
Products accumulate in fp32, as on the NPU's cube unit.

Inputs: numpy float32/float16 arrays and torch float32/float16/bfloat16 CPU tensors
with any strides (views are passed in place, never copied). Errors: AclnnError (a
RuntimeError with .status and the library's message), TypeError for wrong Python
types or dtypes (raised before any C call).

Golden checks: compare(actual, golden, dtype=None) and the command
    python3 -m aclnn_cpu compare ACTUAL.npy GOLDEN.npy

PyTorch layers that train through the library: aclnn_cpu.torch (Conv1d, Conv2d,
Conv3d, convert).

The library is found in ACLNN_CPU_LIB_DIR when set, else beside the installed
package (<prefix>/lib64), else through the dynamic loader. It is loaded and
initialised on first use; each Python thread gets its own stream.
"""

from ._abi import CUBE_MATH_TYPES as _CUBE_MATH_TYPES
from ._errors import AclnnError, LibraryNotFoundError, OperatorUnavailableError
from ._ops import (conv_depthwise2d, conv_tbc, conv_tbc_backward, convolution,
                   convolution_backward)
from ._runtime import has_operator, library_path
from .compare import DEFAULT_TOLERANCES, CompareResult, compare

__version__ = "0.1.0"

CUBE_MATH_TYPES = dict(_CUBE_MATH_TYPES)  # name -> value

__all__ = [
    "AclnnError", "LibraryNotFoundError", "OperatorUnavailableError", "CompareResult",
    "CUBE_MATH_TYPES", "DEFAULT_TOLERANCES", "compare", "conv_depthwise2d", "conv_tbc",
    "conv_tbc_backward", "convolution", "convolution_backward", "has_operator", "library_path",
]
