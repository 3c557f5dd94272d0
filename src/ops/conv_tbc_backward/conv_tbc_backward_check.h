#pragma once
// Arguments and phase-1 validation of aclnnConvTbcBackward
// (conv-tbc-backward.md section 3, in order; first failure wins).

#include <cstdint>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct ConvTbcBackwardArgs {
  const aclTensor* self;    // gradient of the output, [T_out, B, C_out]
  const aclTensor* input;   // [T, B, C_in]
  const aclTensor* weight;  // [K, C_in, C_out]
  const aclTensor* bias;    // [C_out]; only its size matters
  int64_t pad;
  int8_t cubeMathType;
  aclTensor* gradInput;
  aclTensor* gradWeight;
  aclTensor* gradBias;
  uint64_t* workspaceSize;
  aclOpExecutor** executor;
};

constexpr const char* kConvTbcPhase1 = "aclnnConvTbcBackwardGetWorkspaceSize";
constexpr const char* kConvTbcPhase2 = "aclnnConvTbcBackward";

aclnnStatus checkConvTbcBackward(const ConvTbcBackwardArgs& args);

}  // namespace ops
}  // namespace aclcpu
