// Scalar conversions and rounding against hand-derived bit patterns, plus
// independent oracles (F16C hardware, float64 nearest-value arithmetic).

#include <gtest/gtest.h>
#include <cpuid.h>
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "kernels/convert/convert.h"

namespace aclcpu {
namespace kernels {
namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

bool halfIsNan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(HalfToFloat, HandDerivedPatterns) {
  const struct {
    uint16_t half;
    uint32_t expected;
  } cases[] = {
      {0x0000, 0x00000000}, {0x8000, 0x80000000}, {0x3c00, 0x3f800000},
      {0xc000, 0xc0000000}, {0x7bff, 0x477fe000},  // 65504, largest finite
      {0x0001, 0x33800000},                        // 2^-24, smallest subnormal
      {0x8001, 0xb3800000}, {0x03ff, 0x387fc000},  // largest subnormal
      {0x0400, 0x38800000},                        // smallest normal 2^-14
      {0x3555, 0x3eaaa000},                        // 0.333251953125
      {0x7c00, 0x7f800000}, {0xfc00, 0xff800000}, {0x7e00, 0x7fc00000},
      {0x7d00, 0x7fa00000},  // signalling NaN keeps its payload bits
  };
  for (const auto& c : cases) {
    EXPECT_EQ(bitsOf(halfToFloat(c.half)), c.expected) << std::hex << c.half;
  }
}

TEST(FloatToHalf, HandDerivedPatterns) {
  const struct {
    uint32_t value;
    uint16_t expected;
  } cases[] = {
      {0x3f800000, 0x3c00},                        // 1
      {0x80000000, 0x8000},                        // -0
      {0x3f801000, 0x3c00},                        // 1 + 2^-11: tie, even stays
      {0x3f803000, 0x3c02},                        // 1 + 3*2^-11: tie, odd rounds up
      {0x3f801001, 0x3c01},                        // just above the tie
      {0x3f800fff, 0x3c00},                        // just below the tie
      {0xbf803000, 0xbc02},                        // negative tie is symmetric
      {0x3ffff000, 0x4000},                        // tie above 0x3fff carries into the exponent
      {0x477fe000, 0x7bff},                        // 65504
      {0x477fefff, 0x7bff},                        // just below 65520
      {0x477ff000, 0x7c00},                        // 65520: tie to even overflows to inf
      {0xc77ff000, 0xfc00}, {0x501502f9, 0x7c00},  // 1e10
      {0x38800000, 0x0400},                        // 2^-14
      {0x387fe000, 0x0400},  // tie between largest subnormal and smallest normal
      {0x387fc000, 0x03ff}, {0x33800000, 0x0001},                        // 2^-24
      {0x33000000, 0x0000},                                              // 2^-25: tie to even zero
      {0x33000001, 0x0001}, {0xb3000000, 0x8000}, {0x33c00000, 0x0002},  // 1.5 units: tie -> 2
      {0x34200000, 0x0002},                                              // 2.5 units: tie -> 2
      {0x34300000, 0x0003},                                              // 2.75 units
      {0x00000001, 0x0000},  // fp32 subnormal underflows
      {0x80000001, 0x8000}, {0x7f800000, 0x7c00}, {0xff800000, 0xfc00}, {0x7fc00000, 0x7e00},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(floatToHalf(floatOf(c.value)), c.expected) << std::hex << c.value;
  }
  // NaNs stay NaNs (even with a payload only in the dropped bits) and keep their sign.
  for (uint32_t nan : {0x7f800001u, 0x7fc00001u, 0xffc12345u, 0x7fffffffu, 0xff800001u}) {
    const uint16_t h = floatToHalf(floatOf(nan));
    EXPECT_TRUE(halfIsNan(h)) << std::hex << nan;
    EXPECT_EQ(h & 0x8000u, (nan >> 16) & 0x8000u);
  }
}

TEST(FloatToHalf, RoundTripsEveryHalf) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const uint16_t back = floatToHalf(halfToFloat(half));
    if (halfIsNan(half)) {
      EXPECT_TRUE(halfIsNan(back));
    } else {
      ASSERT_EQ(back, half) << std::hex << h;
    }
  }
}

__attribute__((target("f16c"))) uint16_t hardwareFloatToHalf(float value) {
  return _cvtss_sh(value, _MM_FROUND_TO_NEAREST_INT);
}

