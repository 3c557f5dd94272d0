// The words paths of the forward operators: a bf16 or fp16 convolution whose
// input and output are dense reads the input and writes the output as the
// caller's 16-bit words (no fp32 copies): the AMX kernels (bf16 pairs, or
// fp16 as hi/lo pairs), and on AVX-512 the depthwise plane kernels and the
// blocked fp32 kernels (grouped layers, and every layer without AMX). Results must be the float64
// oracle's, and bit-identical to the fp32 path (the same problem with a padded output view, which
// is gathered and scattered); values the tiles cannot take exactly (inf, NaN, magnitudes below
// 2^-40) must reach the exact fp32 path, with the same bits.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/cpu/cpu_info.h"
#include "numerics_forward/forward_case.h"

namespace numerics {
namespace {

using aclcpu::kernels::Isa;

bool runs(Isa isa) { return aclcpu::kernels::activeIsa() >= isa; }
std::string skipReason(const char* path, const char* isa) {
  return std::string("the ") + path + " words path needs " + isa +
         "; this CPU (or ACLNN_CPU_ISA) runs " +
         aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
}

const DType kWordTypes[] = {DType::BF16, DType::F16};

ForwardCase wordsCase(DType type, Shape input, Shape weight, Shape output, int64_t stride,
                      int64_t pad, bool transposed) {
  ForwardCase c;
  c.inputShape = std::move(input);
  c.weightShape = std::move(weight);
  c.outputShape = std::move(output);
  c.transposed = transposed;
  c.stride = {stride, stride};
  c.padding = {pad, pad};
  c.dilation = {1, 1};
  c.outputPadding = {0, 0};
  c.inputType = c.weightType = c.biasType = c.outputType = type;
  return c;
}

// The kernel-layer job of a dense 2D case on words, to ask which path it takes.
aclcpu::kernels::ConvShape jobOf(const ForwardCase& c) {
  aclcpu::kernels::ConvShape s;
  const Shape& x = c.transposed ? c.outputShape : c.inputShape;
  const Shape& y = c.transposed ? c.inputShape : c.outputShape;
  s.batch = x[0];
  s.inChannels = x[1];
  s.outChannels = y[1];
  s.groups = c.groups;
  s.in[1] = x[2];
  s.in[2] = x[3];
  s.out[1] = y[2];
  s.out[2] = y[3];
  s.kernel[1] = c.weightShape[2];
  s.kernel[2] = c.weightShape[3];
  for (int d = 1; d < 3; ++d) {
    s.stride[d] = c.stride[d - 1];
    s.padBefore[d] = c.padding[d - 1];
  }
  const bool half = c.inputType == DType::F16;
  s.operands = half ? aclcpu::kernels::OperandValues::F16 : aclcpu::kernels::OperandValues::BF16;
  s.io = half ? aclcpu::kernels::ElementType::F16 : aclcpu::kernels::ElementType::BF16;
  return s;
}

bool takesWords(const ForwardCase& c) {
  return c.transposed ? aclcpu::kernels::backwardDataTakesWords(jobOf(c))
                      : aclcpu::kernels::forwardTakesWords(jobOf(c));
}

// Runs `c` on `t` and on a copy whose output is a padded view; "" when both
// succeed with the same output bits (unless the fp32 path runs another
// algorithm: `sameBits` false), the dense run has the same bytes with 2 and
// 3 threads and is the oracle's.
std::string compareWithFp32Path(const ForwardCase& c, ForwardTensors t, bool checkOracle,
                                bool sameBits = true) {
  ForwardTensors padded = t;
  Rng layoutRng(7);
  padded.output =
      HostTensor(c.outputType, makeLayout(c.outputShape, LayoutKind::OffsetPadded, layoutRng));
  const OpOutcome words = runForward(c, &t);
  const OpOutcome fp32 = runForward(c, &padded);
  if (!words.succeeded()) return "words path: " + words.describe();
  if (!fp32.succeeded()) return "fp32 path: " + fp32.describe();
  for (int64_t i = 0; sameBits && i < t.output.count(); ++i)
    if (t.output.bitsAt(i) != padded.output.bitsAt(i))
      return c.describe() + ": element " + std::to_string(i) + " differs between the paths";
  std::string damage = t.output.outOfViewDamage();
  if (!damage.empty()) return damage;
  for (int threads : {2, 3}) {
    ForwardTensors again = t;
    again.output = HostTensor(c.outputType, contiguousLayout(c.outputShape));
    RunOptions options;
    options.computeThreads = threads;
    const OpOutcome outcome = runForward(c, &again, options);
    aclcpu::setComputeThreadCount(0);
    if (!outcome.succeeded()) return outcome.describe();
    if (again.output.storage() != t.output.storage())
      return c.describe() + ": different bytes with " + std::to_string(threads) + " threads";
  }
  if (!checkOracle) return "";
  const ElementBounds expected =
      expectForward(c, t.input.dense(), t.weight.dense(), t.bias.dense());
  return compareOutput("output", t.output, expected);
}

ForwardCase grouped(ForwardCase c, int64_t groups) {
  c.groups = groups;
  return c;
}

std::vector<ForwardCase> denseCases(DType type) {
  return {
      wordsCase(type, {2, 32, 20, 20}, {48, 32, 3, 3}, {2, 48, 20, 20}, 1, 1, false),
      // Odd channel counts: a half-filled last word and partial output blocks.
      wordsCase(type, {3, 63, 12, 20}, {40, 63, 3, 3}, {3, 40, 12, 20}, 1, 1, false),
      wordsCase(type, {2, 64, 21, 21}, {24, 64, 3, 3}, {2, 24, 11, 11}, 2, 1, false),
      // Transposed: (10 - 1) * 2 - 2 + 4 = 20.
      wordsCase(type, {2, 32, 10, 10}, {32, 24, 4, 4}, {2, 24, 20, 20}, 2, 1, true),
      // Grouped: 8 channels per group (interleaved lanes), 32 per group.
      grouped(wordsCase(type, {2, 64, 13, 17}, {64, 8, 3, 3}, {2, 64, 13, 17}, 1, 1, false), 8),
      grouped(wordsCase(type, {2, 64, 12, 12}, {32, 32, 3, 3}, {2, 32, 12, 12}, 1, 1, false), 2),
  };
}

TEST(Words, DenseForwardMatchesTheOracleAndTheFp32PathBitForBit) {
  if (!runs(Isa::Avx512)) GTEST_SKIP() << skipReason("dense", "AVX-512");
  Rng rng(0xB16B16);
  for (DType type : kWordTypes) {
    std::vector<ForwardCase> cases = denseCases(type);
    // Pointwise: the bf16 tiles take it only on words (the fp32 path runs a
    // GEMM, whose sums are in another order); without AMX both run the GEMM.
    if (type == DType::BF16 && runs(Isa::Amx))
      cases.push_back(
          wordsCase(type, {2, 64, 14, 18}, {48, 64, 1, 1}, {2, 48, 14, 18}, 1, 0, false));
    for (ForwardCase c : cases) {
      ASSERT_TRUE(takesWords(c)) << c.describe();
      for (bool bias : {true, false}) {
        c.hasBias = bias;
        const bool pointwise = c.weightShape[2] == 1 && c.weightShape[3] == 1;
        const std::string problem = compareWithFp32Path(c, makeForwardTensors(c, rng, false),
                                                        /*checkOracle=*/true, !pointwise);
        EXPECT_EQ(problem, "") << c.describe() << (bias ? " with bias" : " without bias");
      }
    }
  }
}

// Depthwise layers run the plane algorithm on the words: exact fp32
// products, so no value needs another path.
TEST(Words, DepthwiseForwardMatchesTheOracleAndTheFp32PathBitForBit) {
  if (!runs(Isa::Avx512)) GTEST_SKIP() << skipReason("depthwise", "AVX-512");
  Rng rng(0xD3B16);
  for (DType type : kWordTypes) {
    ForwardCase conv =
        wordsCase(type, {2, 24, 19, 37}, {24, 1, 3, 3}, {2, 24, 19, 37}, 1, 1, false);
    conv.groups = 24;
    ForwardCase strided =
        wordsCase(type, {3, 16, 20, 21}, {16, 1, 5, 5}, {3, 16, 10, 21}, 1, 2, false);
    strided.groups = 16;
    strided.stride = {2, 1};
    ForwardCase depthwise2d = conv;
    depthwise2d.op = ForwardOp::Depthwise2d;
    for (ForwardCase c : {conv, strided, depthwise2d}) {
      ASSERT_TRUE(takesWords(c)) << c.describe();
      for (bool bias : {true, false}) {
        c.hasBias = bias;
        const std::string problem =
            compareWithFp32Path(c, makeForwardTensors(c, rng, false), /*checkOracle=*/true);
        EXPECT_EQ(problem, "") << c.describe() << (bias ? " with bias" : " without bias");
      }
    }
    // Values the tiles could not take: the plane kernels' products are exact.
    ForwardCase special = conv;
    special.hasBias = false;
    std::vector<double> values = {static_cast<double>(INFINITY), NAN};
    if (type == DType::BF16) values.push_back(std::ldexp(1.0, -130));
    for (double v : values) {
      Rng again(0x5EED);
      ForwardTensors t = makeForwardTensors(special, again, false);
      t.input.set(t.input.count() / 2 + 5, v);
      EXPECT_EQ(compareWithFp32Path(special, t, /*checkOracle=*/std::isfinite(v)), "")
          << special.describe() << ", input value " << v;
    }
  }
}

TEST(Words, ValuesTheTilesCannotTakeGoToTheExactPath) {
  if (!runs(Isa::Amx)) GTEST_SKIP() << skipReason("dense", "AMX");
  for (DType type : kWordTypes) {
    ForwardCase c = denseCases(type)[0];
    c.hasBias = false;
    // One non-zero input among zeros, so that its products are the outputs:
    // 2^-130 is a bf16 subnormal, which the tiles read as zero (an output of
    // 0 instead of the exact subnormal product); 2^-100 is below the 2^-40
    // limit of the tile path; an infinity and a NaN (fp16 has only those).
    std::vector<double> values = {static_cast<double>(INFINITY), NAN};
    if (type == DType::BF16) {
      values.push_back(std::ldexp(1.0, -130));
      values.push_back(std::ldexp(1.0, -100));
    }
    for (double v : values) {
      Rng rng(0x5EED);
      ForwardTensors t = makeForwardTensors(c, rng, false);
      t.input.setDense(std::vector<double>(static_cast<size_t>(t.input.count()), 0.0));
      t.input.set(t.input.count() / 2 + 5, v);
      const std::string problem = compareWithFp32Path(c, t, /*checkOracle=*/std::isfinite(v));
      EXPECT_EQ(problem, "") << c.describe() << ", input value " << v;
    }
  }
}

}  // namespace
}  // namespace numerics
