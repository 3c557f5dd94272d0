#pragma once
// The arguments of aclnnConvolutionBackwardGetWorkspaceSize, gathered so that
// validation and normalisation can pass them around as one value.

#include <cstdint>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct ConvBackwardArgs {
  const aclTensor* gradOutput;
  const aclTensor* input;
  const aclTensor* weight;
  const aclIntArray* biasSizes;
  const aclIntArray* stride;
  const aclIntArray* padding;
  const aclIntArray* dilation;
  bool transposed;
  const aclIntArray* outputPadding;
  int groups;
  const aclBoolArray* outputMask;
  int8_t cubeMathType;
  aclTensor* gradInput;
  aclTensor* gradWeight;
  aclTensor* gradBias;
  uint64_t* workspaceSize;
  aclOpExecutor** executor;
};

constexpr const char* kConvBackwardPhase1 = "aclnnConvolutionBackwardGetWorkspaceSize";
constexpr const char* kConvBackwardPhase2 = "aclnnConvolutionBackward";

// Every rule of convolution-backward.md section 3 (and the project
// decisions), in the spec's order; the first failure is returned with a
// message. Sets *emptyPath when the problem takes the empty-tensor path.
aclnnStatus checkConvBackward(const ConvBackwardArgs& args, bool* emptyPath);

}  // namespace ops
}  // namespace aclcpu
