// The bf16 hardware algorithms' (AMX, AVX512-BF16) own promises, beyond the registry tester's
// reference checks (conv_algorithm_test.cpp):
//   - the hi/lo split of fp16 and HF32 values is exact and made of bf16s;
//   - which values the bf16 hardware would not take exactly (bf16Unsafe);
//   - data holding such a value runs the fp32 algorithm instead, bit for bit,
//     chosen by bit pattern: a bf16 subnormal, a value below 2^-40, +-inf,
//     NaN, in either operand;
//   - ordinary data does run on the bf16 hardware (its sums differ in order from
//     the fp32 algorithm's somewhere), and data right at the 2^-40 bound
//     still matches the float64 reference: nothing is flushed to zero.
// Each test runs once per bf16 ISA level (Levels/Bf16Hardware.X/amx and
// .../avx512_bf16) on the entries of that level, and is skipped, visibly, on
// CPUs without it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/convert/convert.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels_conv/conv_test_support.h"
#include "support/fault_after_buffer.h"

namespace aclcpu {
namespace kernels {
namespace {

using namespace conv_test;  // NOLINT: the shared reference and scratch helpers
using blocked::bf16Unsafe;
using blocked::bitsOf;
using blocked::floatOf;

float fromBits(uint32_t b) { return floatOf(b); }

TEST(Bf16Words, HiLoSplitOfFp16AndHf32ValuesIsExact) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-26, 14);  // fp16's range, subnormals too
  for (Rounding r : {Rounding::F16, Rounding::HF32}) {
    for (int i = 0; i < 200000; ++i) {
      const float v = roundFloat(std::ldexp(mantissa(rng), exponent(rng)), r);
      if (!std::isfinite(v)) continue;
      const uint32_t word = blocked::hiLoWord(v), swapped = blocked::loHiWord(v);
      const float hi = fromBits(word << 16), lo = fromBits(word & 0xFFFF0000u);
      ASSERT_EQ(static_cast<double>(hi) + static_cast<double>(lo), static_cast<double>(v))
          << "hi/lo of " << v << " (bits " << std::hex << bitsOf(v) << ")";
      ASSERT_EQ(swapped, (word >> 16) | (word << 16));
      // A product of two such values is the exact sum of the four partial
      // products, each exact in fp32.
      const float u = roundFloat(std::ldexp(mantissa(rng), exponent(rng)), r);
      if (!std::isfinite(u)) continue;
      const uint32_t other = blocked::hiLoWord(u);
      const float uh = fromBits(other << 16), ul = fromBits(other & 0xFFFF0000u);
      const double parts[4] = {static_cast<double>(hi) * uh, static_cast<double>(hi) * ul,
                               static_cast<double>(lo) * uh, static_cast<double>(lo) * ul};
      for (double p : parts) ASSERT_EQ(static_cast<double>(static_cast<float>(p)), p);
      ASSERT_EQ(parts[0] + parts[1] + parts[2] + parts[3],
                static_cast<double>(v) * static_cast<double>(u));
    }
  }
}

TEST(Bf16Words, PairWordsPutTheEvenElementLow) {
  EXPECT_EQ(blocked::pairWord(1.0f, -2.0f), 0xC0003F80u);
  EXPECT_EQ(blocked::pairWord(0.0f, 0.0f), 0u);
}

TEST(Bf16Words, UnsafeValuesAreNonFiniteOrBelow2ToMinus40) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(bf16Unsafe(inf));
  EXPECT_TRUE(bf16Unsafe(-inf));
  EXPECT_TRUE(bf16Unsafe(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_TRUE(bf16Unsafe(fromBits(0x7F800001u)));  // a signalling NaN
  EXPECT_TRUE(bf16Unsafe(fromBits(0x00400000u)));  // 2^-127: a bf16 subnormal
  EXPECT_TRUE(bf16Unsafe(fromBits(0x80010000u)));  // -(a bf16 subnormal)
  EXPECT_TRUE(bf16Unsafe(std::ldexp(1.0f, -41)));
  EXPECT_TRUE(bf16Unsafe(-std::ldexp(1.5f, -50)));
  EXPECT_TRUE(bf16Unsafe(std::numeric_limits<float>::denorm_min()));
  EXPECT_FALSE(bf16Unsafe(0.0f));
  EXPECT_FALSE(bf16Unsafe(-0.0f));
  EXPECT_FALSE(bf16Unsafe(std::ldexp(1.0f, -40)));
  EXPECT_FALSE(bf16Unsafe(-std::ldexp(1.0f, -40)));
  EXPECT_FALSE(bf16Unsafe(1.0f));
  EXPECT_FALSE(bf16Unsafe(std::numeric_limits<float>::max()));
  EXPECT_FALSE(bf16Unsafe(std::ldexp(1.0f, -24)));  // the smallest fp16 subnormal
}

// ---------------------------------------------------------------------------
// The bf16 hardware entries on data chosen by bit pattern.

// A 3x3 layer, or (pointwise) a 1x1 one, for the pointwise entries; grouped:
// 8 groups of 8 channels (the NCHW plane entries); few channels: a 5x5/(1,2)
// stem of 3 channels, rows of two position tiles and a partial third (the
// few-channel tile entries).
ConvShape shapeFor(OperandValues operands, bool pointwise, bool grouped = false,
                   bool fewChannels = false) {
  ConvShape s;
  s.batch = 2;
  s.inChannels = 62;  // partial blocks in every direction
  s.outChannels = 46;
  s.in[1] = 9;
  s.in[2] = 11;
  s.kernel[1] = s.kernel[2] = 3;
  s.padBefore[1] = s.padBefore[2] = 1;
  s.out[1] = 9;
  s.out[2] = 11;
  if (pointwise) {
    s.kernel[1] = s.kernel[2] = 1;
    s.padBefore[1] = s.padBefore[2] = 0;
  }
  if (grouped) s.inChannels = s.outChannels = 64, s.groups = 8;
  if (fewChannels) {
    s.inChannels = 3;
    s.in[2] = 70;
    s.out[2] = 35;
    s.kernel[1] = s.kernel[2] = 5;
    s.stride[2] = 2;
    s.padBefore[1] = s.padBefore[2] = 2;
  }
  s.operands = operands;
  return s;
}

int64_t countOf(ConvPass pass, const ConvShape& s, int operand) {
  switch (pass) {
    case ConvPass::Forward:
      return operand == 0 ? xCount(s) : wCount(s);
    case ConvPass::BackwardData:
      return operand == 0 ? yCount(s) : wCount(s);
    case ConvPass::BackwardWeight:
      return operand == 0 ? xCount(s) : yCount(s);
  }
  return 0;
}
int64_t outputCountOf(ConvPass pass, const ConvShape& s) {
  return pass == ConvPass::Forward        ? yCount(s)
         : pass == ConvPass::BackwardData ? xCount(s)
                                          : wCount(s);
}

std::vector<float> run(const ConvAlgorithm& a, const ConvShape& s, const std::vector<float>& x,
                       const std::vector<float>& y) {
  std::vector<float> out = poisoned(outputCountOf(a.pass, s));
  Scratch scratch(a.scratchBytes(s), 0xff);
  a.run(s, x.data(), y.data(), out.data(), scratch.get());
  EXPECT_TRUE(scratch.guardsIntact()) << a.name;
  return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> values(int64_t count, Rounding r, std::mt19937& rng) {
  std::vector<float> v = randomValues(count, rng);
  for (float& e : v) e = roundFloat(e, r);
  return v;
}

// The float64 reference of pass `pass` on operands v0, v1.
Reference referenceOf(ConvPass pass, const ConvShape& s, const std::vector<float>& v0,
                      const std::vector<float>& v1) {
  return pass == ConvPass::Forward        ? referenceForward(s, v0, v1)
         : pass == ConvPass::BackwardData ? referenceBackwardData(s, v0, v1)
                                          : referenceBackwardWeight(s, v0, v1);
}

// Runs entry `a` on random bf16 data of shape s: against the float64
// reference at 1 thread, then the same bits at 2 and 3 threads.
void expectReferenceAtEveryThreadCount(const ConvAlgorithm& a, const ConvShape& s,
                                       std::mt19937& rng, Rounding rounding = Rounding::BF16) {
  const std::vector<float> v0 = values(countOf(a.pass, s, 0), rounding, rng);
  const std::vector<float> v1 = values(countOf(a.pass, s, 1), rounding, rng);
  const Reference ref = referenceOf(a.pass, s, v0, v1);
  setComputeThreadCount(1);
  const std::vector<float> one = run(a, s, v0, v1);
  EXPECT_TRUE(closeTo(ref, one, a.name));
  for (int threads : {2, 3}) {
    setComputeThreadCount(threads);
    EXPECT_TRUE(sameBits(run(a, s, v0, v1), one)) << a.name << " at " << threads << " threads";
  }
}

struct HardwareCase {
  const ConvAlgorithm* bf16;
  const ConvAlgorithm* fp32;
  ConvShape shape;
  Rounding rounding;
};

// The bf16 entries of level `isa`.
bool isBf16Entry(const ConvAlgorithm& a, Isa isa) {
  return a.minimumIsa == isa && std::string(a.name).rfind("bf16", 0) == 0;
}

// The bf16 pointwise entries of level `isa` that take s.
std::vector<const ConvAlgorithm*> pointwiseEntries(Isa isa, const ConvShape& s) {
  std::vector<const ConvAlgorithm*> entries;
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    if (isBf16Entry(a, isa) && a.accepts(s) &&
        std::string(a.name).find("pointwise") != std::string::npos)
      entries.push_back(&a);
  }
  return entries;
}

// Every bf16 entry of level `isa` with the fp32 algorithm it falls back on.
std::vector<HardwareCase> hardwareCases(Isa isa) {
  std::vector<HardwareCase> cases;
  const struct {
    OperandValues values;
    Rounding rounding;
  } kinds[] = {{OperandValues::BF16, Rounding::BF16},
               {OperandValues::F16, Rounding::F16},
               {OperandValues::HF32, Rounding::HF32}};
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    if (!isBf16Entry(a, isa)) continue;
    for (const auto& kind : kinds) {
      for (int variant = 0; variant < 4; ++variant) {
        ConvShape s = shapeFor(kind.values, variant == 1, variant == 2, variant == 3);
        // Some entries take fp16 operands only as the caller's half tensors.
        if (!a.accepts(s) && kind.values == OperandValues::F16) s.io = ElementType::F16;
        if (!a.accepts(s)) continue;
        ConvShape f = s;
        f.operands = OperandValues::F32;
        cases.push_back({&a, &selectConvAlgorithm(a.pass, f, Isa::Avx512Bf16), s, kind.rounding});
      }
    }
  }
  return cases;
}

class Bf16Hardware : public ::testing::TestWithParam<Isa> {
 protected:
  void SetUp() override {
    if (detectedIsa() < GetParam())
      GTEST_SKIP() << isaName(GetParam()) << " path not run: this CPU (or OS) offers "
                   << isaName(detectedIsa());
    ASSERT_FALSE(hardwareCases(GetParam()).empty()) << "no bf16 entry at " << isaName(GetParam());
  }
  Restore restore_;
};

TEST_P(Bf16Hardware, EveryEntryIsCovered) {
  const std::vector<HardwareCase> cases = hardwareCases(GetParam());
  for (int i = 0; i < convAlgorithmCount(); ++i) {
    const ConvAlgorithm& a = convAlgorithmAt(i);
    if (!isBf16Entry(a, GetParam())) continue;
    // bf16x2 entries take fp16 and HF32 operands (the pointwise one fp16
    // only), the others bf16.
    const std::string name = a.name;
    const bool split = name.rfind("bf16x2_", 0) == 0;
    const bool pointwise = name.find("pointwise") != std::string::npos;
    for (Rounding r : {Rounding::BF16, Rounding::F16, Rounding::HF32}) {
      bool covered = false;
      for (const HardwareCase& c : cases) covered = covered || (c.bf16 == &a && c.rounding == r);
      const bool expected =
          split ? r == Rounding::F16 || (r == Rounding::HF32 && !pointwise) : r == Rounding::BF16;
      EXPECT_EQ(covered, expected) << a.name << " with rounding " << static_cast<int>(r);
    }
  }
}

TEST_P(Bf16Hardware, UnsafeValuesRunTheFp32AlgorithmBitForBit) {
  const uint32_t patterns[] = {0x00400000u /* bf16 subnormal 2^-127 */,
                               0x80010000u /* negative bf16 subnormal */,
                               0x2B000000u /* 2^-41 */,
                               0x7F800000u /* +inf */,
                               0xFF800000u /* -inf */,
                               0x7FC00000u /* NaN */};
  std::mt19937 rng(11);
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    for (int operand = 0; operand < 2; ++operand) {
      for (uint32_t bits : patterns) {
        std::vector<float> v[2] = {values(countOf(c.bf16->pass, c.shape, 0), c.rounding, rng),
                                   values(countOf(c.bf16->pass, c.shape, 1), c.rounding, rng)};
        std::vector<float>& target = v[operand];
        target[target.size() / 3] = fromBits(bits);
        ConvShape f = c.shape;
        f.operands = OperandValues::F32;
        const std::vector<float> fromBf16 = run(*c.bf16, c.shape, v[0], v[1]);
        const std::vector<float> fromFp32 = run(*c.fp32, f, v[0], v[1]);
        EXPECT_TRUE(sameBits(fromBf16, fromFp32))
            << c.bf16->name << " on " << describe(c.shape) << " with 0x" << std::hex << bits
            << " in operand " << operand << ": not the result of " << c.fp32->name;
      }
    }
  }
}

