#pragma once
// The unstaging loop shared by the AVX-512 staging files: staged rows back
// to a dense [N, C, D, H, W] tensor, 16 x 16 register transposes along W,
// each element stored by the caller's `store` (fp32, or rounded to 16-bit
// words). For files compiled with AVX-512 only; static so that every
// including file keeps its own copy.

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/staged_rows_inl.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// Writes the dense elements of staged positions [from, to) of staged row r
// (inside the source, to <= the row's inside columns), read at
// src[(q - from) * 16 + lane], plus bias[channel] when `bias` is not null:
// store(out, mask, v) stores the lanes of `mask` of v at out[0..15].
template <typename Element, typename Store>
static inline void unstageColumns(const float* src, const StagedLayout& l, const StagedRow& r,
                                  int64_t from, int64_t to, Element* dense, const float* bias,
                                  Store store) {
  const int64_t channelStride = l.source[0] * l.source[1] * l.source[2];
  Element* dst = dense + denseRow(l, r);
  float b[16] = {};
  if (bias)
    for (int64_t c = 0; c < r.channels; ++c) b[c] = bias[r.block * kLanes + c];
  if (l.step[2] != 1) {
    for (int64_t q = from; q < to; ++q) {
      const int64_t i = q * l.step[2] + l.first[2];
      for (int64_t c = 0; c < r.channels; ++c) {
        const float v = src[(q - from) * kLanes + channelLane(l, c)];
        store(dst + c * channelStride + i, static_cast<__mmask16>(1),
              _mm512_set1_ps(bias ? v + b[c] : v));
      }
    }
    return;
  }
  int64_t laneOf[16];
  for (int c = 0; c < 16; ++c) laneOf[c] = channelLane(l, c);
  for (int64_t q = from; q < to; q += 16) {
    const int64_t n = to - q < 16 ? to - q : 16;
    const __mmask16 mask =
        n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1u);
    __m512 v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j)
      v[j] = j < n ? _mm512_loadu_ps(src + (q - from + j) * kLanes) : _mm512_setzero_ps();
    simd::transpose16x16(v);
    // v[lane] now holds one staged lane along W: channel laneChannel(lane).
    for (int64_t c = 0; c < r.channels; ++c) {
      const __m512 x = v[laneOf[c]];
      store(dst + c * channelStride + q + l.first[2], mask,
            bias ? _mm512_add_ps(x, _mm512_set1_ps(b[c])) : x);
    }
  }
}

// Writes the dense elements staged rows [begin, end) map to.
template <typename Element, typename Store>
static inline void unstageRowsWith(const float* staged, const StagedLayout& l, int64_t begin,
                                   int64_t end, Element* dense, const float* bias, Store store) {
  int64_t lo = 0, hi = 0;
  insideColumns(l, &lo, &hi);
  for (int64_t row = begin; row < end; ++row) {
    const StagedRow r = decode(l, row);
    if (!r.inside || r.channels <= 0 || lo >= hi) continue;
    const float* src = stagedRow(const_cast<float*>(staged), l, r) + lo * kLanes;
    unstageColumns(src, l, r, lo, hi, dense, bias, store);
  }
}

// Writes the dense elements of staged positions [q, q + n) of staged row
// `row`, read from src ([position][16]) instead of the staged buffer.
template <typename Element, typename Store>
static inline void unstageSegmentWith(const float* src, const StagedLayout& l, int64_t row,
                                      int64_t q, int64_t n, Element* dense, const float* bias,
                                      Store store) {
  const StagedRow r = decode(l, row);
  if (!r.inside || r.channels <= 0) return;
  int64_t lo = 0, hi = 0;
  insideColumns(l, &lo, &hi);
  const int64_t from = q > lo ? q : lo, to = q + n < hi ? q + n : hi;
  if (from < to) unstageColumns(src + (from - q) * kLanes, l, r, from, to, dense, bias, store);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
