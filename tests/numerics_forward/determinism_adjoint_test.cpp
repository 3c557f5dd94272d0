// Decision 7: forward results are bit-identical for 1, 2 and 3 compute
// threads (and across runs); and the adjoint identity that ties the forward
// operator to the backward one: <conv(x, w), dy> = <x, dX(dy)>, for normal
// and transposed convolutions alike.

#include <gtest/gtest.h>

#include <cmath>

#include "common/thread_pool.h"
#include "numerics/random_problem.h"
#include "numerics_forward/forward_case.h"

namespace numerics {
namespace {

// Problems big enough that the engine splits them over threads.
std::vector<ForwardCase> determinismCases() {
  std::vector<ForwardCase> cases;
  ForwardCase conv;
  conv.inputShape = {2, 16, 20, 20};
  conv.weightShape = {24, 8, 3, 3};
  conv.outputShape = {2, 24, 10, 10};
  conv.groups = 2;
  conv.stride = {2, 2};
  conv.padding = {1, 1};
  conv.dilation = {1, 1};
  conv.outputPadding = {0, 0};
  conv.inputType = conv.weightType = DType::F16;
  conv.biasType = DType::F32;
  conv.outputType = DType::BF16;
  cases.push_back(conv);

  ForwardCase transposed = conv;
  transposed.transposed = true;
  transposed.groups = 1;
  transposed.inputShape = {2, 16, 10, 10};
  transposed.weightShape = {16, 12, 4, 4};
  transposed.outputShape = {2, 12, 20, 20};  // (10 - 1) * 2 - 2 + 3 + 0 + 1
  transposed.inputType = transposed.weightType = transposed.outputType = DType::F32;
  transposed.cubeMathType = 1;
  cases.push_back(transposed);

  ForwardCase depthwise;
  depthwise.op = ForwardOp::Depthwise2d;
  depthwise.groups = 8;
  depthwise.inputShape = {2, 8, 24, 24};
  depthwise.weightShape = {16, 1, 3, 3};
  depthwise.outputShape = {2, 16, 24, 24};
  depthwise.stride = {1, 1};
  depthwise.padding = {1, 1};
  depthwise.dilation = {1, 1};
  cases.push_back(depthwise);

  ForwardCase tbc;
  tbc.op = ForwardOp::ConvTbc;
  tbc.inputShape = {64, 4, 16};
  tbc.weightShape = {5, 16, 24};
  tbc.outputShape = {64, 4, 24};
  tbc.pad = 2;
  tbc.inputType = tbc.weightType = tbc.outputType = DType::BF16;
  tbc.biasType = DType::F16;
  cases.push_back(tbc);
  return cases;
}

TEST(ForwardDeterminism, BitIdenticalFor1To3Threads) {
  for (const ForwardCase& c : determinismCases()) {
    Rng rng(7);
    ForwardTensors reference = makeForwardTensors(c, rng, true);
    std::vector<uint8_t> first;
    for (int threads : {1, 2, 3, 2, 1}) {
      ForwardTensors t = reference;
      RunOptions options;
      options.computeThreads = threads;
      const OpOutcome o = runForward(c, &t, options);
      ASSERT_TRUE(o.succeeded()) << c.describe() << ": " << o.describe();
      if (first.empty()) {
        first = t.output.storage();
        // The result must be right, not only repeatable.
        const ElementBounds e = expectForward(c, t.input.dense(), t.weight.dense(), t.bias.dense());
        EXPECT_EQ(compareOutput("output", t.output, e), "") << c.describe();
      } else {
        EXPECT_TRUE(t.output.storage() == first)
            << c.describe() << " differs with " << threads << " threads";
      }
    }
  }
  aclcpu::setComputeThreadCount(0);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

double absDot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] * b[i]);
  return sum;
}

// fp32, cubeMathType 0, no bias, NCDHW: y = aclnnConvolution(x, w), dX =
// aclnnConvolutionBackward(dy, x, w).gradInput; both sides of the identity
// are sums of the same exact products, so they agree to fp32 accumulation
// error (bounded by terms * 2^-24 * sum |products|, on each side).
TEST(ForwardAdjoint, ForwardAndBackwardDataAreAdjoint) {
  Rng rng(0xAD701);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    ForwardCase c = randomConvolutionCase(rng);
    if (c.inputChannelsLast || c.weightChannelsLast) continue;
    c.hasBias = false;
    c.inputType = c.weightType = c.outputType = DType::F32;
    c.cubeMathType = 0;
    ForwardTensors t = makeForwardTensors(c, rng, false);
    const OpOutcome forward = runForward(c, &t);
    ASSERT_TRUE(forward.succeeded()) << c.describe() << ": " << forward.describe();

    HostTensor gradOutput(DType::F32, contiguousLayout(c.outputShape));
    fillRandom(&gradOutput, rng);
    HostTensor gradInput(DType::F32, contiguousLayout(c.inputShape));
    ConvAttrs b;
    b.stride = c.stride;
    b.padding = c.padding;
    b.dilation = c.dilation;
    b.outputPadding = c.outputPadding;
    b.transposed = c.transposed;
    b.groups = static_cast<int>(c.groups);
    b.mask = {true, false, false};
    // The backward operator accepts only one value per 1D padding.
    if (c.spatialDims() == 1 && c.padding.size() == 2) continue;
    const OpOutcome backward =
        runConvolutionBackward(b, gradOutput, t.input, t.weight, &gradInput, nullptr, nullptr);
    ASSERT_TRUE(backward.succeeded()) << c.describe() << ": " << backward.describe();

    const auto y = t.output.dense(), dy = gradOutput.dense(), x = t.input.dense(),
               dx = gradInput.dense();
    const double lhs = dot(y, dy), rhs = dot(x, dx);
    int64_t terms = 1;
    for (int64_t extent : c.weightShape) terms *= extent;
    const double bound = (terms + 2) * 0x1p-24 * (absDot(y, dy) + absDot(x, dx)) * 4 + 1e-30;
    EXPECT_NEAR(lhs, rhs, bound) << c.describe();
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace numerics
