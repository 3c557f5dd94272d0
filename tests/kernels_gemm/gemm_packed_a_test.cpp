// sgemm with A packed once (packA): checked against the float64 sum, against
// sgemm on the same view (the same bits: packing only copies), within the
// buffer packedABytes promises, across threads, and when the kernel or its
// blocking changes between packing and use (the product falls back to the
// view).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gemm_test_support.h"

namespace gemm_test {
namespace {

using aclcpu::kernels::overrideGemmBlockingForTesting;
using aclcpu::kernels::PackedA;
using aclcpu::kernels::packedABytes;
using aclcpu::kernels::PackedBSource;
using aclcpu::kernels::sgemm;

// packA's destination: packedABytes(M, K) bytes and a guard band.
Scratch packBuffer(int64_t M, int64_t K) { return Scratch(packedABytes(M, K)); }

struct Problem {
  Operand a, b;
  Problem(const GemmShape& s, Layout aLayout, uint32_t seed)
      : a(s.M, s.K, aLayout), b(s.K, s.N, Layout::RowMajor) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    a.fill([&] { return dist(rng); });
    b.fill([&] { return dist(rng); });
  }
  double product(int64_t i, int64_t j) const {
    double sum = 0.0;
    for (int64_t p = 0; p < a.cols(); ++p) sum += static_cast<double>(a.at(i, p)) * b.at(p, j);
    return sum;
  }
};

// B handed over as a PackedBSource that packs from a row-major matrix.
void packRowMajorBlock(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb,
                       int slot, float* dst) {
  const Operand& b = *static_cast<const Operand*>(context);
  const int64_t slivers = (nb + slot - 1) / slot;
  for (int64_t s = 0; s < slivers; ++s) {
    for (int64_t p = 0; p < kb; ++p) {
      for (int64_t l = 0; l < slot; ++l) {
        const int64_t col = s * slot + l;
        dst[(s * kb + p) * slot + l] = col < nb ? b.at(k0 + p, n0 + col) : 0.0f;
      }
    }
  }
}

// Shapes with several row blocks (mc 144), K blocks (kc 256: 600 -> 3 x
// 200) and column blocks (nc 480), ragged everywhere; A row-major and
// transposed (the data gradient's weights); with C accumulated and a bias.
TEST(GemmPackedA, MatchesFloat64SumAndTheViewsBits) {
  forEachIsaAndShape({{19, 53, 100}, {150, 500, 600}, {8, 48, 1}}, [](const GemmShape& s) {
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      SCOPED_TRACE(layoutName(layout));
      Problem p(s, layout, 11);
      std::vector<float> bias(static_cast<size_t>(s.M));
      for (int64_t i = 0; i < s.M; ++i) bias[i] = 0.25f * static_cast<float>(i % 5);
      Scratch buffer = packBuffer(s.M, s.K);
      const PackedA packed = aclcpu::kernels::packA(s.M, s.K, p.a.view(), buffer.floats());
      ASSERT_TRUE(buffer.guardIntact());
      ASSERT_NE(packed.data, nullptr);
      Scratch scratch;
      OutputMatrix viaPacked(s.M, s.N), viaView(s.M, s.N), viaSource(s.M, s.N);
      for (OutputMatrix* out : {&viaPacked, &viaView, &viaSource}) {
        for (int64_t i = 0; i < s.M; ++i) {
          for (int64_t j = 0; j < s.N; ++j) out->at(i, j) = 0.5f;
        }
      }
      sgemm(s.M, s.N, s.K, packed, p.b.view(), viaPacked.data.data(), viaPacked.ldc, true,
            scratch.get(), bias.data());
      sgemm(s.M, s.N, s.K, p.a.view(), p.b.view(), viaView.data.data(), viaView.ldc, true,
            scratch.get(), bias.data());
      sgemm(s.M, s.N, s.K, packed, PackedBSource{packRowMajorBlock, &p.b}, viaSource.data.data(),
            viaSource.ldc, true, scratch.get(), bias.data());
      ASSERT_TRUE(scratch.guardIntact());
      ASSERT_TRUE(viaPacked.paddingIntact());
      for (int64_t i = 0; i < s.M; ++i) {
        for (int64_t j = 0; j < s.N; ++j) {
          const double expected = 0.5 + p.product(i, j) + bias[i];
          ASSERT_NEAR(viaPacked.at(i, j), expected, (s.K + 2) * 1.2e-7)
              << "at (" << i << ", " << j << ")";
        }
      }
      EXPECT_EQ(0, std::memcmp(viaPacked.data.data(), viaView.data.data(),
                               viaView.data.size() * sizeof(float)));
      EXPECT_EQ(0, std::memcmp(viaSource.data.data(), viaView.data.data(),
                               viaView.data.size() * sizeof(float)));
    }
  });
}

