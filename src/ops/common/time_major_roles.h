#pragma once
// The roles that let the engine run conv_tbc (forward and backward) on the
// caller's time-major tensors without moving data: [T, B, C] is read as
// [B, C, T] and the kernel-major weight [K, C_in, C_out] as [C_out, C_in, K].

#include "ops/common/conv_problem.h"
#include "ops/common/tensor_views.h"

namespace aclcpu {
namespace ops {

inline TensorRole timeMajorRole(bool isOutput, int index) {
  TensorRole role = identityRole(isOutput, index, 3);
  role.axes[0] = 1;  // batch
  role.axes[1] = 2;  // channels
  role.axes[2] = 0;  // time
  return role;
}

inline TensorRole kernelMajorWeightRole(bool isOutput, int index) {
  TensorRole role = identityRole(isOutput, index, 3);
  role.axes[0] = 2;  // C_out
  role.axes[1] = 1;  // C_in
  role.axes[2] = 0;  // K
  return role;
}

}  // namespace ops
}  // namespace aclcpu
