// sgemm against a float64 oracle on many shapes, layouts and every ISA path
// this CPU supports. The tolerance is the standard bound for fp32 summation:
// |c - exact| <= (K + 2) * u * (sum_k |a_ik * b_kj| + |c0|), u = 2^-24; a
// wrong or missing term is far larger than that.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "gemm_test_support.h"

namespace gemm_test {
namespace {

struct Case {
  int64_t M, N, K;
  Layout a = Layout::RowMajor;
  Layout b = Layout::RowMajor;
};

std::string describe(const Case& c, GemmIsa isa, bool accumulate) {
  char text[160];
  std::snprintf(text, sizeof(text), "%s M=%lld N=%lld K=%lld A=%s B=%s accumulate=%d", isaName(isa),
                static_cast<long long>(c.M), static_cast<long long>(c.N),
                static_cast<long long>(c.K), layoutName(c.a), layoutName(c.b), accumulate);
  return text;
}

// Runs one case on one ISA and checks every element (and C's padding).
void checkCase(const Case& c, GemmIsa isa, bool accumulate, uint32_t seed) {
  SCOPED_TRACE(describe(c, isa, accumulate));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operand a(c.M, c.K, c.a);
  Operand b(c.K, c.N, c.b);
  a.fill([&] { return dist(rng); });
  b.fill([&] { return dist(rng); });
  OutputMatrix out(c.M, c.N);
  for (int64_t i = 0; i < c.M; ++i) {
    for (int64_t j = 0; j < c.N; ++j) {
      // Without accumulate C's old contents must not leak in, not even NaN.
      out.at(i, j) = accumulate ? dist(rng) : std::nanf("");
    }
  }
  const OutputMatrix before = out;

  Scratch scratch;
  aclcpu::kernels::sgemm(c.M, c.N, c.K, a.view(), b.view(), out.data.data(), out.ldc, accumulate,
                         scratch.get());

  ASSERT_TRUE(scratch.guardIntact()) << "sgemm wrote past gemmScratchBytes()";
  ASSERT_TRUE(out.paddingIntact()) << "sgemm wrote outside C";
  const double u = std::ldexp(1.0, -24);
  int64_t failures = 0;
  for (int64_t i = 0; i < c.M && failures < 5; ++i) {
    for (int64_t j = 0; j < c.N && failures < 5; ++j) {
      double exact = accumulate ? before.at(i, j) : 0.0;
      double magnitude = std::fabs(exact);
      for (int64_t k = 0; k < c.K; ++k) {
        const double term = static_cast<double>(a.at(i, k)) * b.at(k, j);
        exact += term;
        magnitude += std::fabs(term);
      }
      const double bound = (c.K + 2) * u * magnitude;
      const double got = out.at(i, j);
      if (!(std::fabs(got - exact) <= bound)) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", expected " << exact
                      << " within " << bound;
        ++failures;
      }
    }
  }
}

class GemmAccuracy : public ::testing::TestWithParam<GemmIsa> {};

TEST_P(GemmAccuracy, TinyAndPrimeShapes) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  const Case cases[] = {{1, 1, 1}, {1, 1, 7},   {1, 37, 5},   {29, 1, 11},
                        {2, 3, 5}, {7, 13, 17}, {31, 37, 41}, {97, 89, 83}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (bool accumulate : {false, true}) checkCase(c, GetParam(), accumulate, seed++);
  }
}

// Edges around every register tile in use: 4x16 (scalar), 6x16 (AVX2),
// 8x48 (AVX-512).
TEST_P(GemmAccuracy, RaggedTileEdges) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  uint32_t seed = 100;
  for (int64_t m : {1, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17}) {
    for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 97}) {
      checkCase({m, n, 9}, GetParam(), (m + n) % 2 == 0, seed++);
    }
  }
}

// Edges around the default cache blocks: kc = 256 (K blocks are balanced, so
// 257 -> 129 + 128), mc = 64..144, nc = 480 or 512.
TEST_P(GemmAccuracy, CacheBlockEdges) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  const Case cases[] = {{13, 40, 255},   {13, 40, 256}, {13, 40, 257}, {9, 33, 513},  {143, 20, 30},
                        {145, 20, 30},   {289, 19, 21}, {10, 511, 20}, {10, 513, 20}, {7, 1025, 16},
                        {150, 530, 260}, {3, 481, 5},   {65, 960, 7}};
  uint32_t seed = 200;
  for (const Case& c : cases) {
    for (bool accumulate : {false, true}) checkCase(c, GetParam(), accumulate, seed++);
  }
}

TEST_P(GemmAccuracy, LargeK) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  checkCase({5, 19, 4099}, GetParam(), false, 300);
  checkCase({17, 35, 2500}, GetParam(), true, 301);
}

TEST_P(GemmAccuracy, StridedAndTransposedViews) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  const Layout layouts[] = {Layout::RowMajor, Layout::ColMajor, Layout::Strided, Layout::Reversed};
  uint32_t seed = 400;
  for (Layout la : layouts) {
    for (Layout lb : layouts) {
      checkCase({27, 45, 33, la, lb}, GetParam(), seed % 2 == 0, seed);
      ++seed;
    }
  }
  checkCase({20, 70, 300, Layout::ColMajor, Layout::ColMajor}, GetParam(), true, seed++);
  // Zero strides: all rows of A (or of B) are one row.
  checkCase({14, 33, 12, Layout::Broadcast, Layout::RowMajor}, GetParam(), false, seed++);
  checkCase({14, 33, 12, Layout::RowMajor, Layout::Broadcast}, GetParam(), true, seed++);
}

// A row-major B's whole slivers are packed by the first A sliver's tiles
// and prefetched by the others' (AVX-512): one, two and many A slivers, a
// second A block that reads what the first packed, ragged slivers packed
// before, several K and N blocks, and a B whose rows are one row (stride 0).
TEST_P(GemmAccuracy, RowMajorBPackedByTheTiles) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  const Case cases[] = {{8, 96, 3},      {9, 480, 64},    {16, 144, 1},
                        {200, 1000, 40}, {145, 530, 513}, {64, 1100, 256}};
  uint32_t seed = 450;
  for (const Case& c : cases) {
    for (bool accumulate : {false, true}) checkCase(c, GetParam(), accumulate, seed++);
  }
  checkCase({40, 200, 20, Layout::RowMajor, Layout::Broadcast}, GetParam(), false, seed++);
}

// Tiny cache blocks put many K, M and N block boundaries inside small shapes.
TEST_P(GemmAccuracy, TinyCacheBlocks) {
  ForcedIsa forced(GetParam());
  ASSERT_TRUE(forced.ok());
  BlockingGuard restore;
  ASSERT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(7, 1, 1));  // one tile per block
  checkCase({37, 101, 50, Layout::RowMajor, Layout::ColMajor}, GetParam(), false, 500);
  checkCase({20, 60, 15, Layout::ColMajor, Layout::RowMajor}, GetParam(), true, 501);
  ASSERT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(5, 20, 50));
  checkCase({45, 130, 23, Layout::Strided, Layout::RowMajor}, GetParam(), true, 502);
}

INSTANTIATE_TEST_SUITE_P(EverySupportedIsa, GemmAccuracy, ::testing::ValuesIn(supportedIsas()),
                         [](const ::testing::TestParamInfo<GemmIsa>& info) {
                           return std::string(isaName(info.param));
                         });

}  // namespace
}  // namespace gemm_test
