// The bf16 words path of the forward operators: on AMX, a bf16 convolution
// whose input and output are dense reads the input and writes the output as
// the caller's bf16 words (no fp32 copies). Its results must be the float64
// oracle's, and bit-identical to the fp32 path (the same problem with a
// padded output view, which is gathered and scattered); values the tiles
// cannot take exactly (inf, NaN, magnitudes below 2^-40) must reach the exact
// fp32 path, with the same bits as there.

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/conv/conv_passes.h"
#include "kernels/cpu/cpu_info.h"
#include "numerics_forward/forward_case.h"

namespace numerics {
namespace {

using aclcpu::kernels::Isa;

bool amxRuns() { return aclcpu::kernels::activeIsa() >= Isa::Amx; }

ForwardCase bf16Case(Shape input, Shape weight, Shape output, int64_t stride, int64_t pad,
                     bool transposed) {
  ForwardCase c;
  c.inputShape = std::move(input);
  c.weightShape = std::move(weight);
  c.outputShape = std::move(output);
  c.transposed = transposed;
  c.stride = {stride, stride};
  c.padding = {pad, pad};
  c.dilation = {1, 1};
  c.outputPadding = {0, 0};
  c.inputType = c.weightType = c.biasType = c.outputType = DType::BF16;
  return c;
}

// The kernel-layer job of a 2D case, to ask which path it takes.
aclcpu::kernels::ConvShape jobOf(const ForwardCase& c) {
  aclcpu::kernels::ConvShape s;
  const Shape& x = c.transposed ? c.outputShape : c.inputShape;
  const Shape& y = c.transposed ? c.inputShape : c.outputShape;
  s.batch = x[0];
  s.inChannels = x[1];
  s.outChannels = y[1];
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
  s.operands = aclcpu::kernels::OperandValues::BF16;
  return s;
}

bool takesWords(const ForwardCase& c) {
  return c.transposed ? aclcpu::kernels::backwardDataTakesBf16Words(jobOf(c))
                      : aclcpu::kernels::forwardTakesBf16Words(jobOf(c));
}

// Runs `c` on `t` and on a copy whose output is a padded view; "" when both
// succeed with the same output bits and the dense run is the oracle's.
std::string compareWithFp32Path(const ForwardCase& c, ForwardTensors t, bool checkOracle) {
  ForwardTensors padded = t;
  Rng layoutRng(7);
  padded.output =
      HostTensor(c.outputType, makeLayout(c.outputShape, LayoutKind::OffsetPadded, layoutRng));
  const OpOutcome words = runForward(c, &t);
  const OpOutcome fp32 = runForward(c, &padded);
  if (!words.succeeded()) return "words path: " + words.describe();
  if (!fp32.succeeded()) return "fp32 path: " + fp32.describe();
  for (int64_t i = 0; i < t.output.count(); ++i)
    if (t.output.bitsAt(i) != padded.output.bitsAt(i))
      return c.describe() + ": element " + std::to_string(i) + " differs between the paths";
  std::string damage = t.output.outOfViewDamage();
  if (!damage.empty() || !checkOracle) return damage;
  const ElementBounds expected =
      expectForward(c, t.input.dense(), t.weight.dense(), t.bias.dense());
  return compareOutput("output", t.output, expected);
}

std::vector<ForwardCase> wordsCases() {
  return {
      bf16Case({2, 32, 20, 20}, {48, 32, 3, 3}, {2, 48, 20, 20}, 1, 1, false),
      // Odd channel counts: a half-filled last word and partial output blocks.
      bf16Case({3, 63, 12, 20}, {40, 63, 3, 3}, {3, 40, 12, 20}, 1, 1, false),
      bf16Case({2, 64, 21, 21}, {24, 64, 3, 3}, {2, 24, 11, 11}, 2, 1, false),
      // Transposed: (10 - 1) * 2 - 2 + 4 = 20.
      bf16Case({2, 32, 10, 10}, {32, 24, 4, 4}, {2, 24, 20, 20}, 2, 1, true),
  };
}

TEST(Bf16Words, ForwardMatchesTheOracleAndTheFp32PathBitForBit) {
  if (!amxRuns())
    GTEST_SKIP() << "the bf16 words path needs AMX; this CPU (or ACLNN_CPU_ISA) "
                 << "runs " << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  Rng rng(0xB16B16);
  for (ForwardCase c : wordsCases()) {
    ASSERT_TRUE(takesWords(c)) << c.describe();
    for (bool bias : {true, false}) {
      c.hasBias = bias;
      const std::string problem =
          compareWithFp32Path(c, makeForwardTensors(c, rng, false), /*checkOracle=*/true);
      EXPECT_EQ(problem, "") << c.describe() << (bias ? " with bias" : " without bias");
    }
  }
}

// Depthwise layers run the plane algorithm (AVX-512) on the words: exact
// fp32 products, so no value needs another path.
TEST(Bf16Words, DepthwiseForwardMatchesTheOracleAndTheFp32PathBitForBit) {
  if (aclcpu::kernels::activeIsa() < Isa::Avx512)
    GTEST_SKIP() << "the depthwise words path needs AVX-512; this CPU (or ACLNN_CPU_ISA) runs "
                 << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  Rng rng(0xD3B16);
  ForwardCase conv = bf16Case({2, 24, 19, 37}, {24, 1, 3, 3}, {2, 24, 19, 37}, 1, 1, false);
  conv.groups = 24;
  ForwardCase strided = bf16Case({3, 16, 20, 21}, {16, 1, 5, 5}, {3, 16, 10, 21}, 1, 2, false);
  strided.groups = 16;
  strided.stride = {2, 1};
  ForwardCase depthwise2d = conv;
  depthwise2d.op = ForwardOp::Depthwise2d;
  ForwardCase special = conv;
  for (ForwardCase c : {conv, strided, depthwise2d}) {
    for (bool bias : {true, false}) {
      c.hasBias = bias;
      const std::string problem =
          compareWithFp32Path(c, makeForwardTensors(c, rng, false), /*checkOracle=*/true);
      EXPECT_EQ(problem, "") << c.describe() << (bias ? " with bias" : " without bias");
    }
  }
  // Values the tiles could not take: the plane kernels' products are exact.
  special.hasBias = false;
  for (double v : {std::ldexp(1.0, -130), static_cast<double>(INFINITY)}) {
    Rng again(0x5EED);
    ForwardTensors t = makeForwardTensors(special, again, false);
    t.input.set(t.input.count() / 2 + 5, v);
    EXPECT_EQ(compareWithFp32Path(special, t, /*checkOracle=*/std::isfinite(v)), "")
        << "input value " << v;
  }
}

TEST(Bf16Words, ValuesTheTilesCannotTakeGoToTheExactPath) {
  if (!amxRuns())
    GTEST_SKIP() << "the bf16 words path needs AMX; this CPU (or ACLNN_CPU_ISA) "
                 << "runs " << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  ForwardCase c = wordsCases()[0];
  c.hasBias = false;
  // One non-zero input among zeros, so that its products are the outputs:
  // 2^-130 is a bf16 subnormal, which the tiles read as zero (an output of
  // 0 instead of the exact subnormal product); 2^-100 is below the 2^-40
  // limit of the tile path; an infinity and a NaN.
  const double values[] = {std::ldexp(1.0, -130), std::ldexp(1.0, -100), INFINITY, NAN};
  for (double v : values) {
    Rng rng(0x5EED);
    ForwardTensors t = makeForwardTensors(c, rng, false);
    t.input.setDense(std::vector<double>(static_cast<size_t>(t.input.count()), 0.0));
    t.input.set(t.input.count() / 2 + 5, v);
    const std::string problem = compareWithFp32Path(c, t, /*checkOracle=*/std::isfinite(v));
    EXPECT_EQ(problem, "") << "input value " << v;
  }
}

}  // namespace
}  // namespace numerics
