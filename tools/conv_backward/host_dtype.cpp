#include "host_dtype.h"

#include <cstdint>
#include <cstring>

namespace hostdtype {
namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t toBf16(float f) {
  const uint32_t u = bitsOf(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float fromBf16(uint16_t h) { return floatOf(static_cast<uint32_t>(h) << 16); }

// The tool only ever encodes values it generated in [-1, 1] or results, so a
// plain nearest-even conversion through the fp16 grid is enough here.
uint16_t toHalf(float f) {
  const uint32_t u = bitsOf(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) return sign | (magnitude > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (magnitude >= 0x477ff000u) return sign | 0x7c00;       // rounds past 65504
  if (magnitude < 0x38800000u) {                            // fp16 subnormal or zero
    const float scaled = floatOf(magnitude) * 16777216.0f;  // exact: x * 2^24
    const uint32_t q = static_cast<uint32_t>(scaled);
    const float rest = scaled - static_cast<float>(q);
    uint32_t r = q + ((rest > 0.5f || (rest == 0.5f && (q & 1u))) ? 1u : 0u);
    return sign | static_cast<uint16_t>(r);
  }
  const uint32_t rebased = magnitude - 0x38000000u;  // exponent bias 127 -> 15
  const uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}
float fromHalf(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float value = static_cast<float>(mantissa) / 16777216.0f;
    return sign ? -value : value;
  }
  if (exponent == 31) return floatOf(sign | 0x7f800000u | (mantissa << 13));
  return floatOf(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace

size_t bytes(aclDataType dtype) { return dtype == ACL_FLOAT ? 4 : 2; }

float roundTo(float value, aclDataType dtype) {
  if (dtype == ACL_FLOAT16) return fromHalf(toHalf(value));
  if (dtype == ACL_BF16) return fromBf16(toBf16(value));
  return value;
}

void encode(const std::vector<float>& values, aclDataType dtype, void* out) {
  if (dtype == ACL_FLOAT) {
    // An empty vector's data() may be null, which memcpy must not get.
    if (!values.empty()) std::memcpy(out, values.data(), values.size() * 4);
    return;
  }
  auto* words = static_cast<uint16_t*>(out);
  for (size_t i = 0; i < values.size(); ++i)
    words[i] = dtype == ACL_FLOAT16 ? toHalf(values[i]) : toBf16(values[i]);
}

std::vector<float> decode(const void* data, size_t count, aclDataType dtype) {
  std::vector<float> values(count);
  if (dtype == ACL_FLOAT) {
    if (count > 0) std::memcpy(values.data(), data, count * 4);
    return values;
  }
  const auto* words = static_cast<const uint16_t*>(data);
  for (size_t i = 0; i < count; ++i)
    values[i] = dtype == ACL_FLOAT16 ? fromHalf(words[i]) : fromBf16(words[i]);
  return values;
}

}  // namespace hostdtype
