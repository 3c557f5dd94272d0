#pragma once
// Normalising a validated aclnnConvolutionBackward call: 1D/2D lifted to 3D,
// a transposed convolution rewritten in normal orientation, 4-value padding
// split into before/after, dtypes resolved.

#include "ops/common/conv_problem.h"
#include "ops/conv_backward/conv_backward_args.h"

namespace aclcpu {
namespace ops {

// Binding order of the executor built for aclnnConvolutionBackward.
enum ConvBackwardInput { kGradOutput = 0, kInput = 1, kWeight = 2 };
enum ConvBackwardOutput { kGradInput = 0, kGradWeight = 1, kGradBias = 2 };

ConvBackwardProblem normaliseConvBackward(const ConvBackwardArgs& args, bool emptyPath);

}  // namespace ops
}  // namespace aclcpu
