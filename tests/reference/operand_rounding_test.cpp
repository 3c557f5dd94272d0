// roundOperand on chosen bit patterns; every expected value is derived by
// hand in the comment beside it.

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {
namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

struct BitCase {
  uint32_t in;
  uint32_t expected;
  const char* why;
};

void expectBitCases(OperandRounding rounding, const std::vector<BitCase>& cases) {
  for (const BitCase& c : cases) {
    const double result = roundOperand(fromBits(c.in), rounding);
    const double expected = fromBits(c.expected);
    EXPECT_EQ(result, expected) << std::hex << "0x" << c.in << ": " << c.why;
    EXPECT_EQ(std::signbit(result), std::signbit(expected)) << std::hex << "0x" << c.in;
  }
}

void expectNanStaysNan(OperandRounding rounding) {
  // 0x7F800001 is the NaN closest to Inf: a blind add-and-truncate turns it into Inf.
  for (uint32_t nan : {0x7F800001u, 0x7FC00000u, 0xFFFFFFFFu, 0xFF800100u}) {
    EXPECT_TRUE(std::isnan(roundOperand(fromBits(nan), rounding))) << std::hex << nan;
  }
}

TEST(OperandRounding, NoneIsExact) {
  for (uint32_t bits : {0x3F800001u, 0x00000001u, 0x7F7FFFFFu, 0xC0490FDBu, 0x80000000u}) {
    EXPECT_EQ(roundOperand(fromBits(bits), OperandRounding::None),
              static_cast<double>(fromBits(bits)));
  }
  EXPECT_TRUE(std::signbit(roundOperand(-0.0f, OperandRounding::None)));
  expectNanStaysNan(OperandRounding::None);
}

TEST(OperandRounding, Hf32KeepsElevenBitsTiesAwayFromZero) {
  expectBitCases(OperandRounding::HF32,
                 {
                     {0x3F800000u, 0x3F800000u, "1.0 exact"},
                     {0x3F800800u, 0x3F801000u, "1 + 2^-12 is a tie: away from zero, not to even"},
                     {0x3F8007FFu, 0x3F800000u, "just below the tie: down"},
                     {0x3F801800u, 0x3F802000u, "tie above an odd kept word: up"},
                     {0x3F8017FFu, 0x3F801000u, "just below that tie: down"},
                     {0xBF800800u, 0xBF801000u, "negative tie: magnitude away from zero"},
                     {0x3FFFF800u, 0x40000000u, "carry out of the mantissa: 2.0"},
                     {0x7F7FF7FFu, 0x7F7FF000u, "largest value that stays finite"},
                     {0x7F7FFFFFu, 0x7F800000u, "max finite rounds past the top binade: Inf"},
                     {0x00000800u, 0x00001000u, "subnormal tie: away"},
                     {0x000007FFu, 0x00000000u, "tiny subnormal: +0"},
                     {0x807FF800u, 0x80800000u, "largest subnormals carry into -min normal"},
                     {0x80000000u, 0x80000000u, "-0 stays -0"},
                     {0x7F800000u, 0x7F800000u, "+Inf unchanged"},
                     {0xFF800000u, 0xFF800000u, "-Inf unchanged"},
                 });
  expectNanStaysNan(OperandRounding::HF32);
}

TEST(OperandRounding, Bf16NearestEven) {
  expectBitCases(OperandRounding::BF16,
                 {
                     {0x3F800000u, 0x3F800000u, "1.0 exact"},
                     {0x3F808000u, 0x3F800000u, "tie, kept word 0x3F80 even: down"},
                     {0x3F818000u, 0x3F820000u, "tie, kept word 0x3F81 odd: up"},
                     {0x3F808001u, 0x3F810000u, "above the tie: up"},
                     {0x3F807FFFu, 0x3F800000u, "below the tie: down"},
                     {0xBF818000u, 0xBF820000u, "negative tie to even"},
                     {0x3FFF8000u, 0x40000000u, "tie carries into the exponent: 2.0"},
                     {0x7F7F7FFFu, 0x7F7F0000u, "just below the top tie: max bf16"},
                     {0x7F7F8000u, 0x7F800000u, "top tie, odd: overflows to Inf"},
                     {0x7F7FFFFFu, 0x7F800000u, "fp32 max: Inf"},
                     {0x00008000u, 0x00000000u, "subnormal tie to even: 0"},
                     {0x00018000u, 0x00020000u, "subnormal tie, odd: up"},
                     {0x80000000u, 0x80000000u, "-0 stays -0"},
                     {0xFF800000u, 0xFF800000u, "-Inf unchanged"},
                 });
  expectNanStaysNan(OperandRounding::BF16);
}

// F16 expectations as exact doubles: ulp 2^-10 in [1, 2), subnormal quantum 2^-24.
TEST(OperandRounding, F16NearestEvenNormalRange) {
  auto f16 = [](double v) { return roundOperand(static_cast<float>(v), OperandRounding::F16); };
  const double u = std::ldexp(1.0, -10);
  EXPECT_EQ(f16(1.0), 1.0);
  EXPECT_EQ(f16(1 + u / 2), 1.0) << "tie, even kept: down";
  EXPECT_EQ(f16(1 + 3 * u / 2), 1 + 2 * u) << "tie, odd kept: up";
  EXPECT_EQ(f16(1 + u / 2 + std::ldexp(1.0, -23)), 1 + u) << "above the tie";
  EXPECT_EQ(f16(-(1 + u / 2 + std::ldexp(1.0, -23))), -(1 + u));
  EXPECT_EQ(f16(1 + u / 2 - std::ldexp(1.0, -23)), 1.0) << "below the tie";
  EXPECT_EQ(f16(3.14159265), 3.140625) << "pi: 0x4248";
  EXPECT_EQ(f16(2047.5), 2048.0) << "tie at ulp 1, 2047 odd: carries into the exponent";
  EXPECT_EQ(f16(2046.5), 2046.0) << "tie, 2046 even";
  EXPECT_EQ(f16(65504.0), 65504.0) << "max half";
  EXPECT_EQ(f16(65519.0), 65504.0) << "below the overflow tie";
  EXPECT_EQ(f16(65520.0), HUGE_VAL) << "tie between 65504 (odd) and 2^16: Inf";
  EXPECT_EQ(f16(-65520.0), -HUGE_VAL);
  EXPECT_EQ(f16(65536.0), HUGE_VAL);
  EXPECT_EQ(roundOperand(FLT_MAX, OperandRounding::F16), HUGE_VAL);
  EXPECT_EQ(roundOperand(-INFINITY, OperandRounding::F16), -HUGE_VAL);
  expectNanStaysNan(OperandRounding::F16);
}

TEST(OperandRounding, F16Subnormals) {
  auto f16 = [](double v) { return roundOperand(static_cast<float>(v), OperandRounding::F16); };
  const double q = std::ldexp(1.0, -24);  // smallest half subnormal
  EXPECT_EQ(f16(std::ldexp(1.0, -14)), std::ldexp(1.0, -14)) << "min normal";
  EXPECT_EQ(f16(std::ldexp(1.0, -14) * (1 + std::ldexp(1.0, -11))), std::ldexp(1.0, -14))
      << "tie just above min normal: even";
  EXPECT_EQ(f16(1023.5 * q), 1024 * q) << "top subnormal tie rounds up into min normal";
  EXPECT_EQ(f16(1022.5 * q), 1022 * q) << "tie to even";
  EXPECT_EQ(f16(24 * q), 24 * q) << "exact subnormal";
  EXPECT_EQ(f16(q), q);
  EXPECT_EQ(f16(1.25 * q), q);
  EXPECT_EQ(f16(1.5 * q), 2 * q) << "tie, odd: up";
  EXPECT_EQ(f16(2.5 * q), 2 * q) << "tie, even: down";
  EXPECT_EQ(f16(0.5 * q + std::ldexp(1.0, -40)), q) << "above half a quantum";
  const double halfQuantum = f16(0.5 * q);
  EXPECT_EQ(halfQuantum, 0.0) << "half a quantum ties to 0";
  EXPECT_FALSE(std::signbit(halfQuantum));
  const double negativeHalfQuantum = f16(-0.5 * q);
  EXPECT_EQ(negativeHalfQuantum, 0.0);
  EXPECT_TRUE(std::signbit(negativeHalfQuantum)) << "keeps the sign: -0";
  EXPECT_EQ(f16(0.25 * q), 0.0);
  EXPECT_EQ(f16(std::ldexp(1.0, -140)), 0.0) << "fp32 subnormal";
  EXPECT_TRUE(std::signbit(roundOperand(-0.0f, OperandRounding::F16)));
}

}  // namespace
}  // namespace reference
}  // namespace aclcpu
