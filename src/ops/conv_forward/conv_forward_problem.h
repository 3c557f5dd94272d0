#pragma once
// Normalising a validated aclnnConvolution call into the engine's forward
// job: 1D/2D lifted to 3D, a transposed convolution written as the data
// gradient of the normal one, padding split into before/after, NDHWC dims
// read by their letters, dtypes resolved per project decision 8.

#include "ops/common/conv_forward_problem.h"
#include "ops/conv_forward/conv_forward_args.h"

namespace aclcpu {
namespace ops {

// Binding order of the forward executors (aclnnConvolution,
// aclnnConvDepthwise2d and aclnnConvTbc).
enum ConvForwardInput { kForwardInput = 0, kForwardWeight = 1, kForwardBias = 2 };
enum ConvForwardOutput { kForwardOutput = 0 };

// Numerics of decision 8 for operands of dtypes `input` and `weight`.
void resolveForwardNumerics(aclDataType input, aclDataType weight, int8_t cubeMathType,
                            ConvForwardProblem* problem);

ConvForwardProblem normaliseConvForward(const ConvForwardArgs& args);

}  // namespace ops
}  // namespace aclcpu
