#pragma once
// The arguments of aclnnConvDepthwise2dGetWorkspaceSize and their phase-1
// validation (convolution-forward.md section 4).

#include <cstdint>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct DepthwiseArgs {
  const aclTensor* self;
  const aclTensor* weight;
  const aclIntArray* kernelSize;
  const aclTensor* bias;
  const aclIntArray* stride;
  const aclIntArray* padding;
  const aclIntArray* dilation;
  aclTensor* out;
  int8_t cubeMathType;
  uint64_t* workspaceSize;
  aclOpExecutor** executor;
};

constexpr const char* kDepthwisePhase1 = "aclnnConvDepthwise2dGetWorkspaceSize";
constexpr const char* kDepthwisePhase2 = "aclnnConvDepthwise2d";

// Every rule of steps D1-D8 in order; the first failure is returned with a message.
aclnnStatus checkConvDepthwise2d(const DepthwiseArgs& args);

}  // namespace ops
}  // namespace aclcpu
