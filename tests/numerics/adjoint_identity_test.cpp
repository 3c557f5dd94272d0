// (b) The adjoint identity through the operator, in float64:
//   <conv(x, w), dy> = <x, dX> = <w, dW>
// with conv the reference forward (conv_transpose for transposed problems)
// and dX, dW the operator's fp32 outputs (cubeMathType 0, fp32 data, so
// nothing is rounded but the fp32 products and sums).
//
// Tolerance: each operator element is within (n + 2) 2^-24 S_i of the true
// value (conv_oracle.h), so each inner product is within
// (n + 2) 2^-24 <|x|, S> where <|x|, S> = <conv(|x|, |w|), |dy|>; the
// reference side is float64 (error ~2^-50 of the same magnitude).

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "numerics/conv_case.h"
#include "numerics/op_runner.h"
#include "numerics/random_problem.h"

namespace numerics {
namespace {

constexpr int kProblems = 48;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

std::vector<double> absolute(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

// A random fp32 problem of the requested orientation in which at least one
// kernel tap meets the input (otherwise the identity holds vacuously: 0 = 0).
ConvCase problemWithTaps(Rng& rng, bool transposed) {
  RandomCaseOptions options;
  options.randomDtypes = false;
  options.randomCubeMath = false;
  options.maskBits = 3;  // gradInput and gradWeight
  for (;;) {
    ConvCase c = randomConvCase(rng, options);
    if (c.transposed != transposed) continue;
    const auto params = c.referenceParams();
    const auto ones = [](const Shape& s) { return std::vector<double>(elementCount(s), 1.0); };
    const auto y =
        aclcpu::reference::convolutionForward(params, ones(c.inputShape), ones(c.weightShape));
    for (double v : y)
      if (v != 0.0) return c;
  }
}

TEST(AdjointIdentity, InnerProductsAgreeThroughTheOperator) {
  int transposedCount = 0;
  for (int index = 0; index < kProblems; ++index) {
    Rng rng(0xAD701A7ull + index);
    const ConvCase c = problemWithTaps(rng, index % 2 == 1);
    transposedCount += c.transposed;
    SCOPED_TRACE("problem " + std::to_string(index) + ": " + c.describe());

    HostTensor gradOutput(DType::F32, makeLayout(c.gradOutputShape, randomLayoutKind(rng), rng));
    HostTensor input(DType::F32, makeLayout(c.inputShape, randomLayoutKind(rng), rng));
    HostTensor weight(DType::F32, makeLayout(c.weightShape, randomLayoutKind(rng), rng));
    fillRandom(&gradOutput, rng);
    fillRandom(&input, rng);
    fillRandom(&weight, rng);
    HostTensor gradInput(DType::F32, makeLayout(c.inputShape, randomLayoutKind(rng), rng));
    HostTensor gradWeight(DType::F32, makeLayout(c.weightShape, randomLayoutKind(rng), rng));

    const OpOutcome outcome = runConvolutionBackward(c.attrs(), gradOutput, input, weight,
                                                     &gradInput, &gradWeight, nullptr);
    ASSERT_TRUE(outcome.succeeded()) << outcome.describe();

    const auto params = c.referenceParams();
    const auto x = input.dense(), w = weight.dense(), dy = gradOutput.dense();
    const double forward = dot(aclcpu::reference::convolutionForward(params, x, w), dy);
    const double magnitude =
        dot(aclcpu::reference::convolutionForward(params, absolute(x), absolute(w)), absolute(dy));
    const double viaInput = dot(x, gradInput.dense());
    const double viaWeight = dot(w, gradWeight.dense());
    const int64_t terms = std::max(c.gradInputTerms(), c.gradWeightTerms());
    const double tolerance = (terms + 2) * 0x1p-24 * magnitude + 0x1p-40 * magnitude;
    EXPECT_NEAR(viaInput, forward, tolerance) << "<x, dX> vs <conv(x, w), dy>";
    EXPECT_NEAR(viaWeight, forward, tolerance) << "<w, dW> vs <conv(x, w), dy>";
    EXPECT_GT(magnitude, 0.0);
  }
  EXPECT_EQ(transposedCount, kProblems / 2);
}

}  // namespace
}  // namespace numerics
