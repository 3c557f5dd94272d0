// The im2col / col2im strided row loops (strided_rows.h): the AVX-512 loops
// against the scalar reference, bit for bit, for strides 2 (the permute
// path), 3, 5 and 17 (gathers and scatters), every count from 0 to 70 (whole
// vectors and every tail) and unaligned starts, copies with exactly the named
// elements readable and with more; elements the row does not name keep their
// values (a spread names the elements between its values).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv/strided_rows.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {
namespace {

constexpr float kUntouched = -777.25f;

std::vector<float> randomValues(size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> values(count);
  for (float& v : values) v = dist(rng);
  return values;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(StridedRows, Avx512LoopsMatchTheScalarReference) {
  if (detectedIsa() < Isa::Avx512)
    GTEST_SKIP() << "needs AVX-512, this CPU has " << isaName(detectedIsa());
  const StridedRowLoops scalar = scalarStridedRowLoops();
  const StridedRowLoops vector = stridedRowLoopsAvx512();
  std::mt19937 rng(7);
  int cases = 0;
  for (int64_t stride : {2, 3, 5, 17}) {
    for (int64_t count = 0; count <= 70; ++count) {
      for (int64_t start : {0, 1, 3}) {
        // Exactly the elements a row names, after `start` leading ones.
        const int64_t span = count == 0 ? 0 : (count - 1) * stride + 1;
        const std::vector<float> wide = randomValues(static_cast<size_t>(start + span), rng);
        const std::vector<float> narrow = randomValues(static_cast<size_t>(start + count), rng);

        std::vector<float> expected(static_cast<size_t>(start + count + 1), kUntouched);
        std::vector<float> got = expected;
        scalar.copy(wide.data() + start, span, stride, count, expected.data() + start);
        vector.copy(wide.data() + start, span, stride, count, got.data() + start);
        ASSERT_TRUE(sameBits(expected, got)) << "copy stride " << stride << " count " << count;
        // A row with more readable elements after it (a plane's next rows),
        // each extra length up to a whole vector and beyond; the buffer ends
        // at the readable end, so that ASan sees any read past it.
        for (int64_t extra : {1, 2, 15, 16, 17, 40}) {
          std::vector<float> longer(wide.size() + static_cast<size_t>(extra), 1e30f);
          std::copy(wide.begin(), wide.end(), longer.begin());
          std::vector<float> gotLong(expected.size(), kUntouched);
          vector.copy(longer.data() + start, span + extra, stride, count, gotLong.data() + start);
          ASSERT_TRUE(sameBits(expected, gotLong))
              << "copy stride " << stride << " count " << count << " readable +" << extra;
        }

        std::vector<float> sums = randomValues(static_cast<size_t>(start + span + 1), rng);
        std::vector<float> sumsGot = sums;
        scalar.add(narrow.data() + start, count, stride, sums.data() + start);
        vector.add(narrow.data() + start, count, stride, sumsGot.data() + start);
        ASSERT_TRUE(sameBits(sums, sumsGot)) << "add stride " << stride << " count " << count;

        std::vector<float> spread = randomValues(static_cast<size_t>(start + span + 1), rng);
        std::vector<float> spreadGot = spread;
        scalar.spread(narrow.data() + start, count, stride, spread.data() + start);
        vector.spread(narrow.data() + start, count, stride, spreadGot.data() + start);
        ASSERT_TRUE(sameBits(spread, spreadGot))
            << "spread stride " << stride << " count " << count;
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 4 * 71 * 3);
}

// The reference itself, on a hand case: every second element, and adds that
// leave the elements between alone (a -0.0 between stays -0.0).
TEST(StridedRows, ScalarReferenceHandCase) {
  const StridedRowLoops loops = scalarStridedRowLoops();
  const float in[] = {1, 2, 3, 4, 5};
  float out[3] = {};
  loops.copy(in, 5, 2, 3, out);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 3.0f);
  EXPECT_EQ(out[2], 5.0f);
  float sums[5] = {10, -0.0f, 20, -0.0f, 30};
  loops.add(out, 3, 2, sums);
  EXPECT_EQ(sums[0], 11.0f);
  EXPECT_EQ(sums[2], 23.0f);
  EXPECT_EQ(sums[4], 35.0f);
  EXPECT_TRUE(std::signbit(sums[1]) && std::signbit(sums[3]));
  // Spread: every third element, +0 between, nothing past the last one.
  float spread[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  loops.spread(in, 3, 3, spread);
  const float expected[8] = {1, 0, 0, 2, 0, 0, 3, 9};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(spread[i], expected[i]) << i;
    EXPECT_FALSE(std::signbit(spread[i])) << i;
  }
}

}  // namespace
}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