// Raw HF32 inputs (rounded by the entry as it stages them) holding a value
// the bf16 hardware would not take: the fp32 algorithm runs instead, on the rounded
// values, bit for bit the fp32 algorithm on rounded copies.
TEST_P(Bf16Hardware, UnsafeRawHf32InputsRunTheFp32AlgorithmOnRoundedValues) {
  if (GetParam() != Isa::Amx) GTEST_SKIP() << "HF32 operands run the fp32 kernels at this level";
  const uint32_t patterns[] = {0x00400000u, 0x2B000000u, 0x7F800000u, 0x7FC00000u};
  std::mt19937 rng(17);
  int checked = 0;
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    if (c.rounding != Rounding::HF32 || !c.bf16->roundsHf32Inputs) continue;
    const bool weightPass = c.bf16->pass == ConvPass::BackwardWeight;
    for (uint32_t bits : patterns) {
      ++checked;
      // Raw values (not HF32) for the inputs; the weights are operand values.
      std::vector<float> raw[2] = {randomValues(countOf(c.bf16->pass, c.shape, 0), rng),
                                   values(countOf(c.bf16->pass, c.shape, 1), Rounding::HF32, rng)};
      if (weightPass) raw[1] = randomValues(countOf(c.bf16->pass, c.shape, 1), rng);
      raw[0][raw[0].size() / 3] = fromBits(bits);
      std::vector<float> copies[2] = {raw[0], raw[1]};
      for (auto& v : copies)
        for (float& e : v) e = roundFloat(e, Rounding::HF32);
      ConvShape s = c.shape;
      s.inputRounding = Rounding::HF32;
      ConvShape f = c.shape;
      f.operands = OperandValues::F32;
      EXPECT_TRUE(sameBits(run(*c.bf16, s, raw[0], raw[1]), run(*c.fp32, f, copies[0], copies[1])))
          << c.bf16->name << " with 0x" << std::hex << bits;
    }
  }
  EXPECT_GE(checked, 12);  // forward, data and weight gradient
}

