// The bf16 words path of aclnnConvolutionBackward's gradInput: on AMX, when
// gradOutput (x for a transposed convolution) and gradInput are dense bf16,
// the data-gradient pass reads and writes them as the caller's bf16 words.
// gradInput must be the float64 oracle's, bit-identical to the fp32 path (the
// same call with a padded gradInput view) and to itself for 1, 2 and 3
// threads, with every outputMask that computes it.

#include <gtest/gtest.h>

#include "common/thread_pool.h"
#include "kernels/cpu/cpu_info.h"
#include "numerics/conv_case.h"
#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

ConvCase bf16Case(bool transposed, int64_t xChannels, int64_t yChannels, int64_t kernel,
                  int64_t stride, int64_t extent) {
  ConvCase c;
  c.transposed = transposed;
  c.stride = {stride, stride};
  c.dilation = {1, 1};
  c.padding = {1, 1};
  // Normal orientation (x, y) for both; completeShapes maps a transposed
  // case onto the API's tensors.
  c.weightShape = {yChannels, xChannels, kernel, kernel};
  completeShapes(&c, 2, xChannels, yChannels, {kernel, kernel}, {extent, extent});
  c.gradOutputType = c.inputType = c.weightType = DType::BF16;
  c.gradInputType = c.gradWeightType = c.gradBiasType = DType::BF16;
  return c;
}

struct GradInputRun {
  OpOutcome outcome;
  HostTensor gradInput;
};

GradInputRun runCase(const ConvCase& c, const HostTensor& gradOutput, const HostTensor& input,
                     const HostTensor& weight, LayoutKind gradInputLayout, int threads) {
  Rng layoutRng(11);
  GradInputRun r{OpOutcome{},
                 HostTensor(c.gradInputType, makeLayout(c.inputShape, gradInputLayout, layoutRng))};
  HostTensor gradWeight(c.gradWeightType, contiguousLayout(c.weightShape));
  HostTensor gradBias(c.gradBiasType, contiguousLayout(c.biasShape()));
  RunOptions options;
  options.computeThreads = threads;
  r.outcome = runConvolutionBackward(c.attrs(), gradOutput, input, weight, &r.gradInput,
                                     c.mask[1] ? &gradWeight : nullptr,
                                     c.mask[2] ? &gradBias : nullptr, options);
  return r;
}

class ThreadCountRestorer {
 public:
  ~ThreadCountRestorer() { aclcpu::setComputeThreadCount(0); }
};

TEST(Bf16Words, GradInputMatchesTheOracleTheFp32PathAndItselfFor1To3Threads) {
  using aclcpu::kernels::Isa;
  if (aclcpu::kernels::activeIsa() < Isa::Amx)
    GTEST_SKIP() << "the bf16 words path needs AMX; this CPU (or ACLNN_CPU_ISA) runs "
                 << aclcpu::kernels::isaName(aclcpu::kernels::activeIsa());
  ThreadCountRestorer restore;
  Rng rng(0xB16D);
  const ConvCase cases[] = {
      bf16Case(false, 48, 32, 3, 1, 18),
      bf16Case(false, 40, 63, 3, 2, 21),
      // Transposed: gradInput is the normal orientation's forward pass.
      bf16Case(true, 32, 48, 3, 1, 16),
  };
  for (ConvCase c : cases) {
    for (const auto& mask :
         {std::array<bool, 3>{true, false, false}, std::array<bool, 3>{true, true, true}}) {
      c.mask = mask;
      HostTensor gradOutput(c.gradOutputType, contiguousLayout(c.gradOutputShape));
      HostTensor input(c.inputType, contiguousLayout(c.inputShape));
      HostTensor weight(c.weightType, contiguousLayout(c.weightShape));
      fillRandom(&gradOutput, rng);
      fillRandom(&input, rng);
      fillRandom(&weight, rng);
      const GradInputRun words = runCase(c, gradOutput, input, weight, LayoutKind::Contiguous, 1);
      const GradInputRun fp32 = runCase(c, gradOutput, input, weight, LayoutKind::OffsetPadded, 1);
      ASSERT_TRUE(words.outcome.succeeded()) << c.describe() << ": " << words.outcome.describe();
      ASSERT_TRUE(fp32.outcome.succeeded()) << c.describe() << ": " << fp32.outcome.describe();
      for (int64_t i = 0; i < words.gradInput.count(); ++i)
        ASSERT_EQ(words.gradInput.bitsAt(i), fp32.gradInput.bitsAt(i))
            << c.describe() << ": element " << i;
      const ConvExpectation expected =
          expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());
      EXPECT_EQ(compareOutput("gradInput", words.gradInput, expected.gradInput), "")
          << c.describe();
      for (int threads : {2, 3}) {
        const GradInputRun again =
            runCase(c, gradOutput, input, weight, LayoutKind::Contiguous, threads);
        ASSERT_TRUE(again.outcome.succeeded()) << again.outcome.describe();
        EXPECT_EQ(again.gradInput.storage(), words.gradInput.storage())
            << c.describe() << " with " << threads << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace numerics
