#pragma once
// The activation panel and the result store of the bf16 pointwise
// micro-kernels (bf16_pointwise_kernels.h), shared by the AMX and the
// AVX512-BF16 kernel. For files compiled with AVX-512; static inline so that
// every including file keeps its own copy (see bf16_words_avx512_inl.h).

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/pointwise_bf16/bf16_pointwise_kernels.h"
#include "kernels/simd/half_words_avx512.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {

// Panel rows: for position tile t and channel pair q, 16 words
// (bf16(c = 2q), bf16(2q + 1)) at panel + (t * kSteps * 16 + q) * 32; from
// bf16 words or (Element float) fp32 bf16 values.
template <typename Element>
static inline bool packPairPanel(const Bf16PointwiseJob& j, const Element* b) {
  const int64_t pairs = j.kSteps * 16;
  // Words 0-15 of each row interleaved, then words 16-31.
  const __m512i low = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8,
                                       39, 7, 38, 6, 37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
  const __m512i high = _mm512_add_epi16(low, _mm512_set1_epi16(16));
  constexpr bool kWords = sizeof(Element) == 2;
  __mmask32 unsafe = 0;
  auto row = [&](int64_t c) {
    if (c >= j.k) return _mm512_setzero_si512();
    const Element* at = b + c * j.bRowStride;
    if (j.prefetchPositions)
      _mm_prefetch(reinterpret_cast<const char*>(at + j.prefetchPositions), _MM_HINT_T0);
    if (j.prefetchL2Positions)
      _mm_prefetch(reinterpret_cast<const char*>(at + j.prefetchL2Positions), _MM_HINT_T1);
    if constexpr (kWords)
      return blocked::rowWords32(at, nullptr, j.n, &unsafe);
    else
      return blocked::rowWords32(nullptr, at, j.n, &unsafe);
  };
  for (int64_t q = 0; q < pairs; ++q) {
    const __m512i even = row(2 * q), odd = row(2 * q + 1);
    _mm512_store_si512(j.panel + q * 32, _mm512_permutex2var_epi16(even, low, odd));
    _mm512_store_si512(j.panel + (pairs + q) * 32, _mm512_permutex2var_epi16(even, high, odd));
  }
  return unsafe == 0;
}

// Hi/lo panel rows: for position tile t and channel q, 16 words (hi, lo)
// of the channel's values (fp32, or half words widened exactly) at
// panel + (t * kSteps * 16 + q) * 32.
static inline bool packHiLoPanel(const Bf16PointwiseJob& j) {
  const int64_t rows = j.kSteps * 16;
  const int tiles = j.n > 16 ? 2 : 1;
  __mmask16 unsafe = 0;
  for (int t = 0; t < tiles; ++t) {
    const __mmask16 mask = simd::firstLanes(j.n - 16 * t);
    uint16_t* out = j.panel + t * rows * 32;
    for (int64_t c = 0; c < rows; ++c) {
      __m512i v = _mm512_setzero_si512();
      if (c < j.k) {
        v = j.bWords
                ? _mm512_castps_si512(simd::loadF16(j.bWords + c * j.bRowStride + 16 * t, mask))
                : _mm512_castps_si512(
                      _mm512_maskz_loadu_ps(mask, j.bFloats + c * j.bRowStride + 16 * t));
      }
      unsafe |= blocked::unsafeLanes(v);
      _mm512_store_si512(out + c * 32, blocked::hiLoWords(v));
    }
  }
  return unsafe == 0;
}

static inline bool packPanel(const Bf16PointwiseJob& j) {
  if (j.hiLo) return packHiLoPanel(j);
  return j.bWords ? packPairPanel(j, j.bWords) : packPairPanel(j, j.bFloats);
}

// Stores `value` (plus the bias of output channel m) to positions
// p0 + [0, count) of output channel m.
static inline void storeRow(const Bf16PointwiseJob& j, __m512 value, int64_t m, int64_t p0,
                            int64_t count) {
  const __mmask16 mask = simd::firstLanes(count);
  if (j.bias) value = _mm512_add_ps(value, _mm512_set1_ps(j.bias[m]));
  const int64_t at = m * j.outRowStride + p0;
  if (j.outWords && j.outHalf)
    simd::storeF16(j.outWords + at, mask, value);
  else if (j.outWords)
    simd::storeBf16(j.outWords + at, mask, value);
  else
    _mm512_mask_storeu_ps(j.outFloats + at, mask, value);
}

// Stores rows [0, rows) of a 16 x 16 fp32 tile image (plus bias) to
// channels m0.. of the output, positions p0 + [0, count).
static inline void storeTile(const Bf16PointwiseJob& j, const float* image, int64_t m0,
                             int64_t rows, int64_t p0, int64_t count) {
  for (int64_t r = 0; r < rows; ++r) storeRow(j, _mm512_load_ps(image + r * 16), m0 + r, p0, count);
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