// The words runs (the caller's bf16 tensors): the fp32 run's bits rounded
// to bf16 once, and a refusal (false) when the activation holds a value the
// bf16 hardware would not take exactly, which they check on the words themselves.
TEST_P(Bf16Hardware, WordsRunsRoundTheFloatRunAndRefuseUnsafeWords) {
  const uint32_t patterns[] = {0x00400000u, 0x80010000u, 0x2B000000u, 0x7F800000u, 0x7FC00000u};
  std::mt19937 rng(14);
  int checked = 0;
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    ConvShape s = c.shape;
    const bool half = c.rounding == Rounding::F16;
    s.io = half ? ElementType::F16 : ElementType::BF16;
    if (c.rounding == Rounding::HF32 || !c.bf16->runWords || !c.bf16->acceptsWords(s)) continue;
    ++checked;
    const std::vector<float> a = values(countOf(c.bf16->pass, s, 0), c.rounding, rng);
    const std::vector<float> w = values(countOf(c.bf16->pass, s, 1), c.rounding, rng);
    const std::vector<float> expected = run(*c.bf16, c.shape, a, w);
    const auto word = [&](float v) { return half ? floatToHalf(v) : floatToBf16(v); };
    std::vector<uint16_t> words(a.size());
    for (size_t i = 0; i < a.size(); ++i) words[i] = word(a[i]);
    std::vector<uint16_t> out(expected.size(), 0xFFFF);
    Scratch scratch(c.bf16->scratchBytes(s), 0xff);
    ASSERT_TRUE(c.bf16->runWords(s, words.data(), w.data(), nullptr, out.data(), scratch.get()))
        << c.bf16->name << " refused ordinary data";
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out[i], word(expected[i])) << c.bf16->name << " output " << i;
    // Half words cannot hold values below 2^-40 or bf16 subnormals: only
    // the non-finite patterns apply.
    for (uint32_t bits : patterns) {
      const float v = fromBits(bits);
      if (half && std::isfinite(v)) continue;
      std::vector<uint16_t> bad = words;
      bad[bad.size() / 3] = half ? floatToHalf(v) : static_cast<uint16_t>(bits >> 16);
      EXPECT_FALSE(c.bf16->runWords(s, bad.data(), w.data(), nullptr, out.data(), scratch.get()))
          << c.bf16->name << " took 0x" << std::hex << bits;
    }
    EXPECT_TRUE(scratch.guardsIntact()) << c.bf16->name;
  }
  // Forward and data gradient: direct and pointwise bf16; AMX also fp16.
  EXPECT_GE(checked, GetParam() == Isa::Amx ? 6 : 4);
}

