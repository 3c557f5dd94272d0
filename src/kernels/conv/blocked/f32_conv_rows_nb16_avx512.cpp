// Row micro-kernels of the blocked direct convolution: a register tile of WT
// output positions x nb 16-channel blocks, one broadcast of an input value per
// (position, reduction channel) feeding nb FMAs. Only called after a cpuid
// check. Keep this file free of library templates: anything instantiated here
// is compiled with AVX-512 and could be picked by the linker for generic
// callers.

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>
#include <utility>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/group_broadcast_avx512_inl.h"
#include "kernels/simd/reduction_unroll.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Sanitizer builds unroll the channel loops less (~180 instantiations).
constexpr int kChannelUnroll = simd::kReductionUnroll;
// The input lines of the tap this many taps ahead are requested while the
// current tap computes: a tap's first broadcasts otherwise wait on L2, most
// for stride 2 (RN50 3x3/2 128ch 56x56 forward, 1 thread, medians of 5:
// 22.4 -> 20.3 ms; stride 1 layers 0.97-1.0 of before).
constexpr int64_t kPrefetchAhead = 2;

// accumulate: add to the partial sums already in out (a later slice of the
// taps) instead of starting from zero. cols (may be null): per W tap, which
// of the tile's positions it computes (ColumnClass); tap k is W tap
// (j0 + k) % colTaps.
using TileFn = void (*)(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                        int64_t tapStride, float* out, int64_t outColStep, int64_t outBlockStride,
                        bool accumulate, const uint8_t* cols, int colTaps, int j0);

// One tap of a dense tile over positions [L, WT - T).
template <int WT, int NB, int IS, int L, int T>
__attribute__((always_inline)) inline void denseTap(const float* src, const float* wk,
                                                    __m512 (&acc)[WT][NB]) {
#pragma GCC unroll kChannelUnroll
  for (int c = 0; c < 16; ++c) {
    __m512 wv[NB];
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b) wv[b] = _mm512_loadu_ps(wk + c * NB * 16 + b * 16);
#pragma GCC unroll 32
    for (int t = L; t < WT - T; ++t) {
      const __m512 x = _mm512_set1_ps(src[t * IS * 16 + c]);
#pragma GCC unroll 4
      for (int b = 0; b < NB; ++b) acc[t][b] = _mm512_fmadd_ps(x, wv[b], acc[t][b]);
    }
  }
}

// kEdges: a tile with padding columns at an edge (cols not null), each tap
// over the positions its ColumnClass leaves; an instantiation of its own,
// so that the tiles without (most of them) keep the plain loop's code. Leaving out the padding
// columns' products (a 3x3 layer on 7x7 planes spends 9.5% of its
// multiply-adds there, on 14x14 4.8%): RN50 3x3 512ch 7x7 forward, 1 thread,
// medians of 9: 20.2 -> 18.6 ms; 256ch 14x14 18.4 -> 17.8; data gradient 7x7
// 0.88-0.96 of before.
template <int WT, int NB, int IS, bool kEdges>
void denseTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
               int64_t tapStride, float* out, int64_t outColStep, int64_t outBlockStride,
               bool accumulate, const uint8_t* cols, int colTaps, int j0) {
  __m512 acc[WT][NB];
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) {
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b)
      acc[t][b] = accumulate ? _mm512_loadu_ps(out + t * outColStep + b * outBlockStride)
                             : _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const float* wk = w + k * tapStride;
    if (k + kPrefetchAhead < tapCount) {
      const char* next = reinterpret_cast<const char*>(in + taps[k + kPrefetchAhead]);
#pragma GCC unroll 32
      for (int t = 0; t < WT; ++t) _mm_prefetch(next + t * IS * 64, _MM_HINT_T0);
    }
    if constexpr (kEdges) {
      const int cls = cols[j0];
      if (++j0 == colTaps) j0 = 0;
      runColumnClass<WT>(cls, [&](auto first, auto last) {
        denseTap<WT, NB, IS, decltype(first)::value, decltype(last)::value>(src, wk, acc);
      });
    } else {
      denseTap<WT, NB, IS, 0, 0>(src, wk, acc);
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) {
#pragma GCC unroll 4
    for (int b = 0; b < NB; ++b)
      _mm512_storeu_ps(out + t * outColStep + b * outBlockStride, acc[t][b]);
  }
}

