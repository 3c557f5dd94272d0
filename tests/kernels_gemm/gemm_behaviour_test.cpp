// Exactness, empty sizes, determinism across thread counts, nesting inside a
// parallel region, and the ISA dispatch hooks.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "gemm_test_support.h"
#include "kernels/convert/convert.h"

namespace gemm_test {
namespace {

using aclcpu::kernels::gemmScratchBytes;
using aclcpu::kernels::sgemm;

// Small integers keep every partial sum exact in fp32 (|sum| < 2^24), so the
// result must equal the integer product exactly, whatever the blocking.
TEST(GemmExact, SmallIntegersGiveExactProducts) {
  const int64_t M = 37, N = 75, K = 700;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> digit(-3, 3);
  Operand a(M, K, Layout::RowMajor);
  Operand b(K, N, Layout::ColMajor);
  a.fill([&] { return static_cast<float>(digit(rng)); });
  b.fill([&] { return static_cast<float>(digit(rng)); });
  std::vector<int64_t> exact(M * N, 0);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t k = 0; k < K; ++k) {
        exact[i * N + j] += static_cast<int64_t>(a.at(i, k)) * static_cast<int64_t>(b.at(k, j));
      }
    }
  }
  for (GemmIsa isa : supportedIsas()) {
    SCOPED_TRACE(isaName(isa));
    ForcedIsa forced(isa);
    ASSERT_TRUE(forced.ok());
    for (bool accumulate : {false, true}) {
      OutputMatrix out(M, N);
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) out.at(i, j) = accumulate ? static_cast<float>(i - j) : 0.f;
      }
      Scratch scratch;
      sgemm(M, N, K, a.view(), b.view(), out.data.data(), out.ldc, accumulate, scratch.get());
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
          const double want = static_cast<double>(exact[i * N + j] + (accumulate ? i - j : 0));
          ASSERT_EQ(out.at(i, j), want) << "at (" << i << "," << j << ") accumulate=" << accumulate;
        }
      }
    }
  }
}

TEST(GemmExact, HandComputedTwoByTwo) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]; plus the old C when accumulating.
  const float a[] = {1, 2, 3, 4};
  const float b[] = {5, 6, 7, 8};
  float c[] = {1, 1, 1, 1};
  Scratch scratch;
  sgemm(2, 2, 2, MatrixView{a, 2, 1}, MatrixView{b, 2, 1}, c, 2, true, scratch.get());
  EXPECT_EQ(c[0], 20.0f);
  EXPECT_EQ(c[1], 23.0f);
  EXPECT_EQ(c[2], 44.0f);
  EXPECT_EQ(c[3], 51.0f);
  // Transposed views of the same storage: A^T * B^T = (B A)^T = [23 31; 34 46].
  sgemm(2, 2, 2, MatrixView{a, 1, 2}, MatrixView{b, 1, 2}, c, 2, false, scratch.get());
  EXPECT_EQ(c[0], 23.0f);
  EXPECT_EQ(c[1], 31.0f);
  EXPECT_EQ(c[2], 34.0f);
  EXPECT_EQ(c[3], 46.0f);
}

TEST(GemmEdgeSizes, ZeroKClearsOrKeepsC) {
  std::vector<float> c(3 * 5, 2.5f);
  Scratch scratch;
  const float dummy = 1.0f;
  const MatrixView none{&dummy, 0, 0};
  sgemm(3, 4, 0, none, none, c.data(), 5, true, scratch.get());
  for (float v : c) EXPECT_EQ(v, 2.5f);
  c.assign(c.size(), std::nanf(""));
  sgemm(3, 4, 0, none, none, c.data(), 5, false, scratch.get());
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) {
      if (j < 4) {
        EXPECT_EQ(c[i * 5 + j], 0.0f);
      } else {
        EXPECT_TRUE(std::isnan(c[i * 5 + j])) << "column past N was written";
      }
    }
  }
}

TEST(GemmEdgeSizes, ZeroMOrNTouchesNothing) {
  const float a[] = {1, 2, 3};
  float c[] = {7, 7, 7};
  Scratch scratch;
  sgemm(0, 3, 1, MatrixView{a, 1, 1}, MatrixView{a, 3, 1}, c, 3, false, scratch.get());
  sgemm(1, 0, 3, MatrixView{a, 3, 1}, MatrixView{a, 1, 1}, c, 3, false, scratch.get());
  for (float v : c) EXPECT_EQ(v, 7.0f);
}

