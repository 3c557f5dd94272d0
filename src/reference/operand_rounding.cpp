// Operand rounding written from the IEEE bit layouts, independently of the
// engine's converters, so the two can check each other.

#include <cmath>
#include <cstring>

#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {
namespace {

constexpr uint32_t kFloatExponentMask = 0x7F800000u;

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

bool isInfOrNan(uint32_t bits) { return (bits & kFloatExponentMask) == kFloatExponentMask; }

// HF32 keeps 1+8+11 bits. Adding half of the kept ulp (bit 11) to the word and
// truncating rounds the magnitude half away from zero; a carry out of the
// mantissa correctly bumps the exponent (up to infinity for the top binade).
float roundToHf32(float value) {
  const uint32_t bits = floatBits(value);
  if (isInfOrNan(bits)) return value;
  return floatFromBits((bits + 0x800u) & ~0xFFFu);
}

// bf16 is the top half of the fp32 word: round to nearest, ties to even.
float roundToBf16(float value) {
  const uint32_t bits = floatBits(value);
  if (isInfOrNan(bits)) return value;
  const uint32_t keptLsb = (bits >> 16) & 1u;
  return floatFromBits((bits + 0x7FFFu + keptLsb) & 0xFFFF0000u);
}

// Rounds `mantissa >> shift` to nearest, ties to even (shift >= 1).
uint32_t shiftRightNearestEven(uint32_t mantissa, int shift) {
  const uint32_t kept = mantissa >> shift;
  const uint32_t dropped = mantissa & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  const bool roundUp = dropped > half || (dropped == half && (kept & 1u));
  return kept + (roundUp ? 1u : 0u);
}

// IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
uint16_t floatToHalfBits(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponentField = (bits >> 23) & 0xFFu;
  const uint32_t mantissa = bits & 0x7FFFFFu;

  if (exponentField == 0xFFu) {  // Inf stays Inf; NaN stays a (quiet) NaN
    return static_cast<uint16_t>(sign | 0x7C00u | (mantissa != 0 ? 0x200u : 0u));
  }
  if (exponentField == 0) return sign;  // fp32 zero/subnormal < 2^-126: rounds to 0

  const int exponent = static_cast<int>(exponentField) - 127;
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00u);

  if (exponent >= -14) {
    // Normal half range: keep 10 of 23 mantissa bits. Rounding up may carry
    // into the exponent, and past 65504 into 0x7C00, which is infinity.
    const uint32_t truncated = (static_cast<uint32_t>(exponent + 15) << 10) | (mantissa >> 13);
    const uint32_t dropped = mantissa & 0x1FFFu;
    const bool roundUp = dropped > 0x1000u || (dropped == 0x1000u && (truncated & 1u));
    return static_cast<uint16_t>(sign | (truncated + (roundUp ? 1u : 0u)));
  }

  // Subnormal half: the value in units of 2^-24 is (1.mantissa * 2^23) * 2^(exponent+1).
  const int shift = -exponent - 1;  // >= 14
  if (shift > 24) return sign;      // below a quarter of the smallest subnormal
  const uint32_t significand = mantissa | 0x800000u;
  // A result of 0x400 is the smallest normal, which is the correct encoding.
  return static_cast<uint16_t>(sign | shiftRightNearestEven(significand, shift));
}

double halfBitsToDouble(uint16_t half) {
  const bool negative = (half & 0x8000u) != 0;
  const int exponentField = (half >> 10) & 0x1F;
  const int mantissa = half & 0x3FF;
  double magnitude;
  if (exponentField == 0x1F) {
    magnitude = mantissa != 0 ? std::nan("") : HUGE_VAL;
  } else if (exponentField == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    magnitude = std::ldexp(static_cast<double>(1024 + mantissa), exponentField - 25);
  }
  return negative ? -magnitude : magnitude;
}

}  // namespace

double roundOperand(float v, OperandRounding rounding) {
  switch (rounding) {
    case OperandRounding::None:
      return v;
    case OperandRounding::HF32:
      return roundToHf32(v);
    case OperandRounding::F16:
      return halfBitsToDouble(floatToHalfBits(v));
    case OperandRounding::BF16:
      return roundToBf16(v);
  }
  return v;
}

}  // namespace reference
}  // namespace aclcpu
