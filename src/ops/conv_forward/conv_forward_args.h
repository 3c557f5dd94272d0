#pragma once
// The arguments of aclnnConvolutionGetWorkspaceSize, gathered so that
// validation and normalisation can pass them around as one value.

#include <cstdint>
#include <vector>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct ConvForwardArgs {
  const aclTensor* input;
  const aclTensor* weight;
  const aclTensor* bias;  // may be null
  const aclIntArray* stride;
  const aclIntArray* padding;
  const aclIntArray* dilation;
  bool transposed;
  const aclIntArray* outputPadding;  // read only when transposed
  int64_t groups;
  aclTensor* output;
  int8_t cubeMathType;
  uint64_t* workspaceSize;
  aclOpExecutor** executor;
};

constexpr const char* kConvForwardPhase1 = "aclnnConvolutionGetWorkspaceSize";
constexpr const char* kConvForwardPhase2 = "aclnnConvolution";

// Every rule of convolution-forward.md section 3 (with the project
// decisions), in the spec's order; the first failure is returned with a
// message.
aclnnStatus checkConvForward(const ConvForwardArgs& args);

// A tensor's dims in [N, C, spatial...] order, read by its format letters
// (an NDHWC tensor is [N, D, H, W, C]). Only for tensors whose format
// passed section 3 step 4.
std::vector<int64_t> logicalDims(const aclTensor* t);

// The tensor dim that holds logical dim i (the inverse of logicalDims).
int physicalAxis(const aclTensor* t, int logical);

}  // namespace ops
}  // namespace aclcpu