// A subnormal bias on zero data: every bf16 words output is the bias rounded
// by the scalar rule, subnormal kept (VCVTNE2PS2BF16, which the AMX stores
// use for speed, would flush it to zero).
TEST_P(Bf16Hardware, WordsRunsKeepASubnormalBias) {
  std::mt19937 rng(17);
  int checked = 0;
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    ConvShape s = c.shape;
    s.io = ElementType::BF16;
    if (c.rounding != Rounding::BF16 || !c.bf16->runWords || !c.bf16->acceptsWords(s)) continue;
    ++checked;
    const std::vector<uint16_t> zeros(countOf(c.bf16->pass, s, 0), 0);
    const std::vector<float> w = values(countOf(c.bf16->pass, s, 1), Rounding::BF16, rng);
    const int64_t channels = c.bf16->pass == ConvPass::Forward ? s.outChannels : s.inChannels;
    std::vector<float> bias(channels);
    for (int64_t o = 0; o < channels; ++o)
      bias[o] =
          fromBits(static_cast<uint32_t>(0x00010000u * (o % 5 + 1)) | (o % 2 ? 0x80000000u : 0u));
    std::vector<uint16_t> out(outputCountOf(c.bf16->pass, s), 0xFFFF);
    Scratch scratch(c.bf16->scratchBytes(s), 0xff);
    ASSERT_TRUE(c.bf16->runWords(s, zeros.data(), w.data(), bias.data(), out.data(), scratch.get()))
        << c.bf16->name;
    const int64_t plane = static_cast<int64_t>(out.size()) / (s.batch * channels);
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t o = static_cast<int64_t>(i) / plane % channels;
      ASSERT_EQ(out[i], floatToBf16(bias[o])) << c.bf16->name << " output " << i;
    }
    EXPECT_TRUE(scratch.guardsIntact()) << c.bf16->name;
  }
  EXPECT_GE(checked, 2);
}

