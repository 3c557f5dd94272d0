// The words paths of aclnnConvolutionBackward, bf16 and fp16: when
// gradOutput (x for a transposed convolution) and gradInput are dense, the
// gradInput pass reads and writes them as the caller's 16-bit words; when x
// and gradOutput are, the gradWeight pass reads them so (the AMX kernels;
// on AVX-512 the depthwise plane and blocked fp32 kernels). Both gradients must be the float64
// oracle's, bit-identical to the fp32 paths (the same call with padded
// views) and to themselves for 1, 2 and 3 threads, with the outputMasks that
// compute them; bf16 subnormal operands must reach the exact path.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/cpu/cpu_info.h"
#include "numerics/conv_case.h"
#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

const DType kWordTypes[] = {DType::BF16, DType::F16};

ConvCase wordsCase(DType type, bool transposed, int64_t xChannels, int64_t yChannels,
                   int64_t kernel, int64_t stride, int64_t extent, int groups = 1) {
  ConvCase c;
  c.transposed = transposed;
  c.groups = groups;
  c.stride = {stride, stride};
  c.dilation = {1, 1};
  c.padding = {1, 1};
  // Normal orientation (x, y) for both; completeShapes maps a transposed
  // case onto the API's tensors.
  c.weightShape = {yChannels, xChannels / groups, kernel, kernel};
  completeShapes(&c, 2, xChannels, yChannels, {kernel, kernel}, {extent, extent});
  c.gradOutputType = c.inputType = c.weightType = type;
  c.gradInputType = c.gradWeightType = c.gradBiasType = type;
  return c;
}

// The gradients of one call: every tensor in `layout` (Contiguous: the
// words paths; OffsetPadded: the fp32 paths, gathered and scattered).
struct GradRun {
  OpOutcome outcome;
  HostTensor gradInput, gradWeight;
};

HostTensor inLayout(const HostTensor& t, LayoutKind layout) {
  Rng layoutRng(13);
  HostTensor copy(t.dtype(), makeLayout(t.shape(), layout, layoutRng));
  copy.setDense(t.dense());
  return copy;
}

GradRun runCase(const ConvCase& c, const HostTensor& gradOutput, const HostTensor& input,
                const HostTensor& weight, LayoutKind layout, int threads) {
  Rng layoutRng(11);
  GradRun r{OpOutcome{}, HostTensor(c.gradInputType, makeLayout(c.inputShape, layout, layoutRng)),
            HostTensor(c.gradWeightType, makeLayout(c.weightShape, layout, layoutRng))};
  HostTensor gradBias(c.gradBiasType, contiguousLayout(c.biasShape()));
  RunOptions options;
  options.computeThreads = threads;
  r.outcome = runConvolutionBackward(
      c.attrs(), inLayout(gradOutput, layout), inLayout(input, layout), weight,
      c.mask[0] ? &r.gradInput : nullptr, c.mask[1] ? &r.gradWeight : nullptr,
      c.mask[2] ? &gradBias : nullptr, options);
  return r;
}

// "" when both runs hold the same bits in every element of `got` and `want`.
std::string sameBits(const char* name, const HostTensor& got, const HostTensor& want) {
  for (int64_t i = 0; i < got.count(); ++i)
    if (got.bitsAt(i) != want.bitsAt(i))
      return std::string(name) + ": element " + std::to_string(i) + " differs";
  return "";
}

class ThreadCountRestorer {
 public:
  ~ThreadCountRestorer() { aclcpu::setComputeThreadCount(0); }
};

bool amxRuns() { return aclcpu::kernels::activeIsa() >= aclcpu::kernels::Isa::Amx; }
std::string skipReason() {
  return std::string("the dense words paths need AMX; this CPU (or ACLNN_CPU_ISA) runs ") +
         aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
}

// Runs `c` with random tensors on the words paths (dense) and the fp32
// paths (padded views): "" when the computed gradients have the same bits,
// are the oracle's, and have the same bytes with 2 and 3 threads.
std::string checkCase(const ConvCase& c, Rng& rng) {
  HostTensor gradOutput(c.gradOutputType, contiguousLayout(c.gradOutputShape));
  HostTensor input(c.inputType, contiguousLayout(c.inputShape));
  HostTensor weight(c.weightType, contiguousLayout(c.weightShape));
  fillRandom(&gradOutput, rng);
  fillRandom(&input, rng);
  fillRandom(&weight, rng);
  const GradRun words = runCase(c, gradOutput, input, weight, LayoutKind::Contiguous, 1);
  const GradRun fp32 = runCase(c, gradOutput, input, weight, LayoutKind::OffsetPadded, 1);
  if (!words.outcome.succeeded()) return "words paths: " + words.outcome.describe();
  if (!fp32.outcome.succeeded()) return "fp32 paths: " + fp32.outcome.describe();
  const ConvExpectation expected =
      expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
  std::string problem;
  if (c.mask[0]) {
    problem += sameBits("gradInput", words.gradInput, fp32.gradInput);
    problem += compareOutput("gradInput", words.gradInput, expected.gradInput);
  }
  if (c.mask[1]) {
    problem += sameBits("gradWeight", words.gradWeight, fp32.gradWeight);
    problem += compareOutput("gradWeight", words.gradWeight, expected.gradWeight);
  }
  for (int threads : {2, 3}) {
    const GradRun again = runCase(c, gradOutput, input, weight, LayoutKind::Contiguous, threads);
    if (!again.outcome.succeeded()) return again.outcome.describe();
    if (again.gradInput.storage() != words.gradInput.storage() ||
        again.gradWeight.storage() != words.gradWeight.storage())
      problem += "different bytes with " + std::to_string(threads) + " threads; ";
  }
  return problem;
}

