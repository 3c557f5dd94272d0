// AVX2 row micro-kernels of the blocked direct convolution (same layouts and
// arithmetic order as the AVX-512 ones: each 16-channel block is two ymm
// halves): a tile of WT positions x one 16-channel output block, one
// broadcast per (position, reduction channel) feeding two FMAs. Tiles of two
// output blocks run block by block. Only called after a cpuid check. Keep this
// file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include <cstdint>
#include <utility>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/group_broadcast_avx2_inl.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// accumulate: add to the partial sums already in out (a later slice of the
// taps) instead of starting from zero. cols (may be null): the tile's
// ColumnClass per W tap, tap k being W tap (j0 + k) % colTaps.
using TileFn = void (*)(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                        int64_t tapStride, int64_t weightRow, float* out, int64_t outColStep,
                        bool accumulate, const uint8_t* cols, int colTaps, int j0);

// One tap of a dense tile over positions [L, WT - T).
template <int WT, int IS, int L, int T>
__attribute__((always_inline)) inline void denseTap(const float* src, const float* wk,
                                                    int64_t weightRow, __m256 (&acc)[WT][2]) {
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) {
    const __m256 w0 = _mm256_loadu_ps(wk + c * weightRow);
    const __m256 w1 = _mm256_loadu_ps(wk + c * weightRow + 8);
#pragma GCC unroll 8
    for (int t = L; t < WT - T; ++t) {
      const __m256 x = _mm256_broadcast_ss(src + t * IS * 16 + c);
      acc[t][0] = _mm256_fmadd_ps(x, w0, acc[t][0]);
      acc[t][1] = _mm256_fmadd_ps(x, w1, acc[t][1]);
    }
  }
}

// kEdges: a tile with padding columns at an edge (cols not null), each tap
// over the positions its ColumnClass leaves; an instantiation of its own,
// so that the plain tiles keep their code.
template <int WT, int IS, bool kEdges>
void denseTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
               int64_t tapStride, int64_t weightRow, float* out, int64_t outColStep,
               bool accumulate, const uint8_t* cols, int colTaps, int j0) {
  __m256 acc[WT][2];
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    acc[t][0] = accumulate ? _mm256_loadu_ps(out + t * outColStep) : _mm256_setzero_ps();
    acc[t][1] = accumulate ? _mm256_loadu_ps(out + t * outColStep + 8) : _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const float* wk = w + k * tapStride;
    if constexpr (kEdges) {
      const int cls = cols[j0];
      if (++j0 == colTaps) j0 = 0;
      runColumnClass<WT>(cls, [&](auto first, auto last) {
        denseTap<WT, IS, decltype(first)::value, decltype(last)::value>(src, wk, weightRow, acc);
      });
    } else {
      denseTap<WT, IS, 0, 0>(src, wk, weightRow, acc);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    _mm256_storeu_ps(out + t * outColStep, acc[t][0]);
    _mm256_storeu_ps(out + t * outColStep + 8, acc[t][1]);
  }
}

// G groups interleaved in one block (see f32_conv_rows_nb16_avx512.cpp):
// the broadcast of G adjacent floats serves both halves, since 8 % G == 0.
template <int WT, int G, int IS>
void groupedTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                 int64_t tapStride, int64_t /*weightRow*/, float* out, int64_t outColStep,
                 bool accumulate, const uint8_t* /*cols*/, int /*colTaps*/, int /*j0*/) {
  __m256 acc[WT][2];
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    acc[t][0] = accumulate ? _mm256_loadu_ps(out + t * outColStep) : _mm256_setzero_ps();
    acc[t][1] = accumulate ? _mm256_loadu_ps(out + t * outColStep + 8) : _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const float* wk = w + k * tapStride;
#pragma GCC unroll 8
    for (int j = 0; j < 16 / G; ++j) {
      const __m256 w0 = _mm256_loadu_ps(wk + j * 16);
      const __m256 w1 = _mm256_loadu_ps(wk + j * 16 + 8);
#pragma GCC unroll 8
      for (int t = 0; t < WT; ++t) {
        const __m256 x = groupBroadcast256<G>(src + t * IS * 16 + j * G);
        acc[t][0] = _mm256_fmadd_ps(x, w0, acc[t][0]);
        acc[t][1] = _mm256_fmadd_ps(x, w1, acc[t][1]);
      }
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    _mm256_storeu_ps(out + t * outColStep, acc[t][0]);
    _mm256_storeu_ps(out + t * outColStep + 8, acc[t][1]);
  }
}

