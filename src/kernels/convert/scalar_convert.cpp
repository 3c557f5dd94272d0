#include "kernels/convert/convert.h"
#include "kernels/convert/scalar_convert_inl.h"

namespace aclcpu {
namespace kernels {

float halfToFloat(uint16_t bits) { return detail::halfToFloatInline(bits); }
uint16_t floatToHalf(float value) { return detail::floatToHalfInline(value); }
float bf16ToFloat(uint16_t bits) { return detail::bf16ToFloatInline(bits); }
uint16_t floatToBf16(float value) { return detail::floatToBf16Inline(value); }

float roundFloat(float value, Rounding rounding) {
  switch (rounding) {
    case Rounding::None:
      return value;
    case Rounding::HF32:
      return detail::applyRounding<Rounding::HF32>(value);
    case Rounding::F16:
      return detail::applyRounding<Rounding::F16>(value);
    case Rounding::BF16:
      return detail::applyRounding<Rounding::BF16>(value);
  }
  return value;
}

}  // namespace kernels
}  // namespace aclcpu