// cpuid leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports has no "f16c").
bool cpuHasF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
}

TEST(FloatToHalf, MatchesF16cHardware) {
  if (!cpuHasF16c()) GTEST_SKIP() << "no F16C on this CPU";
  std::mt19937 rng(7);
  // Dense around the half range plus uniformly random words.
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = rng();
    if (i % 2 == 0) bits = (bits & 0x87ffffffu) | 0x30000000u;  // exponents near [2^-31, 2^16]
    const float value = floatOf(bits);
    ASSERT_EQ(floatToHalf(value), hardwareFloatToHalf(value)) << std::hex << bits;
  }
}

TEST(Bf16, HandDerivedPatterns) {
  EXPECT_EQ(bitsOf(bf16ToFloat(0x3f80)), 0x3f800000u);
  EXPECT_EQ(bitsOf(bf16ToFloat(0xff80)), 0xff800000u);
  EXPECT_EQ(bitsOf(bf16ToFloat(0x0001)), 0x00010000u);
  EXPECT_EQ(bitsOf(bf16ToFloat(0x7fc1)), 0x7fc10000u);
  const struct {
    uint32_t value;
    uint16_t expected;
  } cases[] = {
      {0x3f800000, 0x3f80},
      {0x3f808000, 0x3f80},  // tie, even stays
      {0x3f818000, 0x3f82},  // tie, odd rounds up
      {0x3f808001, 0x3f81},
      {0x3f807fff, 0x3f80},
      {0xbf818000, 0xbf82},
      {0x3fffffff, 0x4000},  // carry into the exponent
      {0x7f7f7fff, 0x7f7f},
      {0x7f7f8000, 0x7f80},  // tie above the largest finite: inf
      {0x7f7fffff, 0x7f80},
      {0x00008000, 0x0000},  // subnormal tie to even
      {0x00018000, 0x0002},
      {0x80000000, 0x8000},
      {0x7f800000, 0x7f80},
      {0xff800000, 0xff80},
      {0x7f800001, 0x7fc0},  // signalling NaN with a low payload becomes a
                             // quiet NaN
      {0xffa00000, 0xffe0},
      {0x7fc00000, 0x7fc0},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(floatToBf16(floatOf(c.value)), c.expected) << std::hex << c.value;
  }
}

// Nearest-even on the magnitude by float64 distance to the two candidates.
uint16_t oracleBf16(uint32_t bits) {
  const uint32_t low = bits & 0xffff0000u;
  const uint32_t high = low + 0x10000u;
  const double value = floatOf(bits);
  const double dLow = std::fabs(value - static_cast<double>(floatOf(low)));
  const double highValue = (high & 0x7f800000u) == 0x7f800000u
                               ? std::copysign(std::ldexp(1.0, 128), value)  // next "binade" value
                               : static_cast<double>(floatOf(high));
  const double dHigh = std::fabs(highValue - value);
  if (dLow < dHigh) return static_cast<uint16_t>(low >> 16);
  if (dHigh < dLow) return static_cast<uint16_t>(high >> 16);
  return static_cast<uint16_t>(((low >> 16) & 1u) ? high >> 16 : low >> 16);
}

TEST(Bf16, MatchesFloat64OracleOnRandomWords) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t bits = rng();
    if ((bits & 0x7f800000u) == 0x7f800000u) continue;  // Inf/NaN covered above
    ASSERT_EQ(floatToBf16(floatOf(bits)), oracleBf16(bits)) << std::hex << bits;
    EXPECT_EQ(bitsOf(roundFloat(floatOf(bits), Rounding::BF16)),
              static_cast<uint32_t>(oracleBf16(bits)) << 16);
  }
}

TEST(RoundFloat, Hf32HandDerivedPatterns) {
  const struct {
    uint32_t value;
    uint32_t expected;
  } cases[] = {
      {0x3f800000, 0x3f800000}, {0x3f800800, 0x3f801000},  // tie: away from zero
      {0x3f8007ff, 0x3f800000}, {0x3f801800, 0x3f802000},  // tie with odd kept bit: still away
      {0xbf800800, 0xbf801000},                            // negative tie: away from zero
      {0xbf8007ff, 0xbf800000}, {0x3ffff800, 0x40000000},  // carry into the exponent
      {0x7f7ff7ff, 0x7f7ff000}, {0x7f7fffff, 0x7f800000},  // max finite rounds to inf (golden)
      {0xff7ff800, 0xff800000}, {0x00000800, 0x00001000},  // subnormal tie
      {0x000007ff, 0x00000000}, {0x80000800, 0x80001000},
      {0x007ff800, 0x00800000}, {0x7f800000, 0x7f800000},  // inf unchanged
      {0xff800000, 0xff800000}, {0x7fc00001, 0x7fc00001},  // NaN unchanged, payload too
      {0x7f800801, 0x7f800801}, {0xffffffff, 0xffffffff},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(bitsOf(roundFloat(floatOf(c.value), Rounding::HF32)), c.expected)
        << std::hex << c.value;
  }
}