// The runs that read the weights as the caller's bf16 words too: the words
// run's bits on the same weights as fp32 (weights whose last word ends the
// buffer, so the packer's guard against reading past it runs), and a
// refusal for an unsafe weight word.
TEST_P(Bf16Hardware, AllWordsRunsMatchTheWordsRunsAndRefuseUnsafeWeights) {
  const uint32_t patterns[] = {0x00400000u, 0x2B000000u, 0x7F800000u, 0x7FC00000u};
  std::mt19937 rng(16);
  int checked = 0;
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    // Whole channel blocks too: their weights are packed from runs of w,
    // which then include the tensor's last word.
    ConvShape whole = c.shape;
    whole.inChannels = whole.outChannels = 64;
    for (ConvShape s : {c.shape, whole}) {
      s.io = ElementType::BF16;
      if (c.rounding != Rounding::BF16 || !c.bf16->runAllWords || !c.bf16->acceptsWords(s))
        continue;
      ++checked;
      const std::vector<float> a = values(countOf(c.bf16->pass, s, 0), c.rounding, rng);
      const std::vector<float> w = values(countOf(c.bf16->pass, s, 1), c.rounding, rng);
      std::vector<uint16_t> words, weightWords;
      for (float v : a) words.push_back(floatToBf16(v));
      for (float v : w) weightWords.push_back(floatToBf16(v));
      Scratch scratch(c.bf16->scratchBytes(s), 0xff);
      const int64_t outputs = c.bf16->pass == ConvPass::Forward ? yCount(s) : xCount(s);
      std::vector<uint16_t> expected(static_cast<size_t>(outputs), 0xFFFF);
      std::vector<uint16_t> got(expected.size(), 0xFFFF);
      ASSERT_TRUE(
          c.bf16->runWords(s, words.data(), w.data(), nullptr, expected.data(), scratch.get()));
      // The weights ending where an inaccessible page begins: the packer's
      // 32-bit gathers must not read past the tensor's last word.
      test_support::FaultAfterBuffer<uint16_t> exact(weightWords);
      ASSERT_TRUE(exact.ok());
      ASSERT_TRUE(
          c.bf16->runAllWords(s, words.data(), exact.data(), nullptr, got.data(), scratch.get()))
          << c.bf16->name << " refused ordinary data";
      EXPECT_EQ(got, expected) << c.bf16->name;
      for (size_t at : {weightWords.size() / 3, weightWords.size() - 1}) {
        for (uint32_t bits : patterns) {
          std::copy(weightWords.begin(), weightWords.end(), exact.data());
          exact[at] = static_cast<uint16_t>(bits >> 16);
          EXPECT_FALSE(c.bf16->runAllWords(s, words.data(), exact.data(), nullptr, got.data(),
                                           scratch.get()))
              << c.bf16->name << " took 0x" << std::hex << bits << " at weight " << std::dec << at;
        }
      }
      // fp16 words go the runWords way.
      ConvShape half = s;
      half.io = ElementType::F16;
      EXPECT_FALSE(c.bf16->runAllWords(half, words.data(), exact.data(), nullptr, got.data(),
                                       scratch.get()));
      EXPECT_TRUE(scratch.guardsIntact()) << c.bf16->name;
    }
  }
  EXPECT_GE(checked, 4);  // forward and data gradient (direct entries), two shapes each
}

// The same for the weight gradients' words runs: dw in fp32, the fp32 run's
// bits; unsafe words in either x or dy refused.
TEST_P(Bf16Hardware, WeightWordsRunsMatchTheFloatRunAndRefuseUnsafeWords) {
  const uint32_t patterns[] = {0x00400000u, 0x2B000000u, 0xFF800000u, 0x7FC00000u};
  std::mt19937 rng(15);
  int checked = 0, evenRows = 0;
  std::vector<HardwareCase> cases = hardwareCases(GetParam());
  // The same entries with staged rows of an even length (x rows of 12
  // positions, 11 outputs per row: a kernel width of 2, no W padding),
  // which the words staging turns into pair rows directly.
  // And pointwise layers with whole 16-channel blocks, whose x the
  // AVX512-BF16 pass reads in place for every image but the last (63
  // positions per plane: the last K step of a plane reads into the next).
  int inPlace = 0;
  for (size_t i = 0, n = cases.size(); i < n; ++i) {
    HardwareCase e = cases[i];
    if (e.shape.kernel[2] == 1) {
      e.shape.batch = 3;
      e.shape.inChannels = 32;
      e.shape.in[1] = e.shape.out[1] = 9;
      e.shape.in[2] = e.shape.out[2] = 7;
      cases.push_back(e);
      continue;
    }
    if (e.shape.kernel[2] != 3) continue;
    e.shape.in[2] = 12;
    e.shape.kernel[2] = 2;
    e.shape.padBefore[2] = 0;
    e.shape.out[2] = 11;
    cases.push_back(e);
  }
  for (const HardwareCase& c : cases) {
    ConvShape s = c.shape;
    s.io = ElementType::BF16;
    if (c.rounding != Rounding::BF16 || !c.bf16->runWeightWords || !c.bf16->acceptsWords(s))
      continue;
    ++checked;
    if (s.kernel[2] == 2) ++evenRows;
    if (s.kernel[2] == 1 && s.inChannels == 32) ++inPlace;
    std::vector<float> v[2] = {values(countOf(c.bf16->pass, s, 0), c.rounding, rng),
                               values(countOf(c.bf16->pass, s, 1), c.rounding, rng)};
    const std::vector<float> expected = run(*c.bf16, c.shape, v[0], v[1]);
    std::vector<uint16_t> words[2];
    for (int k = 0; k < 2; ++k)
      for (float e : v[k]) words[k].push_back(floatToBf16(e));
    std::vector<float> dw = poisoned(static_cast<int64_t>(expected.size()));
    Scratch scratch(c.bf16->scratchBytes(s), 0xff);
    ASSERT_TRUE(
        c.bf16->runWeightWords(s, words[0].data(), words[1].data(), dw.data(), scratch.get()))
        << c.bf16->name << " refused ordinary data";
    EXPECT_TRUE(sameBits(dw, expected)) << c.bf16->name;
    // An unsafe word in an image read in place and in the last one.
    for (int k = 0; k < 2; ++k)
      for (uint32_t bits : patterns)
        for (size_t at : {words[k].size() / 3, words[k].size() - 1}) {
          std::vector<uint16_t> bad[2] = {words[0], words[1]};
          bad[k][at] = static_cast<uint16_t>(bits >> 16);
          EXPECT_FALSE(
              c.bf16->runWeightWords(s, bad[0].data(), bad[1].data(), dw.data(), scratch.get()))
              << c.bf16->name << " took 0x" << std::hex << bits << " in operand " << k << " at "
              << std::dec << at;
        }
    EXPECT_TRUE(scratch.guardsIntact()) << c.bf16->name;
  }
  EXPECT_GE(checked, 2);  // AMX: direct and pointwise; AVX512-BF16: direct on both shapes
  EXPECT_GE(evenRows, 1);
  EXPECT_GE(inPlace, 1);
}