template <int WT, int IS>
void depthwiseTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                   int64_t tapStride, int64_t /*weightRow*/, float* out, int64_t outColStep,
                   bool accumulate, const uint8_t* /*cols*/, int /*colTaps*/, int /*j0*/) {
  __m256 acc[WT][2];
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    acc[t][0] = accumulate ? _mm256_loadu_ps(out + t * outColStep) : _mm256_setzero_ps();
    acc[t][1] = accumulate ? _mm256_loadu_ps(out + t * outColStep + 8) : _mm256_setzero_ps();
  }
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const __m256 w0 = _mm256_loadu_ps(w + k * tapStride);
    const __m256 w1 = _mm256_loadu_ps(w + k * tapStride + 8);
#pragma GCC unroll 8
    for (int t = 0; t < WT; ++t) {
      acc[t][0] = _mm256_fmadd_ps(_mm256_loadu_ps(src + t * IS * 16), w0, acc[t][0]);
      acc[t][1] = _mm256_fmadd_ps(_mm256_loadu_ps(src + t * IS * 16 + 8), w1, acc[t][1]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < WT; ++t) {
    _mm256_storeu_ps(out + t * outColStep, acc[t][0]);
    _mm256_storeu_ps(out + t * outColStep + 8, acc[t][1]);
  }
}

constexpr int kMaxWide = 6;  // 12 accumulators + 2 weight vectors + 1 broadcast

template <int N>
struct Table {
  TileFn fn[N];
  TileFn operator[](int64_t i) const { return fn[i]; }
};
template <int IS, int... W>
constexpr Table<sizeof...(W)> denseTable(std::integer_sequence<int, W...>) {
  return {{&denseTile<W + 1, IS, false>...}};
}
template <int IS, int... W>
constexpr Table<sizeof...(W)> denseEdgeTable(std::integer_sequence<int, W...>) {
  return {{&denseTile<W + 1, IS, true>...}};
}
template <int G, int IS, int... W>
constexpr Table<sizeof...(W)> groupedTable(std::integer_sequence<int, W...>) {
  return {{&groupedTile<W + 1, G, IS>...}};
}
template <int IS, int... W>
constexpr Table<sizeof...(W)> depthwiseTable(std::integer_sequence<int, W...>) {
  return {{&depthwiseTile<W + 1, IS>...}};
}

constexpr auto kDense1 = denseTable<1>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kDense2 = denseTable<2>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kEdge1 = denseEdgeTable<1>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kEdge2 = denseEdgeTable<2>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kGroups2s1 = groupedTable<2, 1>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kGroups2s2 = groupedTable<2, 2>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kGroups4s1 = groupedTable<4, 1>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kGroups4s2 = groupedTable<4, 2>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kDepth1 = depthwiseTable<1>(std::make_integer_sequence<int, kMaxWide>{});
constexpr auto kDepth2 = depthwiseTable<2>(std::make_integer_sequence<int, kMaxWide>{});

// Equal tiles of at most kMaxWide positions; the taps run in slices
// (forEachTapSlice).
// edges (may be null): the tiles that leave out padding columns.
template <typename T>
void runRow(const RowJob& job, const T& table, const float* weights, int64_t weightRow, float* out,
            const T* edges = nullptr) {
  const int64_t tiles = (job.count + kMaxWide - 1) / kMaxWide;
  if (tiles == 0) return;
  forEachTapSlice(job, tiles, [&](int64_t k0, int64_t taps, bool accumulate) {
    forEachRowTile(job.count, tiles, [&](int64_t pos, int64_t wt) {
      uint8_t cols[ColumnRanges::kMaxTaps];
      const bool skips = edges && job.cols.taps > 0 && columnClasses(job.cols, pos, wt, cols);
      (skips ? *edges : table)[wt - 1](
          job.in + pos * job.inStep * 16, job.taps + k0, taps, weights + k0 * job.tapStride,
          job.tapStride, weightRow, out + pos * job.outColStep, job.outColStep, accumulate,
          skips ? cols : nullptr, job.cols.taps, skips ? static_cast<int>(k0 % job.cols.taps) : 0);
    });
  });
}

}  // namespace

void f32_conv_rows_nb16_avx2(const RowJob& job) {
  if (job.laneGroups == 2 || job.laneGroups == 4) {
    const bool s1 = job.inStep == 1;
    runRow(job,
           job.laneGroups == 2 ? (s1 ? kGroups2s1 : kGroups2s2) : (s1 ? kGroups4s1 : kGroups4s2),
           job.weights, 16, job.out);
    return;
  }
  const int64_t weightRow = job.nb * 16;
  for (int b = 0; b < job.nb; ++b) {
    runRow(job, job.inStep == 1 ? kDense1 : kDense2, job.weights + b * 16, weightRow,
           job.out + b * job.outBlockStride, job.inStep == 1 ? &kEdge1 : &kEdge2);
  }
}

void f32_dwconv_rows_nb16_avx2(const RowJob& job) {
  runRow(job, job.inStep == 1 ? kDepth1 : kDepth2, job.weights, 16, job.out);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
