#include "kernels/convert/convert.h"
#include "kernels/convert/scalar_convert_inl.h"

#include <cmath>
#include <cstring>

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

float narrowRoundToOdd(double value) {
  float narrowed = static_cast<float>(value);
  if (!std::isfinite(narrowed) || static_cast<double>(narrowed) == value) return narrowed;
  // Inexact: take the neighbour toward zero and set the sticky last bit.
  if (std::fabs(static_cast<double>(narrowed)) > std::fabs(value))
    narrowed = std::nextafter(narrowed, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &narrowed, sizeof(bits));
  bits |= 1u;
  std::memcpy(&narrowed, &bits, sizeof(bits));
  return narrowed;
}

}  // namespace kernels
}  // namespace aclcpu
