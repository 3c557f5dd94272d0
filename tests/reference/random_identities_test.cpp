// Identities on random problems: the adjoint identity, transposed gradInput
// as a forward convolution, and single elements against the full results.

#include <gtest/gtest.h>

#include <cmath>

#include "conv_test_support.h"

namespace aclcpu {
namespace reference {
namespace {

using testing::absolute;
using testing::dot;
using testing::makeRandomProblem;
using testing::Problem;

constexpr int kProblemsPerCase = 200;

struct Case {
  int spatialDims;
  bool transposed;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.spatialDims << "d" << (c.transposed ? " transposed" : "");
}

class RandomIdentities : public ::testing::TestWithParam<Case> {
 protected:
  std::mt19937_64 rng{0x5eed0000u + 10u * GetParam().spatialDims + GetParam().transposed};
  Problem next() { return makeRandomProblem(rng, GetParam().spatialDims, GetParam().transposed); }
};

std::string describe(const ConvParams& p) {
  std::string text = p.transposed ? "transposed" : "normal";
  auto append = [&text](const char* name, const std::vector<int64_t>& values) {
    text += std::string(" ") + name + "=";
    for (int64_t v : values) text += std::to_string(v) + ",";
  };
  text += " groups=" + std::to_string(p.groups);
  append("input", p.inputShape);
  append("weight", p.weightShape);
  append("gradOutput", p.gradOutputShape);
  append("stride", p.stride);
  append("dilation", p.dilation);
  append("padBefore", p.padBefore);
  append("padAfter", p.padAfter);
  return text;
}

// <forward(x, w), dy> == <x, dX> == <w, dW>. All three are sums of the same
// products x*w*dy, so the rounding error is bounded relative to the sum of
// their magnitudes, which is <forward(|x|, |w|), |dy|>.
TEST_P(RandomIdentities, AdjointIdentity) {
  int nonTrivial = 0;
  for (int trial = 0; trial < kProblemsPerCase; ++trial) {
    const Problem pr = next();
    const ConvParams& p = pr.params;
    SCOPED_TRACE(describe(p));
    const Gradients g = convolutionBackward(p, pr.gradOutput, pr.input, pr.weight);
    ASSERT_EQ(g.gradInput.size(), pr.input.size());
    ASSERT_EQ(g.gradWeight.size(), pr.weight.size());
    const std::vector<double> y = convolutionForward(p, pr.input, pr.weight);
    ASSERT_EQ(y.size(), pr.gradOutput.size());

    const double viaForward = dot(y, pr.gradOutput);
    const double viaInput = dot(pr.input, g.gradInput);
    const double viaWeight = dot(pr.weight, g.gradWeight);
    const double scale = dot(convolutionForward(p, absolute(pr.input), absolute(pr.weight)),
                             absolute(pr.gradOutput));
    const double tolerance = 1e-12 * scale;
    EXPECT_NEAR(viaInput, viaForward, tolerance);
    EXPECT_NEAR(viaWeight, viaForward, tolerance);
    if (scale > 0) ++nonTrivial;
  }
  // Guards against a generator that produces vacuous problems.
  EXPECT_EQ(nonTrivial, kProblemsPerCase);
}

// The gathering single-element functions against the scattering full ones,
// on every element.
TEST_P(RandomIdentities, SingleElementsMatchFullGradients) {
  for (int trial = 0; trial < kProblemsPerCase; ++trial) {
    const Problem pr = next();
    const ConvParams& p = pr.params;
    SCOPED_TRACE(describe(p));
    const Gradients g = convolutionBackward(p, pr.gradOutput, pr.input, pr.weight);
    auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-12 * (1 + std::fabs(b)); };
    for (size_t i = 0; i < g.gradInput.size(); ++i) {
      const double at = gradInputAt(p, pr.gradOutput, pr.input, pr.weight, static_cast<int64_t>(i));
      ASSERT_PRED2(near, at, g.gradInput[i]) << "gradInput " << i;
    }
    for (size_t i = 0; i < g.gradWeight.size(); ++i) {
      const double at =
          gradWeightAt(p, pr.gradOutput, pr.input, pr.weight, static_cast<int64_t>(i));
      ASSERT_PRED2(near, at, g.gradWeight[i]) << "gradWeight " << i;
    }
    ASSERT_EQ(static_cast<int64_t>(g.gradBias.size()), p.gradOutputShape[1]);
    for (size_t c = 0; c < g.gradBias.size(); ++c) {
      ASSERT_PRED2(near, gradBiasAt(p, pr.gradOutput, static_cast<int64_t>(c)), g.gradBias[c]);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, RandomIdentities,
                         ::testing::Values(Case{1, false}, Case{2, false}, Case{3, false},
                                           Case{1, true}, Case{2, true}, Case{3, true}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::to_string(info.param.spatialDims) + "d" +
                                  (info.param.transposed ? "Transposed" : "");
                         });

// Section 5: the gradInput of a transposed convolution is the ordinary
// forward convolution of gradOutput with the same weight and parameters.
class TransposedConsistency : public ::testing::TestWithParam<int> {};

TEST_P(TransposedConsistency, GradInputIsForwardOfGradOutput) {
  std::mt19937_64 rng(0x7a5u + GetParam());
  for (int trial = 0; trial < kProblemsPerCase; ++trial) {
    const Problem pr = makeRandomProblem(rng, GetParam(), /*transposed=*/true);
    SCOPED_TRACE(describe(pr.params));
    ConvParams forward = pr.params;
    forward.transposed = false;
    forward.inputShape = pr.params.gradOutputShape;
    forward.gradOutputShape = pr.params.inputShape;
    const std::vector<double> expected = convolutionForward(forward, pr.gradOutput, pr.weight);
    const Gradients g = convolutionBackward(pr.params, pr.gradOutput, pr.input, pr.weight);
    ASSERT_EQ(g.gradInput.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_NEAR(g.gradInput[i], expected[i], 1e-12 * (1 + std::fabs(expected[i]))) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDims, TransposedConsistency, ::testing::Values(1, 2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "d";
                         });

}  // namespace
}  // namespace reference
}  // namespace aclcpu
