#include "ops/common/cube_math.h"

#include "ops/common/tensor_views.h"

namespace aclcpu {
namespace ops {

aclDataType promoteConvTypes(aclDataType a, aclDataType b, aclDataType c) {
  const aclDataType ab = a == b ? a : ACL_FLOAT;
  return ab == c ? ab : ACL_FLOAT;
}

OperandNumerics operandNumerics(aclDataType promoted, int8_t cubeMathType) {
  using kernels::Rounding;
  if (cubeMathType == 2) return {Rounding::F16, Rounding::F16};
  if (promoted == ACL_FLOAT) {
    const bool hf32 = cubeMathType == 1 || cubeMathType == 3;
    return {hf32 ? Rounding::HF32 : Rounding::None, Rounding::None};
  }
  const Rounding r = roundingTo(promoted);
  return {r, r};
}

}  // namespace ops
}  // namespace aclcpu