// G groups interleaved in one block (RowJob::laneGroups): each reduction
// step broadcasts one channel of every group (G adjacent floats) to the
// lanes of its group, so a step costs one FMA per position for 16 / G
// steps instead of 16 against block-diagonal weights.
template <int WT, int G, int IS>
void groupedTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                 int64_t tapStride, float* out, int64_t outColStep, int64_t /*outBlockStride*/,
                 bool accumulate, const uint8_t* /*cols*/, int /*colTaps*/, int /*j0*/) {
  __m512 acc[WT];
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t)
    acc[t] = accumulate ? _mm512_loadu_ps(out + t * outColStep) : _mm512_setzero_ps();
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const float* wk = w + k * tapStride;
#pragma GCC unroll kChannelUnroll
    for (int j = 0; j < 16 / G; ++j) {
      const __m512 wv = _mm512_loadu_ps(wk + j * 16);
#pragma GCC unroll 32
      for (int t = 0; t < WT; ++t)
        acc[t] = _mm512_fmadd_ps(groupBroadcast512<G>(src + t * IS * 16 + j * G), wv, acc[t]);
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) _mm512_storeu_ps(out + t * outColStep, acc[t]);
}

template <int WT, int IS>
void depthwiseTile(const float* in, const int64_t* taps, int64_t tapCount, const float* w,
                   int64_t tapStride, float* out, int64_t outColStep, int64_t /*outBlockStride*/,
                   bool accumulate, const uint8_t* /*cols*/, int /*colTaps*/, int /*j0*/) {
  __m512 acc[WT];
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t)
    acc[t] = accumulate ? _mm512_loadu_ps(out + t * outColStep) : _mm512_setzero_ps();
  for (int64_t k = 0; k < tapCount; ++k) {
    const float* src = in + taps[k];
    const __m512 wv = _mm512_loadu_ps(w + k * tapStride);
#pragma GCC unroll 32
    for (int t = 0; t < WT; ++t)
      acc[t] = _mm512_fmadd_ps(_mm512_loadu_ps(src + t * IS * 16), wv, acc[t]);
  }
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) _mm512_storeu_ps(out + t * outColStep, acc[t]);
}

constexpr int kMaxWide4 = 6;   // nb = 4: 24 accumulators + 4 weight vectors
constexpr int kMaxWide2 = 14;  // nb = 2: 28 accumulators + 2 weight vectors
constexpr int kMaxWide1 = 28;  // nb = 1: 28 accumulators + 1 weight vector
constexpr int kMaxDepthwise = 16;
constexpr int kMaxGrouped = 16;

// Function tables indexed by tile width - 1 (internal linkage: nothing
// compiled here with AVX-512 is shared with generic code).
template <int N>
struct Table {
  TileFn fn[N];
  TileFn operator[](int64_t i) const { return fn[i]; }
};
template <int NB, int IS, int... W>
constexpr Table<sizeof...(W)> denseTable(std::integer_sequence<int, W...>) {
  return {{&denseTile<W + 1, NB, IS, false>...}};
}
template <int NB, int IS, int... W>
constexpr Table<sizeof...(W)> denseEdgeTable(std::integer_sequence<int, W...>) {
  return {{&denseTile<W + 1, NB, IS, true>...}};
}
template <int G, int IS, int... W>
constexpr Table<sizeof...(W)> groupedTable(std::integer_sequence<int, W...>) {
  return {{&groupedTile<W + 1, G, IS>...}};
}
template <int IS, int... W>
constexpr Table<sizeof...(W)> depthwiseTable(std::integer_sequence<int, W...>) {
  return {{&depthwiseTile<W + 1, IS>...}};
}

