#pragma once
// The kernel-layer algorithm each pass of a problem runs (what oneDNN's
// verbose mode prints). Computed by the kernel layer's own selection for the
// problem's normalised shape on this CPU and ACLNN_CPU_ISA: the same pure
// function of (shape, ISA) that the library evaluates in phase 2.

#include <string>
#include <vector>

#include "problem_spec.h"
#include "run_types.h"

// The operand values the kernels get (ConvShape::operands) follow from the
// dtype and cubeMathType of `options`, as the operators derive them.

// One entry per pass the mask requests ("dX", "dW"; gradBias is a channel sum).
std::vector<PassAlgorithm> kernelAlgorithms(const ProblemSpec& spec, const bool mask[3],
                                            const RunOptions& options);

// The forward operators' one pass ("y"): the forward pass of the normal
// convolution, or for a transposed one its backward-data pass (y of a
// transposed convolution is dX of the normal one).
std::vector<PassAlgorithm> forwardAlgorithms(const ProblemSpec& spec, const RunOptions& options);
