#pragma once
// Which of our kernels a problem runs, asked of the kernel layer directly
// (its algorithm registry, under the same ACLNN_CPU_ISA as the library), with
// the problem translated to the layer's normal-orientation ConvShape as the
// operator layer does it.

#include <string>

#include "problem_spec.h"

namespace peers {

struct OurKernels {
  std::string data;    // the pass that computes dX (the forward pass for a transposed problem)
  std::string weight;  // the pass that computes dW
};

OurKernels ourKernels(const ProblemSpec& spec);

}  // namespace peers
