#pragma once
// Which of our kernels a problem runs, asked of the kernel layer directly
// (its algorithm registry, under the same ACLNN_CPU_ISA as the library), with
// the problem translated to the layer's normal-orientation ConvShape as the
// operator layer does it.
//
// `operands` is what the operator layer promises the kernels about the
// operand values (bf16, fp16 or HF32 after cubeMathType rounding), which
// selects the low-precision (AMX) algorithms.

#include <string>

#include "kernels/kernel_types.h"
#include "problem_spec.h"

namespace peers {

struct OurKernels {
  std::string data;     // the pass that computes dX (the forward pass for a transposed problem)
  std::string weight;   // the pass that computes dW
  std::string forward;  // the pass that computes y (backward-data for a transposed problem)
};

OurKernels ourKernels(const ProblemSpec& spec,
                      aclcpu::kernels::OperandValues operands = aclcpu::kernels::OperandValues::F32);

}  // namespace peers
