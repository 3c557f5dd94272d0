#pragma once
// The vector forms of bf16_pairs_inl.h, 16 lanes at a time, shared by the
// bf16 staging files. For files compiled with AVX-512 only; static inline so
// that every including file keeps its own copy (nothing built with AVX-512
// reaches generic code through the linker). No namespace-scope vectors: they
// would be built at load time, before any cpuid check.

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/element_loads_avx512_inl.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// The first `count` lanes (all 16 from 16 on).
using simd::firstLanes;

// Lanes holding a bf16Unsafe value.
static inline __mmask16 unsafeLanes(__m512i v) {
  const __m512i e = _mm512_and_si512(_mm512_srli_epi32(v, 23), _mm512_set1_epi32(0xFF));
  const __m512i magnitude = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 special = _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(0xFF));
  const __mmask16 tiny = _mm512_cmplt_epi32_mask(e, _mm512_set1_epi32(127 - 40)) &
                         _mm512_cmpneq_epi32_mask(magnitude, _mm512_setzero_si512());
  return special | tiny;
}

// Words of bf16Unsafe values among 32 bf16 words: magnitude m unsafe when
// m >= 0x7F80 (exponent all ones) or 0 < m < 0x2B80 (below 2^-40), i.e.
// (m - 0x2B80) mod 2^16 > 0x53FF for m != 0.
static inline __mmask32 unsafeWords(__m512i words) {
  const __m512i m = _mm512_and_si512(words, _mm512_set1_epi16(0x7FFF));
  const __m512i u = _mm512_sub_epi16(m, _mm512_set1_epi16(0x2B80));
  return _mm512_cmpgt_epu16_mask(u, _mm512_set1_epi16(0x53FF)) & _mm512_test_epi16_mask(m, m);
}

// The bf16 words (high halves) of 32 fp32 lanes, in order: lo's 16, then hi's.
static inline __m512i highHalfWords(__m512i lo, __m512i hi) {
  const __m512i odd =
      _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29, 27,
                       25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  return _mm512_permutex2var_epi16(lo, odd, hi);
}

// 32 consecutive elements of a row as 32 bf16 words (zero past `count`),
// from bf16 words or from fp32 values that are bf16 values; `unsafe`
// collects the lanes holding a bf16Unsafe value.
static inline __m512i rowWords32(const uint16_t* words, const float* floats, int64_t count,
                                 __mmask32* unsafe) {
  // Whole rows as plain loads (see simd::loadFirstLanes).
  const bool whole = count >= 32;
  const __mmask32 mask = whole ? ~__mmask32{0} : (__mmask32{1} << count) - 1;
  if (words) {
    const __m512i w = whole ? _mm512_loadu_si512(words) : _mm512_maskz_loadu_epi16(mask, words);
    *unsafe |= unsafeWords(w);
    return w;
  }
  const __m512i a = _mm512_castps_si512(simd::loadFirstLanes(floats, count));
  const __m512i b = _mm512_castps_si512(simd::loadFirstLanes(floats + 16, count - 16));
  *unsafe |=
      static_cast<__mmask32>(unsafeLanes(a)) | (static_cast<__mmask32>(unsafeLanes(b)) << 16);
  return highHalfWords(a, b);
}

static inline __m512i highHalves() { return _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)); }

// pairWord per lane: bf16(even) low, bf16(odd) high (both already bf16 values).
static inline __m512i pairWords(__m512i even, __m512i odd) {
  return _mm512_or_si512(_mm512_srli_epi32(even, 16), _mm512_and_si512(odd, highHalves()));
}

// hi = v truncated to bf16; lo = v - hi (exact for 12 significant bits).
static inline __m512i highPart(__m512i v) { return _mm512_and_si512(v, highHalves()); }
static inline __m512i lowPart(__m512i v, __m512i hi) {
  return _mm512_castps_si512(_mm512_sub_ps(_mm512_castsi512_ps(v), _mm512_castsi512_ps(hi)));
}

// hiLoWord per lane.
static inline __m512i hiLoWords(__m512i v) {
  const __m512i hi = highPart(v);
  return pairWords(hi, lowPart(v, hi));
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
