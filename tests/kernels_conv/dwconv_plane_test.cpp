// The plane-wise depthwise weight gradient computes whole 16-lane vectors
// past the end of a row; those lanes read real x values the tap never
// meets. An inf there must not reach the sum (inf * 0 would be NaN).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/conv/conv_registry.h"
#include "kernels/cpu/cpu_info.h"

namespace {

using namespace aclcpu::kernels;

const ConvAlgorithm* entry(const char* name) {
  for (int i = 0; i < convAlgorithmCount(); ++i)
    if (!std::strcmp(convAlgorithmAt(i).name, name)) return &convAlgorithmAt(i);
  return nullptr;
}

TEST(DepthwisePlane, InfPastTheRowStaysOutOfTheWeightGradient) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const ConvAlgorithm* a = entry("f32_dwconv_bwdw_plane_w16_avx512");
  ASSERT_NE(a, nullptr);
  // Two channels, 2 x 20 input, 1 x 3 kernel, no padding: 18 outputs per row.
  // x column 19 is read only by tap 2 (output 17); for taps 0 and 1 the
  // second vector's lanes past output 17 still load it.
  ConvShape s;
  s.batch = 1;
  s.inChannels = s.outChannels = s.groups = 2;
  s.in[1] = 2;
  s.in[2] = 20;
  s.kernel[2] = 3;
  s.out[1] = 2;
  s.out[2] = 18;
  ASSERT_TRUE(a->accepts(s));
  const int64_t xn = 2 * 2 * 20, yn = 2 * 2 * 18;
  std::vector<float> x(xn), dy(yn), dw(2 * 3, -1.0f);
  for (int64_t i = 0; i < xn; ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  for (int64_t i = 0; i < yn; ++i) dy[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  for (int64_t plane = 0; plane < 4; ++plane)
    x[plane * 20 + 19] = std::numeric_limits<float>::infinity();
  a->run(s, x.data(), dy.data(), dw.data(), nullptr);
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t tap = 0; tap < 2; ++tap) {
      double expect = 0;
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 18; ++w)
          expect += static_cast<double>(x[(c * 2 + h) * 20 + w + tap]) * dy[(c * 2 + h) * 18 + w];
      EXPECT_TRUE(std::isfinite(dw[c * 3 + tap])) << "channel " << c << " tap " << tap;
      EXPECT_NEAR(dw[c * 3 + tap], expect, 1e-5) << "channel " << c << " tap " << tap;
    }
    // Tap 2 does meet the inf (times dy of output 17).
    EXPECT_FALSE(std::isfinite(dw[c * 3 + 2])) << "channel " << c;
  }
}

}  // namespace
