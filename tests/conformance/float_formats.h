#pragma once
// Independent bit-level models of the narrow float formats the spec talks
// about (fp16, bf16, HF32), so the oracle can predict every rounding step.

#include <cmath>
#include <cstdint>
#include <cstring>

namespace conformance {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// IEEE binary16, round to nearest even, overflow to infinity, subnormals kept.
inline uint16_t floatToHalf(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude >= 0x7F800000u) {  // Inf or NaN
    return static_cast<uint16_t>(sign | 0x7C00u | (magnitude > 0x7F800000u ? 0x200u : 0u));
  }
  // Work on the exact value scaled so that one half-precision subnormal ulp is 1.
  const double scaled = std::fabs(static_cast<double>(value));
  int exponent;
  std::frexp(scaled, &exponent);  // scaled = m * 2^exponent, m in [0.5, 1)
  // Quantum of the destination format at this magnitude.
  int quantumExponent = exponent - 11;               // 11 significant bits
  if (quantumExponent < -24) quantumExponent = -24;  // subnormal range
  const double quantum = std::ldexp(1.0, quantumExponent);
  const double rounded = std::nearbyint(scaled / quantum) * quantum;  // ties to even
  if (rounded > 65504.0) return static_cast<uint16_t>(sign | 0x7C00u);
  if (rounded == 0.0) return sign;
  int roundedExponent;
  const double mantissa = std::frexp(rounded, &roundedExponent);  // [0.5, 1)
  if (roundedExponent <= -14) {                                   // subnormal: value = bits * 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(rounded / std::ldexp(1.0, -24)));
  }
  const uint16_t biased = static_cast<uint16_t>(roundedExponent - 1 + 15);
  const uint16_t fraction = static_cast<uint16_t>((mantissa * 2.0 - 1.0) * 1024.0);
  return static_cast<uint16_t>(sign | (biased << 10) | fraction);
}

inline float halfToFloat(uint16_t half) {
  const int exponent = (half >> 10) & 0x1F;
  const int fraction = half & 0x3FF;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), -24);
  } else if (exponent == 31) {
    magnitude = fraction ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(1.0 + fraction / 1024.0, exponent - 15);
  }
  return static_cast<float>((half & 0x8000) ? -magnitude : magnitude);
}

// bfloat16: the top 16 bits of fp32, round to nearest even.
inline uint16_t floatToBf16(float value) {
  const uint32_t bits = floatBits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

inline float bf16ToFloat(uint16_t value) { return bitsFloat(static_cast<uint32_t>(value) << 16); }

// HF32 on A2: 11 explicit mantissa bits, nearest with ties away from zero
// (add half of the dropped LSB to the magnitude, then truncate).
inline float roundToHf32(float value) {
  if (!std::isfinite(value)) return value;
  const uint32_t bits = floatBits(value);
  return bitsFloat((bits + 0x800u) & ~0xFFFu);
}

inline float roundToHalf(float value) { return halfToFloat(floatToHalf(value)); }
inline float roundToBf16(float value) { return bf16ToFloat(floatToBf16(value)); }

}  // namespace conformance
