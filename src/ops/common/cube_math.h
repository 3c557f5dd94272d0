#pragma once
// cubeMathType: which operand dtype the NPU's cube unit computes in
// (convolution-backward.md section 6.2 and project decision 7).

#include <cstdint>

#include "aclnn/acl_meta.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace ops {

// PromoteType for the three convolution dtypes: equal stays, any mix is fp32.
aclDataType promoteConvTypes(aclDataType a, aclDataType b, aclDataType c);

struct OperandNumerics {
  kernels::Rounding operand;   // applied to every gathered operand
  kernels::Rounding dataGrad;  // gradInput result rounded to the operand dtype
};

// 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION (fp32 -> HF32), 2 USE_FP16 (every
// dtype -> fp16), 3 USE_HF32 (fp32 -> HF32).
OperandNumerics operandNumerics(aclDataType promoted, int8_t cubeMathType);

}  // namespace ops
}  // namespace aclcpu
