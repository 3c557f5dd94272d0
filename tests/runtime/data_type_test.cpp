// aclDataTypeSize and the fp16 helpers, against an independent float64
// oracle of IEEE binary16.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// binary16 value of `h` computed from the definition, in float64.
double halfValue(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// Nearest binary16 to a finite float, ties to even, overflowing to infinity:
// found by searching the sorted table of every non-negative finite half.
uint16_t oracleFloatToHalf(float value) {
  static const std::vector<double> table = [] {
    std::vector<double> values;
    for (uint16_t h = 0; h < 0x7C00; ++h) values.push_back(halfValue(h));
    values.push_back(65536.0);  // stands for +Inf: where rounding overflows to
    return values;
  }();
  const double magnitude = std::fabs(static_cast<double>(value));
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  auto upper = std::lower_bound(table.begin(), table.end(), magnitude);
  if (upper == table.end()) return sign | 0x7C00;
  uint16_t code = static_cast<uint16_t>(upper - table.begin());
  if (*upper != magnitude && code > 0) {
    const double below = table[code - 1];
    const double above = *upper;
    const double toBelow = magnitude - below, toAbove = above - magnitude;
    if (toBelow < toAbove || (toBelow == toAbove && ((code - 1) & 1) == 0)) --code;
  }
  return sign | code;
}

TEST(DataTypeSizeTest, WholeByteTypes) {
  struct Case {
    aclDataType type;
    size_t size;
  };
  const Case cases[] = {
      {ACL_FLOAT, 4},     {ACL_FLOAT16, 2},     {ACL_INT8, 1},          {ACL_INT32, 4},
      {ACL_UINT8, 1},     {ACL_INT16, 2},       {ACL_UINT16, 2},        {ACL_UINT32, 4},
      {ACL_INT64, 8},     {ACL_UINT64, 8},      {ACL_DOUBLE, 8},        {ACL_BOOL, 1},
      {ACL_COMPLEX64, 8}, {ACL_COMPLEX128, 16}, {ACL_BF16, 2},          {ACL_COMPLEX32, 4},
      {ACL_HIFLOAT8, 1},  {ACL_FLOAT8_E5M2, 1}, {ACL_FLOAT8_E4M3FN, 1}, {ACL_FLOAT8_E8M0, 1},
  };
  for (const Case& c : cases) EXPECT_EQ(aclDataTypeSize(c.type), c.size) << c.type;
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
}

TEST(DataTypeSizeTest, UndefinedAndSubByteTypesGiveZeroWithAMessage) {
  for (int type : {-1, 5, 14, 28, 44, 1000}) {
    EXPECT_EQ(aclDataTypeSize(static_cast<aclDataType>(type)), 0u) << type;
    EXPECT_NE(takeErrors().find("dataType is " + std::to_string(type)), std::string::npos);
  }
  for (aclDataType type : {ACL_INT4, ACL_UINT1, ACL_FLOAT4_E2M1, ACL_FLOAT6_E3M2, ACL_STRING}) {
    EXPECT_EQ(aclDataTypeSize(type), 0u) << type;
    EXPECT_NE(takeErrors().find("aclDataTypeSize"), std::string::npos);
  }
}

TEST(Float16Test, HalfToFloatIsExactForEveryCode) {
  for (uint32_t code = 0; code <= 0xFFFF; ++code) {
    const uint16_t h = static_cast<uint16_t>(code);
    const float converted = aclFloat16ToFloat(h);
    const double expected = halfValue(h);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(converted)) << code;
    } else {
      EXPECT_EQ(static_cast<double>(converted), expected) << code;
      EXPECT_EQ(std::signbit(converted), (code & 0x8000) != 0) << code;
    }
  }
}

TEST(Float16Test, RoundTripsEveryHalf) {
  for (uint32_t code = 0; code <= 0xFFFF; ++code) {
    const uint16_t h = static_cast<uint16_t>(code);
    const uint16_t back = aclFloatToFloat16(aclFloat16ToFloat(h));
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) {
      EXPECT_EQ(back & 0x7C00, 0x7C00) << code;  // still NaN, quiet, same sign
      EXPECT_NE(back & 0x200, 0) << code;
      EXPECT_EQ(back & 0x8000, h & 0x8000) << code;
    } else {
      EXPECT_EQ(back, h) << code;
    }
  }
}

TEST(Float16Test, HandPickedValues) {
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(-2.0f), 0xC000);
  EXPECT_EQ(aclFloatToFloat16(0.1f), 0x2E66);
  EXPECT_EQ(aclFloatToFloat16(0.0f), 0x0000);
  EXPECT_EQ(aclFloatToFloat16(-0.0f), 0x8000);
  EXPECT_EQ(aclFloatToFloat16(65504.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(65519.0f), 0x7BFF);
  EXPECT_EQ(aclFloatToFloat16(65520.0f), 0x7C00) << "the tie above 65504 rounds to even: Inf";
  EXPECT_EQ(aclFloatToFloat16(1e10f), 0x7C00);
  EXPECT_EQ(aclFloatToFloat16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(aclFloatToFloat16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -25)), 0x0000) << "tie to even: zero";
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(3.0f, -25)), 0x0002) << "tie 1.5 ulp -> even 2";
  EXPECT_EQ(aclFloatToFloat16(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11)), 0x3C00) << "tie down to even";
  EXPECT_EQ(aclFloatToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02) << "tie up to even";
  const uint16_t nan = aclFloatToFloat16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x3FF, 0);
  const uint16_t signalling = aclFloatToFloat16(fromBits(0x7F800001u));
  EXPECT_EQ(signalling & 0x7E00, 0x7E00) << "a NaN whose payload is in dropped bits stays NaN";
}

TEST(Float16Test, EveryMidpointRoundsToEven) {
  for (uint16_t code = 0; code < 0x7BFF; ++code) {
    const double midpoint = (halfValue(code) + halfValue(code + 1)) / 2;
    const float asFloat = static_cast<float>(midpoint);
    ASSERT_EQ(static_cast<double>(asFloat), midpoint);  // 12 significant bits: exact
    const uint16_t expected = (code & 1) ? code + 1 : code;
    ASSERT_EQ(aclFloatToFloat16(asFloat), expected) << code;
    ASSERT_EQ(aclFloatToFloat16(-asFloat), expected | 0x8000) << code;
  }
}

TEST(Float16Test, MatchesTheOracleOnManyFloats) {
  // Every float exponent that matters, with pseudo-random mantissas.
  uint32_t state = 12345;
  for (int i = 0; i < 300000; ++i) {
    state = state * 1664525u + 1013904223u;
    const uint32_t exponent = 95 + (state >> 8) % 50;  // 2^-32 .. 2^17
    state = state * 1664525u + 1013904223u;
    const uint32_t bits = ((state & 1u) << 31) | (exponent << 23) | (state >> 9);
    const float value = fromBits(bits);
    ASSERT_EQ(aclFloatToFloat16(value), oracleFloatToHalf(value)) << std::hex << bits;
  }
}

}  // namespace
}  // namespace aclcpu_test