// Long reductions: the pointwise weight gradient in several chunks of
// several step blocks each (partials accumulated through memory, chunks
// added in order), and the other pointwise passes over many buffers of
// panels (bf16: 16 panels a buffer, fp16 hi/lo words 10; the last buffer of
// an image and its last panel partial); against the float64 reference, the
// same bits for 1, 2 and 3 threads.
TEST_P(Bf16Hardware, PointwisePassesOverLongReductions) {
  ConvShape s;
  s.batch = 2;
  s.inChannels = 40;
  s.outChannels = 36;
  s.in[2] = s.out[2] = 9000;  // 282 steps of 32 positions per image: 16 chunks of 2 blocks
  std::mt19937 rng(16);
  for (OperandValues operands : {OperandValues::BF16, OperandValues::F16}) {
    s.operands = operands;
    const bool pairs = operands == OperandValues::BF16;
    s.io = pairs ? ElementType::F32 : ElementType::F16;  // fp16 entries: half tensors only
    const std::vector<const ConvAlgorithm*> entries = pointwiseEntries(GetParam(), s);
    for (const ConvAlgorithm* a : entries)
      expectReferenceAtEveryThreadCount(*a, s, rng, pairs ? Rounding::BF16 : Rounding::F16);
    // bf16: forward, data and (AMX) weight gradient; with AVX512-BF16 the
    // blocked weight gradient takes pointwise layers. fp16 (AMX only):
    // forward and data.
    EXPECT_EQ(entries.size(),
              pairs ? (GetParam() == Isa::Amx ? 3u : 2u) : (GetParam() == Isa::Amx ? 2u : 0u))
        << static_cast<int>(operands);
  }
}

// Row passes with more taps than one kernel call covers: a 3x3x3 layer of
// 60 -> 58 channels (two reduction blocks of 27 taps, partial blocks),
// whose calls end between the taps of a block on AMX (20 KB of weights, 10
// taps, per call), and a 1D k7 layer with rows longer than the position
// tiles; against the float64 reference, the same bits for 1, 2 and 3
// threads.
TEST_P(Bf16Hardware, RowPassesOverManyTaps) {
  ConvShape cube;
  cube.batch = 2;
  cube.inChannels = 60;
  cube.outChannels = 58;
  for (int d = 0; d < 3; ++d) {
    cube.in[d] = cube.out[d] = 7 + d;
    cube.kernel[d] = 3;
    cube.padBefore[d] = 1;
  }
  ConvShape line;
  line.batch = 3;
  line.inChannels = 94;
  line.outChannels = 90;
  line.in[2] = 301;
  line.kernel[2] = 7;
  line.padBefore[2] = 2;
  line.out[2] = 301 + 4 - 6;
  std::mt19937 rng(19);
  int ran = 0;
  for (ConvShape s : {cube, line}) {
    s.operands = OperandValues::BF16;
    for (int i = 0; i < convAlgorithmCount(); ++i) {
      const ConvAlgorithm& a = convAlgorithmAt(i);
      if (!isBf16Entry(a, GetParam()) || !a.accepts(s) || a.pass == ConvPass::BackwardWeight)
        continue;
      ++ran;
      expectReferenceAtEveryThreadCount(a, s, rng);
    }
  }
  EXPECT_EQ(ran, 4);  // forward and data gradient of both layers
}