constexpr auto kDense4s1 = denseTable<4, 1>(std::make_integer_sequence<int, kMaxWide4>{});
constexpr auto kDense4s2 = denseTable<4, 2>(std::make_integer_sequence<int, kMaxWide4>{});
constexpr auto kEdge4s1 = denseEdgeTable<4, 1>(std::make_integer_sequence<int, kMaxWide4>{});
constexpr auto kEdge4s2 = denseEdgeTable<4, 2>(std::make_integer_sequence<int, kMaxWide4>{});
constexpr auto kDense2s1 = denseTable<2, 1>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense2s2 = denseTable<2, 2>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense1s1 = denseTable<1, 1>(std::make_integer_sequence<int, kMaxWide1>{});
constexpr auto kDense1s2 = denseTable<1, 2>(std::make_integer_sequence<int, kMaxWide1>{});
constexpr auto kEdge2s1 = denseEdgeTable<2, 1>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kEdge2s2 = denseEdgeTable<2, 2>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kEdge1s1 = denseEdgeTable<1, 1>(std::make_integer_sequence<int, kMaxWide1>{});
constexpr auto kEdge1s2 = denseEdgeTable<1, 2>(std::make_integer_sequence<int, kMaxWide1>{});
constexpr auto kGroups2s1 = groupedTable<2, 1>(std::make_integer_sequence<int, kMaxGrouped>{});
constexpr auto kGroups2s2 = groupedTable<2, 2>(std::make_integer_sequence<int, kMaxGrouped>{});
constexpr auto kGroups4s1 = groupedTable<4, 1>(std::make_integer_sequence<int, kMaxGrouped>{});
constexpr auto kGroups4s2 = groupedTable<4, 2>(std::make_integer_sequence<int, kMaxGrouped>{});
constexpr auto kDepth1 = depthwiseTable<1>(std::make_integer_sequence<int, kMaxDepthwise>{});
constexpr auto kDepth2 = depthwiseTable<2>(std::make_integer_sequence<int, kMaxDepthwise>{});

// Cuts `count` positions into tiles of at most `widest` (forEachRowTile), so
// no row ends in a sliver of one or two positions; the taps run in slices
// (forEachTapSlice).
// edges (may be null): the tiles that leave out padding columns.
template <typename T>
void runRow(const RowJob& job, const T& table, int widest, const T* edges = nullptr) {
  const int64_t tiles = (job.count + widest - 1) / widest;
  if (tiles == 0) return;
  forEachTapSlice(job, tiles, [&](int64_t k0, int64_t taps, bool accumulate) {
    forEachRowTile(job.count, tiles, [&](int64_t pos, int64_t wt) {
      uint8_t cols[ColumnRanges::kMaxTaps];
      const bool skips = edges && job.cols.taps > 0 && columnClasses(job.cols, pos, wt, cols);
      (skips ? *edges : table)[wt - 1](
          job.in + pos * job.inStep * 16, job.taps + k0, taps, job.weights + k0 * job.tapStride,
          job.tapStride, job.out + pos * job.outColStep, job.outColStep, job.outBlockStride,
          accumulate, skips ? cols : nullptr, job.cols.taps,
          skips ? static_cast<int>(k0 % job.cols.taps) : 0);
    });
  });
}

}  // namespace

void f32_conv_rows_nb16_avx512(const RowJob& job) {
  if (job.laneGroups == 2) {
    runRow(job, job.inStep == 1 ? kGroups2s1 : kGroups2s2, kMaxGrouped);
  } else if (job.laneGroups == 4) {
    runRow(job, job.inStep == 1 ? kGroups4s1 : kGroups4s2, kMaxGrouped);
  } else if (job.nb == 4) {
    runRow(job, job.inStep == 1 ? kDense4s1 : kDense4s2, kMaxWide4,
           job.inStep == 1 ? &kEdge4s1 : &kEdge4s2);
  } else if (job.nb == 2) {
    runRow(job, job.inStep == 1 ? kDense2s1 : kDense2s2, kMaxWide2,
           job.inStep == 1 ? &kEdge2s1 : &kEdge2s2);
  } else {
    runRow(job, job.inStep == 1 ? kDense1s1 : kDense1s2, kMaxWide1,
           job.inStep == 1 ? &kEdge1s1 : &kEdge1s2);
  }
}

void f32_dwconv_rows_nb16_avx512(const RowJob& job) {
  runRow(job, job.inStep == 1 ? kDepth1 : kDepth2, kMaxDepthwise);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
