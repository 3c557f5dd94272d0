#pragma once
// Which of our kernels a problem runs, asked of the kernel layer directly
// (its algorithm registry, under the same ACLNN_CPU_ISA as the library), with
// the problem translated to the layer's normal-orientation ConvShape as the
// operator layer does it.
//
// The registry takes no element type: these are the algorithms of the fp32
// operands every precision is converted and rounded into today. When the
// kernel layer gains typed selection (bf16 / AMX paths), ask it here.

#include <string>

#include "problem_spec.h"

namespace peers {

struct OurKernels {
  std::string data;     // the pass that computes dX (the forward pass for a transposed problem)
  std::string weight;   // the pass that computes dW
  std::string forward;  // the pass that computes y (backward-data for a transposed problem)
};

OurKernels ourKernels(const ProblemSpec& spec);

}  // namespace peers
