// The all-ones upstream examples of convolution-backward.md section 1.1, with
// their hand-derived results.

#include <gtest/gtest.h>

#include "conv_test_support.h"

namespace aclcpu {
namespace reference {
namespace {

using testing::filled;
using testing::makeParams;

void expectAll(const std::vector<double>& values, double expected, const char* what) {
  ASSERT_FALSE(values.empty()) << what;
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], expected) << what << " element " << i;
  }
}

Gradients allOnesBackward(const ConvParams& p) {
  return convolutionBackward(p, filled(p.gradOutputShape, 1.0), filled(p.inputShape, 1.0),
                             filled(p.weightShape, 1.0));
}

TEST(UpstreamExamples, DocSample) {
  const ConvParams p = makeParams({2, 2, 7, 7}, {2, 2, 1, 1}, {2, 2, 7, 7}, {1, 1}, {0, 0}, {1, 1});
  const Gradients g = allOnesBackward(p);
  ASSERT_EQ(g.gradInput.size(), 2u * 2 * 7 * 7);
  ASSERT_EQ(g.gradWeight.size(), 4u);
  ASSERT_EQ(g.gradBias.size(), 2u);
  expectAll(g.gradInput, 2, "gradInput");
  expectAll(g.gradWeight, 98, "gradWeight");
  expectAll(g.gradBias, 98, "gradBias");
}

TEST(UpstreamExamples, OneDimensionalStride3) {
  const ConvParams p = makeParams({4, 2, 9}, {2, 2, 3}, {4, 2, 3}, {3}, {0}, {1});
  const Gradients g = allOnesBackward(p);
  ASSERT_EQ(g.gradInput.size(), 4u * 2 * 9);
  ASSERT_EQ(g.gradWeight.size(), 2u * 2 * 3);
  expectAll(g.gradInput, 2, "gradInput");
  expectAll(g.gradWeight, 12, "gradWeight");
  expectAll(g.gradBias, 12, "gradBias");
}

TEST(UpstreamExamples, ThreeDimensional) {
  const ConvParams p = makeParams({2, 2, 7, 7, 7}, {2, 2, 1, 1, 1}, {2, 2, 7, 7, 7}, {1, 1, 1},
                                  {0, 0, 0}, {1, 1, 1});
  const Gradients g = allOnesBackward(p);
  ASSERT_EQ(g.gradInput.size(), 2u * 2 * 343);
  expectAll(g.gradInput, 2, "gradInput");
  expectAll(g.gradWeight, 686, "gradWeight");
  expectAll(g.gradBias, 686, "gradBias");
}

// 3x3, pad 1, stride 1 on an HxW map: a row (or column) at the border is
// reached by 2 kernel rows, an interior one by 3; a kernel row other than the
// centre reaches only H-1 output rows.
int64_t taps(int64_t position, int64_t size) {
  return (position == 0 || position == size - 1) ? 2 : 3;
}
int64_t reach(int64_t kernelPosition, int64_t size) {
  return kernelPosition == 1 ? size : size - 1;
}

TEST(UpstreamExamples, TwoDimensionalScaledDownFull) {
  // 2d.cpp with batch 1 and fewer channels, every element checked.
  const int64_t cout = 32, cin = 3, size = 80;
  const ConvParams p = makeParams({1, cin, size, size}, {cout, cin, 3, 3}, {1, cout, size, size},
                                  {1, 1}, {1, 1}, {1, 1});
  const Gradients g = allOnesBackward(p);
  for (int64_t c = 0; c < cin; ++c) {
    for (int64_t h = 0; h < size; ++h) {
      for (int64_t w = 0; w < size; ++w) {
        ASSERT_EQ(g.gradInput[(c * size + h) * size + w], cout * taps(h, size) * taps(w, size))
            << "c " << c << " h " << h << " w " << w;
      }
    }
  }
  for (int64_t i = 0; i < cout * cin; ++i) {
    for (int64_t kh = 0; kh < 3; ++kh) {
      for (int64_t kw = 0; kw < 3; ++kw) {
        ASSERT_EQ(g.gradWeight[(i * 3 + kh) * 3 + kw], reach(kh, size) * reach(kw, size));
      }
    }
  }
  expectAll(g.gradBias, size * size, "gradBias");
}

TEST(UpstreamExamples, TwoDimensionalFullSizeSampled) {
  // 2d.cpp at full size through the single-element functions; the operands
  // are read through constant readers, no memory needed.
  const ConvParams p =
      makeParams({4, 30, 80, 80}, {320, 30, 3, 3}, {4, 320, 80, 80}, {1, 1}, {1, 1}, {1, 1});
  const ElementReader one = [](int64_t) { return 1.0; };
  auto inputAt = [&](int64_t n, int64_t c, int64_t h, int64_t w) {
    return gradInputAt(p, one, one, one, ((n * 30 + c) * 80 + h) * 80 + w);
  };
  EXPECT_EQ(inputAt(1, 5, 40, 40), 2880);  // interior: 320 * 9
  EXPECT_EQ(inputAt(0, 0, 0, 40), 1920);   // top edge: 320 * 6
  EXPECT_EQ(inputAt(2, 11, 79, 17), 1920);
  EXPECT_EQ(inputAt(0, 3, 40, 79), 1920);
  EXPECT_EQ(inputAt(3, 29, 0, 0), 1280);  // corners: 320 * 4
  EXPECT_EQ(inputAt(2, 7, 79, 79), 1280);

  auto weightAt = [&](int64_t co, int64_t ci, int64_t kh, int64_t kw) {
    return gradWeightAt(p, one, one, one, ((co * 30 + ci) * 3 + kh) * 3 + kw);
  };
  EXPECT_EQ(weightAt(319, 29, 1, 1), 25600);  // centre: 4 * 80 * 80
  EXPECT_EQ(weightAt(0, 0, 0, 1), 25280);     // edge: 4 * 79 * 80
  EXPECT_EQ(weightAt(17, 4, 1, 2), 25280);
  EXPECT_EQ(weightAt(5, 3, 2, 2), 24964);  // corner: 4 * 79 * 79
  EXPECT_EQ(weightAt(100, 0, 0, 0), 24964);

  EXPECT_EQ(gradBiasAt(p, one, 0), 25600);
  EXPECT_EQ(gradBiasAt(p, one, 319), 25600);
}

}  // namespace
}  // namespace reference
}  // namespace aclcpu
