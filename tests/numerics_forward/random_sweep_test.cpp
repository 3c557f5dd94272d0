// Seeded sweeps of at least 1,000 small problems per forward operator
// against the float64 reference (src/reference) with decision 8's rounding:
// 1D/2D/3D, transposed with output padding, groups and depthwise, 4-value 2D
// and [left, right] 1D padding, NDHWC, every dtype mix, cubeMathType 0-4,
// bias or none, strided/offset/permuted/broadcast views.

#include <gtest/gtest.h>

#include "numerics_forward/forward_case.h"

namespace numerics {
namespace {

constexpr int kCasesPerOperator = 1000;  // per operator; Convolution gets twice as many

template <typename Generator>
void sweep(Generator generate, uint64_t seed, int cases = kCasesPerOperator) {
  Rng rng(seed);
  int failures = 0;
  for (int i = 0; i < cases && failures < 5; ++i) {
    const ForwardCase c = generate(rng);
    const std::string problem = checkForwardCase(c, rng, /*randomLayouts=*/i % 2 == 1);
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE() << "case " << i << ": " << problem;
    }
  }
}

TEST(ForwardSweep, Convolution) {
  sweep([](Rng& rng) { return randomConvolutionCase(rng); }, 0xC0FFEE01, 2 * kCasesPerOperator);
}
TEST(ForwardSweep, MediumConvolutions) {
  sweep([](Rng& rng) { return randomConvolutionCase(rng, /*medium=*/true); }, 0xC0FFEE04, 150);
}
TEST(ForwardSweep, ConvDepthwise2d) { sweep(randomDepthwiseCase, 0xC0FFEE02); }
TEST(ForwardSweep, ConvTbc) { sweep(randomConvTbcCase, 0xC0FFEE03); }

// The sweep's generators must cover what they claim.
TEST(ForwardSweep, ConvolutionGeneratorCoversTheFeatures) {
  Rng rng(0xC0FFEE01);
  int transposed = 0, channelsLast = 0, twoSided1d = 0, fourValue2d = 0, grouped = 0, noBias = 0,
      cmt4 = 0, mixed = 0;
  for (int i = 0; i < kCasesPerOperator; ++i) {
    const ForwardCase c = randomConvolutionCase(rng);
    transposed += c.transposed;
    channelsLast += c.inputChannelsLast || c.weightChannelsLast;
    twoSided1d += c.spatialDims() == 1 && c.padding.size() == 2;
    fourValue2d += c.spatialDims() == 2 && c.padding.size() == 4;
    grouped += c.groups > 1;
    noBias += !c.hasBias;
    cmt4 += c.cubeMathType == 4;
    mixed += c.inputType != c.weightType || c.outputType != c.inputType;
  }
  for (int count :
       {transposed, channelsLast, twoSided1d, fourValue2d, grouped, noBias, cmt4, mixed})
    EXPECT_GT(count, 30);
}

}  // namespace
}  // namespace numerics
