// sgemmTaps: a product whose K runs over several views of A and B (a
// convolution's taps as shifted views of one input). Checked against the
// float64 sum, against sgemm on the concatenated matrices (the same bits
// when every view's K blocks are the concatenation's), and across threads.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "gemm_test_support.h"

namespace gemm_test {
namespace {

using aclcpu::kernels::overrideGemmBlockingForTesting;
using aclcpu::kernels::sgemm;
using aclcpu::kernels::sgemmTaps;

// Tap t of a 1D convolution-like product: A_t = w[o][c * taps + t] (a
// strided view), B_t = the rows of x shifted right by t (x rows hold N +
// taps - 1 values).
struct TapProblem {
  int64_t M, N, tapK, taps;
  std::vector<float> w, x;
  std::vector<MatrixView> a, b;
  int64_t xRow() const { return N + taps - 1; }

  TapProblem(int64_t m, int64_t n, int64_t tapK_, int64_t taps_, uint32_t seed)
      : M(m), N(n), tapK(tapK_), taps(taps_) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    w.resize(static_cast<size_t>(M * tapK * taps));
    x.resize(static_cast<size_t>(tapK * xRow()));
    for (float& v : w) v = dist(rng);
    for (float& v : x) v = dist(rng);
    for (int64_t t = 0; t < taps; ++t) {
      a.push_back(MatrixView{w.data() + t, tapK * taps, taps});
      b.push_back(MatrixView{x.data() + t, xRow(), 1});
    }
  }
  double product(int64_t i, int64_t j) const {
    double sum = 0.0;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < tapK; ++c)
        sum += static_cast<double>(w[i * tapK * taps + c * taps + t]) * x[c * xRow() + j + t];
    }
    return sum;
  }
  // [A_0 ... A_taps-1] and [B_0; ...; B_taps-1] as plain row-major matrices.
  std::vector<float> concatenatedA() const {
    std::vector<float> out;
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t t = 0; t < taps; ++t) {
        for (int64_t c = 0; c < tapK; ++c) out.push_back(w[i * tapK * taps + c * taps + t]);
      }
    }
    return out;
  }
  std::vector<float> concatenatedB() const {
    std::vector<float> out;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < tapK; ++c) {
        for (int64_t j = 0; j < N; ++j) out.push_back(x[c * xRow() + j + t]);
      }
    }
    return out;
  }
};

// Ragged views (tapK 100 and 300: K blocks that end inside a view's rows in
// the concatenated product), C accumulated and a row bias, on every ISA:
// within the float64 sum's rounding bound.
TEST(GemmTaps, MatchFloat64Sum) {
  forEachIsaAndShape({{19, 53, 100}, {40, 130, 300}, {8, 48, 1}}, [](const GemmShape& s) {
    for (int64_t taps : {1, 3, 10}) {
      TapProblem p(s.M, s.N, s.K, taps, 5 + static_cast<uint32_t>(taps));
      std::vector<float> bias(static_cast<size_t>(s.M));
      for (int64_t i = 0; i < s.M; ++i) bias[i] = 0.125f * static_cast<float>(i % 7);
      Scratch scratch;
      OutputMatrix out(s.M, s.N);
      for (int64_t i = 0; i < s.M; ++i) {
        for (int64_t j = 0; j < s.N; ++j) out.at(i, j) = 0.5f;
      }
      sgemmTaps(s.M, s.N, s.K, taps, p.a.data(), p.b.data(), out.data.data(), out.ldc, true,
                scratch.get(), bias.data());
      ASSERT_TRUE(scratch.guardIntact());
      ASSERT_TRUE(out.paddingIntact());
      const double terms = static_cast<double>(s.K * taps);
      for (int64_t i = 0; i < s.M; ++i) {
        for (int64_t j = 0; j < s.N; ++j) {
          const double expected = 0.5 + p.product(i, j) + bias[i];
          // |terms| <= 1 each: the fp32 sum's error stays under K eps-sized steps.
          ASSERT_NEAR(out.at(i, j), expected, (terms + 2) * 1.2e-7)
              << "taps " << taps << " at (" << i << ", " << j << ")";
        }
      }
    }
  });
}

// When each view's rows are whole K blocks of the concatenated product
// (tapK 256 = the default kc; tapK 96 under kc 48), the taps product is
// that product bit for bit: the same blocks, order and micro-kernel.
TEST(GemmTaps, AlignedViewsGiveTheConcatenatedProductsBits) {
  BlockingGuard restore;
  for (const int64_t kc : {0, 48}) {
    ASSERT_TRUE(overrideGemmBlockingForTesting(kc, 0, 0));
    const int64_t tapK = kc == 0 ? 256 : 96;
    forEachIsaAndShape({{37, 101, tapK}, {8, 480, tapK}}, [&](const GemmShape& s) {
      const int64_t taps = 3;
      TapProblem p(s.M, s.N, s.K, taps, 17);
      const std::vector<float> a = p.concatenatedA(), b = p.concatenatedB();
      Scratch scratch;
      OutputMatrix viaTaps(s.M, s.N), whole(s.M, s.N);
      sgemmTaps(s.M, s.N, s.K, taps, p.a.data(), p.b.data(), viaTaps.data.data(), viaTaps.ldc,
                false, scratch.get());
      sgemm(s.M, s.N, s.K * taps, MatrixView{a.data(), s.K * taps, 1}, MatrixView{b.data(), s.N, 1},
            whole.data.data(), whole.ldc, false, scratch.get());
      ASSERT_EQ(
          0, std::memcmp(viaTaps.data.data(), whole.data.data(), whole.data.size() * sizeof(float)))
          << "kc " << kc;
    });
  }
}

TEST(GemmTaps, BitIdenticalAcrossThreadCounts) {
  forEachIsaAndShape({{512, 99, 130}, {24, 800, 200}}, [](const GemmShape& s) {
    TapProblem p(s.M, s.N, s.K, 4, 23);
    expectSameBitsForThreadCounts(s.M, s.N, [&](OutputMatrix& out, void* scratch) {
      sgemmTaps(s.M, s.N, s.K, 4, p.a.data(), p.b.data(), out.data.data(), out.ldc, false, scratch);
    });
  });
}

}  // namespace
}  // namespace gemm_test