// The result must be bit-identical for 1, 2 and 3 threads: C is split
// differently (along M or N, at different tiles) but K never is.
TEST(GemmDeterminism, BitIdenticalAcrossThreadCounts) {
  forEachIsaAndShape({{64, 700, 300}, {700, 40, 530}, {151, 149, 257}}, [](const GemmShape& s) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    Operand a(s.M, s.K, Layout::RowMajor);
    Operand b(s.K, s.N, Layout::RowMajor);
    a.fill([&] { return dist(rng); });
    b.fill([&] { return dist(rng); });
    expectSameBitsForThreadCounts(s.M, s.N, [&](OutputMatrix& out, void* scratch) {
      for (float& v : out.data) v = 0.25f;
      sgemm(s.M, s.N, s.K, a.view(), b.view(), out.data.data(), out.ldc, true, scratch);
    });
  });
}

// A product whose last tile is short of columns (the AVX-512 kernel's
// narrow edge tiles) gives each column the bits of the same column computed
// inside whole tiles: B's first n columns against B with more columns
// after them, C stored and accumulated, on every ISA.
TEST(GemmDeterminism, ColumnEdgesGiveTheWholeTilesBits) {
  forEachIsaAndShape({{16, 1, 37},
                      {24, 16, 300},
                      {8, 17, 64},
                      {40, 32, 260},
                      {8, 33, 9},
                      {16, 40, 513},
                      {32, 64, 200},
                      {64, 256, 100},
                      {8, 527, 70}},
                     [](const GemmShape& s) {
                       const int64_t wide = (s.N + 47) / 48 * 48 + 48;
                       std::mt19937 rng(static_cast<unsigned>(s.N * 31 + s.K));
                       std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
                       Operand a(s.M, s.K, Layout::RowMajor);
                       Operand b(s.K, wide, Layout::RowMajor);
                       a.fill([&] { return dist(rng); });
                       b.fill([&] { return dist(rng); });
                       MatrixView narrowB = b.view();  // the same rows, fewer columns
                       for (bool accumulate : {false, true}) {
                         Scratch scratch;
                         OutputMatrix edge(s.M, s.N), whole(s.M, wide);
                         for (int64_t i = 0; i < s.M; ++i) {
                           for (int64_t j = 0; j < wide; ++j) {
                             const float start = 0.125f * static_cast<float>((i + j) % 7);
                             whole.at(i, j) = start;
                             if (j < s.N) edge.at(i, j) = start;
                           }
                         }
                         sgemm(s.M, s.N, s.K, a.view(), narrowB, edge.data.data(), edge.ldc,
                               accumulate, scratch.get());
                         sgemm(s.M, wide, s.K, a.view(), b.view(), whole.data.data(), whole.ldc,
                               accumulate, scratch.get());
                         ASSERT_TRUE(scratch.guardIntact());
                         ASSERT_TRUE(edge.paddingIntact());
                         for (int64_t i = 0; i < s.M; ++i) {
                           for (int64_t j = 0; j < s.N; ++j) {
                             uint32_t x = 0, y = 0;
                             std::memcpy(&x, &edge.at(i, j), 4);
                             std::memcpy(&y, &whole.at(i, j), 4);
                             ASSERT_EQ(x, y)
                                 << "C(" << i << ", " << j << ") accumulate " << accumulate;
                           }
                         }
                       }
                     });
}

