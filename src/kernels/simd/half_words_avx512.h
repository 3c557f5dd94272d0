#pragma once
// 16 lanes between fp32 and 16-bit words (bf16, IEEE half), for files
// compiled with AVX-512 only (the gathers' and scatters' run loops, the
// words staging of the convolution kernels). Static so that every including
// file keeps its own copy. Bit for bit the scalar rules of
// scalar_convert_inl.h: bf16 nearest even, a NaN keeping its top bits with
// the quiet bit forced (VCVTNEPS2BF16 is not used: it flushes fp32
// subnormals to zero, which the scalar rule rounds); half nearest even with
// subnormals and overflow to infinity (VCVTPS2PH).

#include <immintrin.h>

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace simd {

// The bf16 bit pattern of each lane, in the lane's low 16 bits.
static inline __m512i bf16Words(__m512 value) {
  const __m512i bits = _mm512_castps_si512(value);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), one);
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(bits, _mm512_set1_epi32(0x7fff)), lsb), 16);
  const __m512i quieted = _mm512_or_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x0040));
  const __mmask16 isNan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
  return _mm512_mask_blend_epi32(isNan, rounded, quieted);
}

// The bf16 (half) roundings of 32 lanes, lo's 16 then hi's, as 32 words.
static inline __m512i bf16Words32(__m512 lo, __m512 hi) {
  const __m512i even =
      _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                       24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_epi16(bf16Words(lo), even, bf16Words(hi));
}
static inline __m512i halfWords32(__m512 lo, __m512 hi) {
  const int nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph(lo, nearest)),
                            _mm512_cvtps_ph(hi, nearest), 1);
}

// Stores the bf16 (half) rounding of the lanes selected by `mask` at
// out[0..15].
static inline void storeBf16(uint16_t* out, __mmask16 mask, __m512 value) {
  _mm256_mask_storeu_epi16(out, mask, _mm512_cvtepi32_epi16(bf16Words(value)));
}
static inline void storeF16(uint16_t* out, __mmask16 mask, __m512 value) {
  _mm256_mask_storeu_epi16(out, mask,
                           _mm512_cvtps_ph(value, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// The fp32 values of 16 words (lanes off `mask` 0). Half: VCVTPH2PS, which
// quiets a signalling NaN (callers that keep NaN payloads must not use it).
static inline __m512 loadBf16(const uint16_t* in, __mmask16 mask) {
  const __m512i words = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, in));
  return _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
}
static inline __m512 loadF16(const uint16_t* in, __mmask16 mask) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, in));
}
// The same for all 16 words, with a plain load: a masked load that crosses a
// cache line is several times slower on Zen 5 (lane_masks_avx512.h).
static inline __m512 loadBf16Whole(const uint16_t* in) {
  const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(words), 16));
}
static inline __m512 loadF16Whole(const uint16_t* in) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)));
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
