#pragma once
// The arguments of aclnnConvTbcGetWorkspaceSize and their phase-1
// validation (convolution-forward.md section 5).

#include <cstdint>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct TbcArgs {
  const aclTensor* self;    // [T, B, C_in]
  const aclTensor* weight;  // [K, C_in, C_out]
  const aclTensor* bias;    // [C_out]
  int64_t pad;
  aclTensor* output;  // [T_out, B, C_out]
  int8_t cubeMathType;
  uint64_t* workspaceSize;
  aclOpExecutor** executor;
};

constexpr const char* kConvTbcForwardPhase1 = "aclnnConvTbcGetWorkspaceSize";
constexpr const char* kConvTbcForwardPhase2 = "aclnnConvTbc";

// Every rule of steps T1-T8 in order (decision 3's null checks last); the
// first failure is returned with a message.
aclnnStatus checkConvTbc(const TbcArgs& args);

}  // namespace ops
}  // namespace aclcpu