// Raw operands rounded to HF32 as packed (MatrixView::roundHf32) give the
// bits of the same product on operands rounded beforehand, for B packed
// before use and B packed by the tiles (row-major, whole slivers, AVX-512),
// with values at HF32 ties.
TEST(GemmHf32, RoundingAsPackedEqualsRoundedOperands) {
  forEachIsaAndShape({{64, 500, 70}, {9, 97, 300}, {150, 48, 5}}, [](const GemmShape& s) {
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto raw = [&] {
      float v = dist(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      if (rng() % 4 == 0) bits = (bits & 0xfffff000u) | 0x800u;  // a tie
      std::memcpy(&v, &bits, 4);
      return v;
    };
    for (Layout lb : {Layout::RowMajor, Layout::ColMajor}) {
      Operand a(s.M, s.K, Layout::RowMajor), b(s.K, s.N, lb);
      Operand ar(s.M, s.K, Layout::RowMajor), br(s.K, s.N, lb);
      a.fill(raw);
      b.fill(raw);
      for (int64_t i = 0; i < s.M; ++i)
        for (int64_t k = 0; k < s.K; ++k)
          ar.at(i, k) = aclcpu::kernels::roundFloat(a.at(i, k), aclcpu::kernels::Rounding::HF32);
      for (int64_t k = 0; k < s.K; ++k)
        for (int64_t j = 0; j < s.N; ++j)
          br.at(k, j) = aclcpu::kernels::roundFloat(b.at(k, j), aclcpu::kernels::Rounding::HF32);
      aclcpu::kernels::MatrixView av = a.view(), bv = b.view();
      av.roundHf32 = bv.roundHf32 = true;
      Scratch scratch;
      OutputMatrix got(s.M, s.N), want(s.M, s.N);
      sgemm(s.M, s.N, s.K, av, bv, got.data.data(), got.ldc, false, scratch.get());
      sgemm(s.M, s.N, s.K, ar.view(), br.view(), want.data.data(), want.ldc, false, scratch.get());
      ASSERT_EQ(0, std::memcmp(got.data.data(), want.data.data(), got.data.size() * 4))
          << layoutName(lb) << " B";
    }
  });
}

// Convolution passes may call sgemm from inside their own parallel region;
// sgemm then runs inline and must give the same bits.
TEST(GemmDeterminism, NestedInsideParallelRegion) {
  ThreadCountGuard restore;
  aclcpu::setComputeThreadCount(2);
  const int64_t M = 96, N = 400, K = 200;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operand a(M, K, Layout::RowMajor);
  Operand b(K, N, Layout::ColMajor);
  a.fill([&] { return dist(rng); });
  b.fill([&] { return dist(rng); });
  OutputMatrix direct(M, N);
  Scratch directScratch;
  sgemm(M, N, K, a.view(), b.view(), direct.data.data(), direct.ldc, false, directScratch.get());

  std::vector<OutputMatrix> nested(4, OutputMatrix(M, N));
  std::vector<Scratch> scratches(4);
  aclcpu::parallelFor(4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      sgemm(M, N, K, a.view(), b.view(), nested[i].data.data(), nested[i].ldc, false,
            scratches[i].get());
    }
  });
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(scratches[i].guardIntact());
    EXPECT_EQ(0, std::memcmp(direct.data.data(), nested[i].data.data(),
                             direct.data.size() * sizeof(float)));
  }
}

TEST(GemmDispatch, ScratchCoversEveryThread) {
  ThreadCountGuard restore;
  aclcpu::setComputeThreadCount(1);
  const uint64_t one = gemmScratchBytes();
  aclcpu::setComputeThreadCount(3);
  EXPECT_GT(one, 0u);
  EXPECT_EQ(gemmScratchBytes(), 3 * one);
  EXPECT_EQ(one % 64, 0u);
}

TEST(GemmDispatch, BlockingOverrideMustFitTheScratch) {
  EXPECT_FALSE(aclcpu::kernels::overrideGemmBlockingForTesting(1 << 20, 0, 0));
  EXPECT_FALSE(aclcpu::kernels::overrideGemmBlockingForTesting(-1, 0, 0));
  EXPECT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(16, 16, 64));
  EXPECT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(0, 0, 0));
}

// Many parts and many blocks per part must still give identical bits.
TEST(GemmDeterminism, TinyBlocksAcrossThreadCounts) {
  ThreadCountGuard restore;
  BlockingGuard restoreBlocks;
  ASSERT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(9, 16, 64));
  const int64_t M = 300, N = 257, K = 100;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Operand a(M, K, Layout::ColMajor);
  Operand b(K, N, Layout::RowMajor);
  a.fill([&] { return dist(rng); });
  b.fill([&] { return dist(rng); });
  std::vector<float> first;
  for (int threads : {1, 2}) {
    aclcpu::setComputeThreadCount(threads);
    Scratch scratch;
    OutputMatrix out(M, N);
    sgemm(M, N, K, a.view(), b.view(), out.data.data(), out.ldc, false, scratch.get());
    ASSERT_TRUE(scratch.guardIntact());
    if (first.empty()) {
      first = out.data;
    } else {
      ASSERT_EQ(0, std::memcmp(first.data(), out.data.data(), first.size() * sizeof(float)));
    }
  }
}