// The VDPBF16PS row kernels take each input word either from memory in
// every instruction or from a register broadcast once (chosen by the CPU,
// bf16WordsBroadcastFromMemory): both forms on a layer of each input step
// (3x3 stride 1 and 2) and output-block count (64 -> 58 and 64 -> 16),
// against the float64 reference and bit for bit alike.
TEST_P(Bf16Hardware, RowKernelsBroadcastWordsEitherWay) {
  if (GetParam() != Isa::Avx512Bf16) GTEST_SKIP() << "the VDPBF16PS row kernels only";
  std::mt19937 rng(23);
  int ran = 0;
  for (int variant = 0; variant < 3; ++variant) {
    ConvShape s;
    s.batch = 2;
    s.inChannels = 64;
    s.outChannels = variant == 2 ? 16 : 58;
    const int64_t stride = variant == 1 ? 2 : 1;
    for (int d = 1; d < 3; ++d) {
      s.in[d] = 19 + d;
      s.kernel[d] = 3;
      s.padBefore[d] = 1;
      s.stride[d] = stride;
      s.out[d] = (s.in[d] + 2 - 3) / stride + 1;
    }
    s.operands = OperandValues::BF16;
    for (int i = 0; i < convAlgorithmCount(); ++i) {
      const ConvAlgorithm& a = convAlgorithmAt(i);
      if (!isBf16Entry(a, GetParam()) || !a.accepts(s) ||
          std::string(a.name).find("direct") == std::string::npos ||
          a.pass == ConvPass::BackwardWeight)
        continue;
      const std::vector<float> v0 = values(countOf(a.pass, s, 0), Rounding::BF16, rng);
      const std::vector<float> v1 = values(countOf(a.pass, s, 1), Rounding::BF16, rng);
      const Reference ref = referenceOf(a.pass, s, v0, v1);
      forceBf16WordBroadcastForTesting(true);
      const std::vector<float> memory = run(a, s, v0, v1);
      forceBf16WordBroadcastForTesting(false);
      const std::vector<float> registers = run(a, s, v0, v1);
      EXPECT_TRUE(closeTo(ref, memory, a.name)) << describe(s);
      EXPECT_TRUE(sameBits(memory, registers)) << a.name << " on " << describe(s);
      ++ran;
    }
  }
  EXPECT_GE(ran, 5);  // forward of each layer, data gradient of the 58-channel ones
}

// Wide pointwise layers, where the packed weights (two tiles per step for
// hi/lo) are most of the workspace: results against float64, scratch guards
// intact (run() checks them).
TEST_P(Bf16Hardware, PointwiseWideLayersStayInTheirScratch) {
  std::mt19937 rng(18);
  int ran = 0;
  for (OperandValues kind : {OperandValues::BF16, OperandValues::F16}) {
    ConvShape s;
    s.inChannels = 512;
    s.outChannels = 480;
    s.in[2] = s.out[2] = 40;
    s.operands = kind;
    s.io = kind == OperandValues::BF16 ? ElementType::BF16 : ElementType::F16;
    const Rounding r = kind == OperandValues::BF16 ? Rounding::BF16 : Rounding::F16;
    for (const ConvAlgorithm* a : pointwiseEntries(GetParam(), s)) {
      ++ran;
      const std::vector<float> v0 = values(countOf(a->pass, s, 0), r, rng);
      const std::vector<float> v1 = values(countOf(a->pass, s, 1), r, rng);
      EXPECT_TRUE(closeTo(referenceOf(a->pass, s, v0, v1), run(*a, s, v0, v1), a->name));
    }
  }
  // bf16 forward, data; AMX: bf16 weight, fp16 forward, data.
  EXPECT_EQ(ran, GetParam() == Isa::Amx ? 5 : 2);
}

TEST_P(Bf16Hardware, OrdinaryDataRunsOnTheBf16Hardware) {
  std::mt19937 rng(12);
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    const std::vector<float> a = values(countOf(c.bf16->pass, c.shape, 0), c.rounding, rng);
    const std::vector<float> b = values(countOf(c.bf16->pass, c.shape, 1), c.rounding, rng);
    ConvShape f = c.shape;
    f.operands = OperandValues::F32;
    // TDPBF16PS and VDPBF16PS add pairs of products to the accumulator:
    // some sum rounds differently from the fp32 algorithm's FMA chain.
    EXPECT_FALSE(sameBits(run(*c.bf16, c.shape, a, b), run(*c.fp32, f, a, b)))
        << c.bf16->name << " gave exactly the fp32 algorithm's result: did it fall back?";
  }
}