TEST(Words, GradientsMatchTheOracleTheFp32PathsAndThemselvesFor1To3Threads) {
  if (aclcpu::kernels::activeIsa() < aclcpu::kernels::Isa::Avx512)
    GTEST_SKIP() << "the words paths need AVX-512; this CPU (or ACLNN_CPU_ISA) runs "
                 << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  ThreadCountRestorer restore;
  Rng rng(0xB16D);
  std::vector<ConvCase> cases;
  for (DType type : kWordTypes) {
    cases.push_back(wordsCase(type, false, 48, 32, 3, 1, 18));
    cases.push_back(wordsCase(type, false, 40, 63, 3, 2, 21));
    // Transposed: gradInput is the normal orientation's forward pass.
    cases.push_back(wordsCase(type, true, 32, 48, 3, 1, 16));
    // Grouped (the blocked fp32 kernels): 8 and 32 channels per group.
    cases.push_back(wordsCase(type, false, 64, 64, 3, 1, 13, 8));
    cases.push_back(wordsCase(type, false, 64, 32, 3, 1, 12, 2));
  }
  using Mask = std::array<bool, 3>;
  for (ConvCase c : cases) {
    for (const Mask& mask :
         {Mask{true, false, false}, Mask{false, true, true}, Mask{true, true, true}}) {
      c.mask = mask;
      EXPECT_EQ(checkCase(c, rng), "") << c.describe();
    }
  }
}

// Depthwise layers run the plane algorithm (AVX-512) on the words.
TEST(Words, DepthwiseGradientsMatchTheOracleTheFp32PathsAndThemselves) {
  if (aclcpu::kernels::activeIsa() < aclcpu::kernels::Isa::Avx512)
    GTEST_SKIP() << "the depthwise words paths need AVX-512; this CPU (or ACLNN_CPU_ISA) runs "
                 << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  ThreadCountRestorer restore;
  Rng rng(0xD3D);
  for (DType type : kWordTypes) {
    ConvCase c;
    c.groups = 24;
    c.stride = {1, 1};
    c.dilation = {1, 2};
    c.padding = {1, 2};
    c.weightShape = {24, 1, 3, 3};
    completeShapes(&c, 3, 24, 24, {3, 3}, {19, 37});
    c.gradOutputType = c.inputType = c.weightType = type;
    c.gradInputType = c.gradWeightType = c.gradBiasType = type;
    EXPECT_EQ(checkCase(c, rng), "") << c.describe();
  }
}

// One non-zero element among zeros in x (or dy): 2^-130, a bf16 subnormal
// that the tiles read as zero, must reach the exact path in both passes.
TEST(Words, Bf16SubnormalOperandsGoToTheExactPath) {
  if (!amxRuns()) GTEST_SKIP() << skipReason();
  ConvCase c = wordsCase(DType::BF16, false, 48, 32, 3, 1, 18);
  Rng rng(0x5AB);
  HostTensor weight(c.weightType, contiguousLayout(c.weightShape));
  fillRandom(&weight, rng);
  for (bool inX : {true, false}) {
    HostTensor gradOutput(c.gradOutputType, contiguousLayout(c.gradOutputShape));
    HostTensor input(c.inputType, contiguousLayout(c.inputShape));
    fillRandom(&gradOutput, rng);
    fillRandom(&input, rng);
    HostTensor& sparse = inX ? input : gradOutput;
    sparse.setDense(std::vector<double>(static_cast<size_t>(sparse.count()), 0.0));
    sparse.set(sparse.count() / 2 + 3, std::ldexp(1.0, -130));
    const GradRun words = runCase(c, gradOutput, input, weight, LayoutKind::Contiguous, 1);
    const GradRun fp32 = runCase(c, gradOutput, input, weight, LayoutKind::OffsetPadded, 1);
    ASSERT_TRUE(words.outcome.succeeded()) << words.outcome.describe();
    ASSERT_TRUE(fp32.outcome.succeeded()) << fp32.outcome.describe();
    EXPECT_EQ(sameBits("gradInput", words.gradInput, fp32.gradInput), "") << inX;
    EXPECT_EQ(sameBits("gradWeight", words.gradWeight, fp32.gradWeight), "") << inX;
    const ConvExpectation expected =
        expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
    EXPECT_EQ(compareOutput("gradWeight", words.gradWeight, expected.gradWeight), "") << inX;
  }
}

}  // namespace
}  // namespace numerics