// The row bias is added after each element's whole sum: the bits of the
// same GEMM plus the bias added afterwards, on every ISA, with several K
// blocks (kc 9), ragged edge tiles, accumulation into C and 1 or 2 threads;
// columns past N stay untouched.
TEST(GemmRowBias, EqualsTheBiasAddedAfterTheSum) {
  ThreadCountGuard restore;
  BlockingGuard restoreBlocks;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (GemmIsa isa : supportedIsas()) {
    ForcedIsa forced(isa);
    ASSERT_TRUE(forced.ok());
    for (int64_t kc : {0, 9}) {
      ASSERT_TRUE(aclcpu::kernels::overrideGemmBlockingForTesting(kc, 0, 0));
      for (bool accumulate : {false, true}) {
        for (int threads : {1, 2}) {
          aclcpu::setComputeThreadCount(threads);
          const int64_t M = 37, N = 101, K = 50;
          Operand a(M, K, Layout::RowMajor);
          Operand b(K, N, Layout::RowMajor);
          a.fill([&] { return dist(rng); });
          b.fill([&] { return dist(rng); });
          std::vector<float> bias(M);
          for (float& v : bias) v = dist(rng);
          OutputMatrix plain(M, N), biased(M, N);
          for (size_t i = 0; i < plain.data.size(); ++i) plain.data[i] = biased.data[i] = dist(rng);
          Scratch scratch;
          sgemm(M, N, K, a.view(), b.view(), plain.data.data(), plain.ldc, accumulate,
                scratch.get());
          sgemm(M, N, K, a.view(), b.view(), biased.data.data(), biased.ldc, accumulate,
                scratch.get(), bias.data());
          ASSERT_TRUE(scratch.guardIntact());
          for (int64_t i = 0; i < M; ++i) {
            for (int64_t j = 0; j < plain.ldc; ++j) {
              const float expected = plain.data[i * plain.ldc + j] + (j < N ? bias[i] : 0.0f);
              const float got = biased.data[i * biased.ldc + j];
              ASSERT_EQ(0, std::memcmp(&expected, &got, sizeof got))
                  << "row " << i << " column " << j << " kc " << kc << " accumulate " << accumulate
                  << " threads " << threads;
            }
          }
        }
      }
    }
  }
  // An empty reduction: C = 0 + bias.
  std::vector<float> c(2 * 3, 9.0f);
  const float bias[] = {1.5f, -2.0f};
  const float dummy = 1.0f;
  Scratch scratch;
  sgemm(2, 3, 0, MatrixView{&dummy, 0, 0}, MatrixView{&dummy, 0, 0}, c.data(), 3, false,
        scratch.get(), bias);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c[i], bias[i / 3]);
}

TEST(GemmDispatch, ForcingAnIsaChangesTheKernelName) {
  const std::string automatic = aclcpu::kernels::gemmKernelName();
  EXPECT_FALSE(automatic.empty());
  {
    ForcedIsa forced(GemmIsa::Scalar);
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(std::string(aclcpu::kernels::gemmKernelName()).rfind("scalar", 0), 0u);
  }
  EXPECT_EQ(automatic, aclcpu::kernels::gemmKernelName());
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    EXPECT_EQ(automatic.rfind("avx512", 0), 0u);
  } else if (!__builtin_cpu_supports("avx2")) {
    EXPECT_FALSE(aclcpu::kernels::forceGemmIsaForTesting(GemmIsa::Avx2));
  }
}

// Hand cases of the transposition rule, per kernel (mr x nr: scalar 4 x 16,
// AVX2 6 x 16, AVX-512 8 x 48): a 512 x 10 product fills 0.62, 0.62 and 0.21
// of its tiles, 10 x 512 fills 0.83, 0.83 and 0.61 (1.25x is the margin).
TEST(GemmDispatch, TransposedProductsAreChosenWhenTheyFillTilesClearlyBetter) {
  using aclcpu::kernels::gemmFillsBetterTransposed;
  for (GemmIsa isa : supportedIsas()) {
    ForcedIsa forced(isa);
    ASSERT_TRUE(forced.ok());
    const std::string kernel = aclcpu::kernels::gemmKernelName();
    EXPECT_TRUE(gemmFillsBetterTransposed(512, 10)) << kernel;
    EXPECT_FALSE(gemmFillsBetterTransposed(10, 512)) << kernel;
    EXPECT_FALSE(gemmFillsBetterTransposed(256, 256)) << kernel;  // full tiles either way
    EXPECT_FALSE(gemmFillsBetterTransposed(0, 10)) << kernel;
    EXPECT_FALSE(gemmFillsBetterTransposed(10, 0)) << kernel;
  }
}

}  // namespace
}  // namespace gemm_test