// HF32-rounded A: packed rounded once, the same bits as the view rounded
// as each product packs it.
TEST(GemmPackedA, RoundsHf32AsTheViewDoes) {
  forEachIsaAndShape({{40, 130, 300}}, [](const GemmShape& s) {
    Problem p(s, Layout::RowMajor, 3);
    MatrixView a = p.a.view();
    a.roundHf32 = true;
    Scratch buffer = packBuffer(s.M, s.K);
    const PackedA packed = aclcpu::kernels::packA(s.M, s.K, a, buffer.floats());
    Scratch scratch;
    OutputMatrix viaPacked(s.M, s.N), viaView(s.M, s.N), unrounded(s.M, s.N);
    sgemm(s.M, s.N, s.K, packed, p.b.view(), viaPacked.data.data(), viaPacked.ldc, false,
          scratch.get());
    sgemm(s.M, s.N, s.K, a, p.b.view(), viaView.data.data(), viaView.ldc, false, scratch.get());
    sgemm(s.M, s.N, s.K, p.a.view(), p.b.view(), unrounded.data.data(), unrounded.ldc, false,
          scratch.get());
    EXPECT_EQ(0, std::memcmp(viaPacked.data.data(), viaView.data.data(),
                             viaView.data.size() * sizeof(float)));
    // The rounding happened: it changes the product.
    EXPECT_NE(0, std::memcmp(viaPacked.data.data(), unrounded.data.data(),
                             unrounded.data.size() * sizeof(float)));
  });
}

// Packed under one kernel or blocking, used under another: the product is
// that of the view under the second (the packed layout would be wrong).
TEST(GemmPackedA, FallsBackToTheViewWhenTheKernelChanged) {
  const GemmShape s{37, 101, 300};
  Problem p(s, Layout::ColMajor, 5);
  Scratch buffer = packBuffer(s.M, s.K);
  PackedA packed;
  {
    ForcedIsa scalar(GemmIsa::Scalar);
    ASSERT_TRUE(scalar.ok());
    packed = aclcpu::kernels::packA(s.M, s.K, p.a.view(), buffer.floats());
  }
  for (GemmIsa isa : supportedIsas()) {
    ForcedIsa forced(isa);
    SCOPED_TRACE(isaName(isa));
    for (int64_t kc : {0, 64}) {
      BlockingGuard restore;
      ASSERT_TRUE(overrideGemmBlockingForTesting(kc, 0, 0));
      Scratch scratch;
      OutputMatrix viaPacked(s.M, s.N), viaView(s.M, s.N);
      sgemm(s.M, s.N, s.K, packed, p.b.view(), viaPacked.data.data(), viaPacked.ldc, false,
            scratch.get());
      sgemm(s.M, s.N, s.K, p.a.view(), p.b.view(), viaView.data.data(), viaView.ldc, false,
            scratch.get());
      EXPECT_EQ(0, std::memcmp(viaPacked.data.data(), viaView.data.data(),
                               viaView.data.size() * sizeof(float)))
          << "kc " << kc;
    }
  }
}

TEST(GemmPackedA, BitIdenticalAcrossThreadCounts) {
  forEachIsaAndShape({{512, 99, 130}, {24, 800, 600}}, [](const GemmShape& s) {
    Problem p(s, Layout::ColMajor, 23);
    Scratch buffer = packBuffer(s.M, s.K);
    expectSameBitsForThreadCounts(s.M, s.N, [&](OutputMatrix& out, void* scratch) {
      const PackedA packed = aclcpu::kernels::packA(s.M, s.K, p.a.view(), buffer.floats());
      sgemm(s.M, s.N, s.K, packed, p.b.view(), out.data.data(), out.ldc, false, scratch);
    });
    EXPECT_TRUE(buffer.guardIntact());
  });
}

}  // namespace
}  // namespace gemm_test
