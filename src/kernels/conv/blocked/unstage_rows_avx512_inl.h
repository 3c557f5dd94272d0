#pragma once
// The unstaging loop shared by the AVX-512 staging files: staged rows back
// to a dense [N, C, D, H, W] tensor, 16 x 16 register transposes along W,
// each element stored by the caller's `store` (fp32, or rounded to 16-bit
// words). For files compiled with AVX-512 only; static so that every
// including file keeps its own copy.

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "kernels/conv/blocked/staged_rows_inl.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// Stores of 16-bit results that round each position's 16 channels to words
// first (words(v): the word of each lane in its low half, zeros above), so
// that the transpose moves half as many bytes (transposeWordPairs8x16);
// the same bits as rounding each channel's vector after an fp32 transpose.
struct Bf16WordStore {
  static __m512i words(__m512 v) { return simd::bf16Words(v); }
  void operator()(uint16_t* out, __mmask16 mask, __m512 v) const { simd::storeBf16(out, mask, v); }
};
struct F16WordStore {
  static __m512i words(__m512 v) {
    return _mm512_cvtepu16_epi32(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  void operator()(uint16_t* out, __mmask16 mask, __m512 v) const { simd::storeF16(out, mask, v); }
};
template <typename Store>
constexpr bool kRoundsWordsFirst =
    std::is_same_v<Store, Bf16WordStore> || std::is_same_v<Store, F16WordStore>;

// unstageColumns for a word store, staged lane c = channel c, unit step
// along W.
template <typename Store>
static inline void unstageWordColumns(const float* src, int64_t channels, int64_t channelStride,
                                      uint16_t* dst, int64_t from, int64_t to, const float* b,
                                      bool addBias) {
  const __m512 biasLanes = _mm512_loadu_ps(b);
  for (int64_t q = from; q < to; q += 16) {
    const int64_t n = to - q < 16 ? to - q : 16;
    const __mmask16 mask =
        n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1u);
    auto wordsAt = [&](int64_t j) {
      if (j >= n) return _mm512_setzero_si512();
      const __m512 v = _mm512_loadu_ps(src + (q - from + j) * kLanes);
      return Store::words(addBias ? _mm512_add_ps(v, biasLanes) : v);
    };
    __m512i p[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k)
      p[k] = _mm512_or_si512(wordsAt(2 * k), _mm512_slli_epi32(wordsAt(2 * k + 1), 16));
    simd::transposeWordPairs8x16(p);
    uint16_t* at = dst + q;
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      // p[k]: channels c (low half) and c + 4 (high half).
      const int64_t c = (k & 3) + (k >> 2) * 8;
      if (c < channels)
        _mm256_mask_storeu_epi16(at + c * channelStride, mask, _mm512_castsi512_si256(p[k]));
      if (c + 4 < channels)
        _mm256_mask_storeu_epi16(at + (c + 4) * channelStride, mask,
                                 _mm512_extracti64x4_epi64(p[k], 1));
    }
  }
}

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
  const int64_t step = l.step[2];
  if (step != 1 && step != 2) {
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
  bool lanesAreChannels = true;
  for (int c = 0; c < 16; ++c) {
    laneOf[c] = channelLane(l, c);
    lanesAreChannels = lanesAreChannels && laneOf[c] == c;
  }
  if constexpr (kRoundsWordsFirst<Store>) {
    if (lanesAreChannels && step == 1) {
      unstageWordColumns<Store>(src, r.channels, channelStride, dst + l.first[2], from, to, b,
                                bias != nullptr);
      return;
    }
  }
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
      const __m512 y = bias ? _mm512_add_ps(x, _mm512_set1_ps(b[c])) : x;
      Element* at = dst + c * channelStride + q * step + l.first[2];
      if (step == 1) {
        store(at, mask, y);
        continue;
      }
      // Step 2 (the hit columns of a strided 1x1 layer's data gradient;
      // the others hold what the fill wrote): the 16 values spread to the
      // even lanes of 32, the odd lanes masked off (RN50 1x1/2 256->512
      // bf16 dX, 1 thread: element by element this was 35% of the pass).
      const __mmask32 even = simd::evenLanes(mask);
      const __m512i low = _mm512_set_epi32(7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
      const __m512i high =
          _mm512_set_epi32(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8);
      store(at, static_cast<__mmask16>(even), _mm512_permutexvar_ps(low, y));
      if (n > 8) store(at + 16, static_cast<__mmask16>(even >> 16), _mm512_permutexvar_ps(high, y));
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