TEST(RoundFloat, Hf32MatchesFloat64OracleOnRandomWords) {
  std::mt19937 rng(5);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t bits = rng();
    if ((bits & 0x7f800000u) == 0x7f800000u) continue;
    const uint32_t low = bits & 0xfffff000u;
    const uint32_t high = low + 0x1000u;
    const double value = floatOf(bits);
    const double dLow = std::fabs(value - static_cast<double>(floatOf(low)));
    const double highValue = (high & 0x7f800000u) == 0x7f800000u
                                 ? std::copysign(std::ldexp(1.0, 128), value)
                                 : static_cast<double>(floatOf(high));
    const double dHigh = std::fabs(highValue - value);
    const uint32_t expected = dLow < dHigh ? low : high;  // ties go up in magnitude
    ASSERT_EQ(bitsOf(roundFloat(value, Rounding::HF32)), expected) << std::hex << bits;
  }
}

TEST(RoundFloat, F16AndNone) {
  EXPECT_EQ(bitsOf(roundFloat(floatOf(0x3f801000), Rounding::F16)), 0x3f800000u);
  EXPECT_EQ(bitsOf(roundFloat(floatOf(0x3f803000), Rounding::F16)), 0x3f804000u);  // 0x3c02
  EXPECT_EQ(bitsOf(roundFloat(70000.0f, Rounding::F16)), 0x7f800000u);
  EXPECT_EQ(bitsOf(roundFloat(-70000.0f, Rounding::F16)), 0xff800000u);
  EXPECT_EQ(bitsOf(roundFloat(1e-8f, Rounding::F16)), 0x00000000u);  // 0.17 units of 2^-24
  EXPECT_EQ(bitsOf(roundFloat(3e-8f, Rounding::F16)), 0x33800000u);  // 0.50x units: 2^-24
  EXPECT_EQ(bitsOf(roundFloat(floatOf(0x387fe000), Rounding::F16)), 0x38800000u);
  EXPECT_TRUE(std::isnan(roundFloat(floatOf(0x7f800001), Rounding::F16)));
  EXPECT_TRUE(std::isnan(roundFloat(floatOf(0x7f800001), Rounding::BF16)));
  for (uint32_t bits : {0x3f801234u, 0x00000001u, 0xff7fffffu, 0x7fc00123u}) {
    EXPECT_EQ(bitsOf(roundFloat(floatOf(bits), Rounding::None)), bits);
  }
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu

namespace {

// Rounding a double to fp16 through float: a plain float cast rounds twice
// and can land on the wrong fp16 neighbour; round-to-odd must not.
TEST(NarrowRoundToOdd, MakesTheLaterHalfRoundingASingleRounding) {
  using aclcpu::kernels::floatToHalf;
  using aclcpu::kernels::narrowRoundToOdd;
  // 1 + 2^-11 is the exact midpoint between fp16 1.0 and 1 + 2^-10; a value a
  // hair above it must round up, but a float cast first lands on the midpoint
  // (ties to even: down to 1.0).
  const double justAboveTie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(floatToHalf(static_cast<float>(justAboveTie)), 0x3C00);  // the double rounding
  EXPECT_EQ(floatToHalf(narrowRoundToOdd(justAboveTie)), 0x3C01);
  const double justBelowTie = 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40);
  EXPECT_EQ(floatToHalf(narrowRoundToOdd(justBelowTie)), 0x3C00);
  // Exact values pass unchanged; negative values mirror.
  EXPECT_EQ(narrowRoundToOdd(0.5), 0.5f);
  EXPECT_EQ(floatToHalf(narrowRoundToOdd(-justAboveTie)), 0xBC01);
  EXPECT_TRUE(std::isinf(narrowRoundToOdd(1e300)));
}

}  // namespace
