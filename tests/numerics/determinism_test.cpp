// (f) Project decision 6: results are bit-identical for any thread count and
// any run. Each problem runs with 1, 2 and 3 compute threads (set before
// phase 1, since the plan may depend on it) and twice with 2; every output's
// storage must match byte for byte. The problems are big enough to be split
// across threads (many channels, long reductions), and the single-thread
// result is also checked against the float64 reference.

#include <gtest/gtest.h>

#include "common/thread_pool.h"
#include "numerics/conv_oracle.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

struct Storage {
  std::vector<uint8_t> gradInput, gradWeight, gradBias;
  bool operator==(const Storage& o) const {
    return gradInput == o.gradInput && gradWeight == o.gradWeight && gradBias == o.gradBias;
  }
};

ConvCase makeCase(int d, bool transposed, int groups, int64_t batch, int64_t xChannels,
                  int64_t yChannels, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad,
                  int64_t extent) {
  ConvCase c;
  c.transposed = transposed;
  c.groups = groups;
  c.stride.assign(d, stride);
  c.dilation.assign(d, dilation);
  c.padding.assign(d, pad);
  c.weightShape = {yChannels, xChannels / groups};
  for (int s = 0; s < d; ++s) c.weightShape.push_back(kernel);
  completeShapes(&c, batch, xChannels, yChannels, std::vector<int64_t>(d, kernel),
                 std::vector<int64_t>(d, extent));
  return c;
}

class ThreadCountRestorer {
 public:
  ~ThreadCountRestorer() { aclcpu::setComputeThreadCount(0); }
};

Storage runWithThreads(const ConvCase& c, const HostTensor& gradOutput, const HostTensor& input,
                       const HostTensor& weight, int threads, Rng layoutRng,
                       const ConvExpectation* check = nullptr) {
  // The same layouts every time (the rng is copied in).
  HostTensor gradInput(c.gradInputType, makeLayout(c.inputShape, LayoutKind::Permuted, layoutRng));
  HostTensor gradWeight(c.gradWeightType, makeLayout(c.weightShape, LayoutKind::Gapped, layoutRng));
  HostTensor gradBias(c.gradBiasType, makeLayout(c.biasShape(), LayoutKind::Gapped, layoutRng));
  RunOptions options;
  options.computeThreads = threads;
  const OpOutcome outcome = runConvolutionBackward(c.attrs(), gradOutput, input, weight, &gradInput,
                                                   &gradWeight, &gradBias, options);
  EXPECT_TRUE(outcome.succeeded()) << outcome.describe();
  if (check) {
    EXPECT_EQ(compareOutput("gradInput", gradInput, check->gradInput), "");
    EXPECT_EQ(compareOutput("gradWeight", gradWeight, check->gradWeight), "");
    EXPECT_EQ(compareOutput("gradBias", gradBias, check->gradBias), "");
  }
  return {gradInput.storage(), gradWeight.storage(), gradBias.storage()};
}

void checkDeterministic(ConvCase c, uint64_t seed) {
  SCOPED_TRACE(c.describe());
  ThreadCountRestorer restore;
  Rng rng(seed);
  HostTensor gradOutput(c.gradOutputType,
                        makeLayout(c.gradOutputShape, LayoutKind::OffsetPadded, rng));
  HostTensor input(c.inputType, makeLayout(c.inputShape, LayoutKind::Permuted, rng));
  HostTensor weight(c.weightType, makeLayout(c.weightShape, LayoutKind::Contiguous, rng));
  fillRandom(&gradOutput, rng);
  fillRandom(&input, rng);
  fillRandom(&weight, rng);
  const ConvExpectation expected =
      expectConvolutionBackward(c, gradOutput.dense(), input.dense(), weight.dense());

  const Storage one = runWithThreads(c, gradOutput, input, weight, 1, rng, &expected);
  const Storage two = runWithThreads(c, gradOutput, input, weight, 2, rng);
  const Storage three = runWithThreads(c, gradOutput, input, weight, 3, rng);
  const Storage twoAgain = runWithThreads(c, gradOutput, input, weight, 2, rng);
  EXPECT_TRUE(one == two) << "1 vs 2 threads";
  EXPECT_TRUE(one == three) << "1 vs 3 threads";
  EXPECT_TRUE(two == twoAgain) << "two runs with 2 threads";
}

TEST(Determinism, ManyChannels2d) {
  ConvCase c = makeCase(2, false, 1, 2, 64, 96, 3, 1, 1, 1, 16);
  checkDeterministic(c, 1);
}

TEST(Determinism, ManyChannels2dHf32MixedOutputs) {
  ConvCase c = makeCase(2, false, 1, 3, 48, 80, 3, 2, 1, 1, 23);
  c.cubeMathType = 1;
  c.gradInputType = DType::BF16;
  c.gradBiasType = DType::F16;
  checkDeterministic(c, 2);
}

TEST(Determinism, GroupedTransposedFp16) {
  ConvCase c = makeCase(2, true, 4, 3, 32, 64, 3, 2, 1, 1, 17);
  c.gradOutputType = c.inputType = c.weightType = DType::F16;
  c.cubeMathType = 2;
  c.gradWeightType = DType::BF16;
  checkDeterministic(c, 3);
}

TEST(Determinism, Depthwise2d) {
  ConvCase c = makeCase(2, false, 48, 2, 48, 96, 3, 1, 2, 2, 30);
  c.gradOutputType = c.inputType = c.weightType = DType::BF16;
  checkDeterministic(c, 4);
}

TEST(Determinism, Strided3d) {
  ConvCase c = makeCase(3, false, 1, 2, 16, 24, 3, 2, 1, 1, 9);
  c.cubeMathType = 3;
  checkDeterministic(c, 5);
}

TEST(Determinism, Long1dDilated) {
  ConvCase c = makeCase(1, false, 2, 2, 32, 32, 5, 1, 2, 4, 1500);
  checkDeterministic(c, 6);
}

}  // namespace
}  // namespace numerics
