#pragma once
// The three floating dtypes of the operator as the tests see them: storage
// width, exact encode/decode of values that the dtype represents, and the
// rounding rules of the spec written from the IEEE layouts for this test
// folder (independent of the engine's converters).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "acl/acl.h"

namespace numerics {

enum class DType : uint8_t { F32, F16, BF16 };

inline size_t elementBytes(DType t) { return t == DType::F32 ? 4 : 2; }

inline aclDataType aclTypeOf(DType t) {
  switch (t) {
    case DType::F16:
      return ACL_FLOAT16;
    case DType::BF16:
      return ACL_BF16;
    default:
      return ACL_FLOAT;
  }
}

inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
    default:
      return "f32";
  }
}

inline uint32_t floatBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

inline float floatFromBits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

inline double halfToDouble(uint16_t h) {
  const double sign = (h & 0x8000u) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nan("") : sign * HUGE_VAL;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

inline double bf16ToDouble(uint16_t b) { return floatFromBits(static_cast<uint32_t>(b) << 16); }

// Rounds v to nearest-even with `precision` significant bits, quantum never
// below 2^minQuantumExp (subnormals), and overflow to infinity past
// `maxFinite`. Uses the FPU's default round-to-nearest-even mode.
inline double roundNearestEven(double v, int precision, int minQuantumExp, double maxFinite) {
  if (!std::isfinite(v) || v == 0.0) return v;
  int exponent = 0;
  std::frexp(v, &exponent);  // |v| in [2^(exponent-1), 2^exponent)
  const int quantumExp = std::max(exponent - precision, minQuantumExp);
  const double r = std::ldexp(std::nearbyint(std::ldexp(v, -quantumExp)), quantumExp);
  if (std::fabs(r) > maxFinite) return std::copysign(HUGE_VAL, v);
  return r;
}

inline double roundToHalf(double v) { return roundNearestEven(v, 11, -24, 65504.0); }
inline double roundToBf16(double v) {
  return roundNearestEven(v, 8, -133, std::ldexp(255.0, 120));  // max bf16 = (2 - 2^-7) * 2^127
}
inline double roundToFloat(double v) { return static_cast<float>(v); }

inline double roundTo(DType t, double v) {
  switch (t) {
    case DType::F16:
      return roundToHalf(v);
    case DType::BF16:
      return roundToBf16(v);
    default:
      return roundToFloat(v);
  }
}

// HF32 by the spec's definition: add 1 at bit 11 of the fp32 word, clear the
// low 12 bits (half away from zero on the magnitude); NaN and Inf unchanged.
inline float roundToHf32(float v) {
  const uint32_t bits = floatBits(v);
  if ((bits & 0x7F800000u) == 0x7F800000u) return v;
  return floatFromBits((bits + 0x800u) & ~0xFFFu);
}

// Encodes a value the dtype represents exactly (callers guarantee it;
// isExactIn checks). Infinities and NaN map to the dtype's Inf/quiet NaN.
inline uint16_t halfBitsOf(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  const double a = std::fabs(v);
  if (std::isnan(v)) return 0x7E00u;
  if (std::isinf(v)) return sign | 0x7C00u;
  if (a == 0.0) return sign;
  if (a < std::ldexp(1.0, -14)) return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  int exponent = 0;
  const double fraction = std::frexp(a, &exponent);  // [0.5, 1)
  const auto mantissa = static_cast<uint16_t>(std::ldexp(fraction, 11) - 1024.0);
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) | mantissa;
}

inline uint16_t bf16BitsOf(double v) {
  return static_cast<uint16_t>(floatBits(static_cast<float>(v)) >> 16);
}

inline bool isExactIn(DType t, double v) {
  if (std::isnan(v)) return true;
  return roundTo(t, v) == v;
}

inline void storeElement(DType t, void* at, double v) {
  if (t == DType::F32) {
    const float f = static_cast<float>(v);
    std::memcpy(at, &f, 4);
  } else {
    const uint16_t bits = t == DType::F16 ? halfBitsOf(v) : bf16BitsOf(v);
    std::memcpy(at, &bits, 2);
  }
}

inline double loadElement(DType t, const void* at) {
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, at, 4);
    return f;
  }
  uint16_t bits;
  std::memcpy(&bits, at, 2);
  return t == DType::F16 ? halfToDouble(bits) : bf16ToDouble(bits);
}

// Raw storage bits of one element (for exact-bit assertions).
inline uint32_t loadBits(DType t, const void* at) {
  if (t == DType::F32) {
    uint32_t bits;
    std::memcpy(&bits, at, 4);
    return bits;
  }
  uint16_t bits;
  std::memcpy(&bits, at, 2);
  return bits;
}

}  // namespace numerics
