#pragma once
// Inline bodies of the scalar conversions declared in convert.h, so the bulk
// loops in this folder can inline them. These are the contract: any SIMD path
// must agree with them bit for bit.

#include <cstdint>
#include <cstring>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace detail {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float halfToFloatInline(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1fu) return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return bitsToFloat(sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24 is exact in fp32.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return bitsToFloat(sign | floatBits(magnitude));
}

inline uint16_t floatToHalfInline(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {
    if (magnitude == 0x7f800000u) return sign | 0x7c00u;
    // NaN: keep the top payload bits and force the quiet bit so it stays a NaN.
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  // 65520 is halfway between the largest half (65504, odd mantissa) and 2^16:
  // ties to even and everything above overflow to infinity.
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;
  if (magnitude >= 0x38800000u) {  // normal half: rebias, then round the 13 dropped bits
    const uint32_t rebased = magnitude - 0x38000000u;
    uint32_t half = rebased >> 13;
    const uint32_t rest = rebased & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // carry may reach the exponent
    return static_cast<uint16_t>(sign | half);
  }
  // Subnormal half (units of 2^-24). 2^-25 itself ties to even, i.e. to zero.
  if (magnitude <= 0x33000000u) return sign;
  const uint32_t exponent = magnitude >> 23;  // 102..112
  const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exponent;  // 14..24
  uint32_t half = significand >> shift;
  const uint32_t rest = significand & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (half & 1u))) ++half;  // may become the smallest normal
  return static_cast<uint16_t>(sign | half);
}

inline float bf16ToFloatInline(uint16_t bits) {
  return bitsToFloat(static_cast<uint32_t>(bits) << 16);
}

inline uint16_t floatToBf16Inline(float value) {
  const uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Nearest even; a carry out of the mantissa correctly produces the next
  // binade or infinity.
  const uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

// HF32: keep 11 explicit mantissa bits; ties away from zero on the magnitude.
// Adding 0x800 to the word may carry into the exponent (and up to infinity for
// the largest finite values, as the NPU golden does).
inline float roundHf32Inline(float value) {
  const uint32_t bits = floatBits(value);
  if ((bits & 0x7f800000u) == 0x7f800000u) return value;  // Inf and NaN pass through
  return bitsToFloat((bits + 0x800u) & 0xfffff000u);
}

template <Rounding R>
inline float applyRounding(float value) {
  if constexpr (R == Rounding::None) {
    return value;
  } else if constexpr (R == Rounding::HF32) {
    return roundHf32Inline(value);
  } else if constexpr (R == Rounding::F16) {
    return halfToFloatInline(floatToHalfInline(value));
  } else {
    return bf16ToFloatInline(floatToBf16Inline(value));
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