TEST_P(Bf16Hardware, ValuesAtTheBoundAreNotFlushed) {
  // Magnitudes from 2^-40 up to 2^-28 (fp16: from its subnormals at 2^-24):
  // every product is far below 1 but inside fp32's normal range, so a flush
  // to zero anywhere would show against the float64 reference. The spread of
  // exponents makes the sums inexact, so the hardware's order shows too.
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> m(1.0f, 2.0f);
  std::uniform_int_distribution<int> spread(0, 12);
  std::bernoulli_distribution sign(0.5);
  for (const HardwareCase& c : hardwareCases(GetParam())) {
    const int bottom = c.rounding == Rounding::F16 ? -24 : -40;
    std::vector<float> v[2];
    for (int k = 0; k < 2; ++k) {
      v[k].resize(static_cast<size_t>(countOf(c.bf16->pass, c.shape, k)));
      for (float& e : v[k])
        e = roundFloat((sign(rng) ? -1.0f : 1.0f) * std::ldexp(m(rng), bottom + spread(rng)),
                       c.rounding);
    }
    const std::vector<float> got = run(*c.bf16, c.shape, v[0], v[1]);
    const Reference ref = c.bf16->pass == ConvPass::Forward ? referenceForward(c.shape, v[0], v[1])
                          : c.bf16->pass == ConvPass::BackwardData
                              ? referenceBackwardData(c.shape, v[0], v[1])
                              : referenceBackwardWeight(c.shape, v[0], v[1]);
    EXPECT_TRUE(closeTo(ref, got, c.bf16->name)) << describe(c.shape);
    ConvShape f = c.shape;
    f.operands = OperandValues::F32;
    EXPECT_FALSE(sameBits(got, run(*c.fp32, f, v[0], v[1]))) << c.bf16->name << " fell back";
  }
}

// Which level's bf16 kernels the registry picks: the VDPBF16PS entries only
// where the CPU issues VDPBF16PS at its FMA rate (AMD), the fp32 kernels on
// other CPUs at that level (no Restore here: nothing is forced).
TEST(Bf16Dispatch, Avx512Bf16EntriesRunOnlyWhereVdpbf16IsFast) {
  const bool fast = bf16DotAtFmaRate();
  std::printf("[ dispatch ] VDPBF16PS at the FMA rate on this CPU: %s\n", fast ? "yes" : "no");
  for (int variant = 0; variant < 3; ++variant) {
    const ConvShape s = shapeFor(OperandValues::BF16, variant == 1, variant == 2);
    for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData, ConvPass::BackwardWeight}) {
      // Grouped weight gradients keep the fp32 plane kernel at every level.
      if (variant == 2 && pass == ConvPass::BackwardWeight) continue;
      const std::string name = selectConvAlgorithm(pass, s, Isa::Avx512Bf16).name;
      const bool vdpbf16 =
          name.size() > 11 && name.compare(name.size() - 11, 11, "_avx512bf16") == 0;
      EXPECT_EQ(vdpbf16, fast) << name << " on " << describe(s);
      if (!fast) {
        EXPECT_EQ(name.rfind("f32_", 0), 0u) << name;
      }
    }
  }
}

// Depthwise bf16 layers keep the depthwise plane kernels at every level: a
// channel pair would be half zeros (the grouped VDPBF16PS entries refuse
// one channel per group).
TEST(Bf16Dispatch, DepthwiseLayersKeepTheDepthwisePlanes) {
  Restore restore;  // the VDPBF16PS entries count as fast
  ConvShape s = shapeFor(OperandValues::BF16, false);
  s.inChannels = s.outChannels = s.groups = 24;
  for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData}) {
    const std::string name = selectConvAlgorithm(pass, s, Isa::Avx512Bf16).name;
    EXPECT_EQ(name.rfind("f32_dwconv_", 0), 0u) << name;
  }
}

// The routes on AMX are decided by planning alone, so any CPU checks them:
// layers whose fp32 forward takes register tiles of four output blocks (64
// channels, rows of 48+ positions or W stride 2) go to the AMX word entries
// for every operand kind, whose planner caps its tiles at two blocks (HF32
// plans once got four, and wrong results, on AMX only).
TEST(Bf16Dispatch, AmxWordEntriesTakeLayersWithFourBlockFp32Tiles) {
  struct Layer {
    int64_t channels, width, kernel, stride, pad;
  };
  const Layer layers[] = {{64, 56, 3, 1, 1}, {128, 56, 3, 2, 1}, {64, 238, 1, 1, 1}};
  for (const Layer& l : layers) {
    ConvShape s;
    s.batch = 2;
    s.inChannels = s.outChannels = l.channels;
    s.in[1] = s.in[2] = l.width;
    s.kernel[1] = s.kernel[2] = l.kernel;
    s.stride[1] = s.stride[2] = l.stride;
    s.padBefore[1] = s.padBefore[2] = l.pad;
    for (int d = 1; d < 3; ++d)
      s.out[d] = (s.in[d] + 2 * s.padBefore[d] - s.kernel[d]) / s.stride[d] + 1;
    for (OperandValues v : {OperandValues::BF16, OperandValues::F16, OperandValues::HF32}) {
      s.operands = v;
      const std::string prefix = v == OperandValues::BF16 ? "bf16_conv_" : "bf16x2_conv_";
      for (ConvPass pass : {ConvPass::Forward, ConvPass::BackwardData}) {
        const std::string name = selectConvAlgorithm(pass, s, Isa::Amx).name;
        const std::string expected =
            prefix + (pass == ConvPass::Forward ? "fwd" : "bwdd") + "_direct_nw16_amx";
        EXPECT_EQ(name, expected) << describe(s);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, Bf16Hardware, ::testing::Values(Isa::Avx512Bf16, Isa::Amx),
                         [](const ::testing::TestParamInfo<Isa>& info) {
                           return std::string(isaName(info.param));
                         });

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
