// aclDataTypeSize and the fp16 <-> fp32 helpers of acl_base.h.
//
// fp16 conversions are plain IEEE 754 binary16: float -> half rounds to
// nearest, ties to even, overflows to infinity and keeps NaN a (quiet) NaN;
// half -> float is exact. The newest CANN doc describes a saturating variant
// (NaN and +Inf -> 65504); we keep IEEE so that these helpers agree bit for
// bit with the fp16 data path of the operators and with every other fp16
// library a test may compare against.

#include <cstring>

#include "acl/acl.h"
#include "common/error_log.h"
#include "common/raw_enum.h"

namespace aclcpu {
namespace {

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Shifts `magnitude` right by `shift` bits, rounding to nearest, ties to even.
uint32_t shiftRoundNearestEven(uint32_t magnitude, int shift) {
  const uint32_t kept = magnitude >> shift;
  const uint32_t dropped = magnitude & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  const bool roundUp = dropped > half || (dropped == half && (kept & 1u) != 0);
  return kept + (roundUp ? 1u : 0u);
}

uint16_t floatToHalf(float value) {
  const uint32_t bits = floatBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {  // NaN: keep the top payload bits, force quiet
    return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  }
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: Inf
  if (magnitude >= 0x38800000u) {  // normal in binary16 (>= 2^-14)
    // Re-bias the exponent (127 -> 15) and round the 23-bit mantissa to 10;
    // a carry out of the mantissa correctly bumps the exponent.
    const uint32_t rebased = magnitude - ((127u - 15u) << 23);
    return static_cast<uint16_t>(sign | shiftRoundNearestEven(rebased, 13));
  }
  if (magnitude <= 0x33000000u) return sign;  // <= 2^-25: rounds to zero (tie to even)
  // Subnormal in binary16: value = significand * 2^(exponent - 150), counted
  // in units of 2^-24.
  const uint32_t exponent = magnitude >> 23;
  const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
  const int shift = static_cast<int>(126u - exponent);
  return static_cast<uint16_t>(sign | shiftRoundNearestEven(significand, shift));
}

float halfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0x1Fu) return bitsToFloat(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) return bitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
  return sign != 0 ? -magnitude : magnitude;
}

}  // namespace
}  // namespace aclcpu

float aclFloat16ToFloat(aclFloat16 value) { return aclcpu::halfToFloat(value); }

aclFloat16 aclFloatToFloat16(float value) { return aclcpu::floatToHalf(value); }

namespace aclcpu {
namespace {

size_t dataTypeSize(int dataType) {
  switch (dataType) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
    case ACL_FLOAT8_E8M0:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32:
      return 4;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    case ACL_INT4:
    case ACL_UINT1:
    case ACL_FLOAT6_E3M2:
    case ACL_FLOAT6_E2M3:
    case ACL_FLOAT4_E2M1:
    case ACL_FLOAT4_E1M2:
    case ACL_HIFLOAT4:
    case ACL_HIFLOAT4_SCALE:
      recordErrorf(
          "aclDataTypeSize: data type %d packs several elements per byte and "
          "has no whole-byte size; returning 0",
          dataType);
      return 0;
    case ACL_STRING:
      recordErrorf("aclDataTypeSize: ACL_STRING (13) has no fixed size; returning 0");
      return 0;
    case ACL_DT_UNDEFINED:
      break;
  }
  recordErrorf("aclDataTypeSize: argument dataType is %d; expected a defined aclDataType",
               dataType);
  return 0;
}

}  // namespace
}  // namespace aclcpu

size_t aclDataTypeSize(aclDataType dataType) {
  try {
    return aclcpu::dataTypeSize(aclcpu::rawEnumValue(dataType));
  } catch (...) {  // only recording the message can throw (out of memory)
    return 0;
  }
}
