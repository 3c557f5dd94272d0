#pragma once
// The element kinds the AVX-512 staging files read: fp32 data (as it is,
// or the caller's raw values rounded to HF32), or the caller's bf16 or half
// words, each widened to fp32. For files compiled with
// AVX-512 only.

#include <immintrin.h>

#include <cstdint>

#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// load: 16 consecutive values as fp32 (lanes off `mask` 0); bits: their
// fp32 bit patterns, consecutive or `step` elements apart. In an unnamed
// namespace, the counterpart of `static` in the other headers.
namespace {

struct F32Elements {
  using Element = float;
  static __m512 load(const float* p, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, p); }
  static __m512i bits(const float* p, __mmask16 mask) {
    return _mm512_castps_si512(_mm512_maskz_loadu_ps(mask, p));
  }
  static __m512i bits(const float* p, int64_t step, __mmask16 mask) {
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i index = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(step)));
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, index, p, 4);
  }
};
// The caller's raw fp32 values, rounded to HF32 as they are read
// (ConvShape::inputRounding).
struct Hf32Elements {
  using Element = float;
  static __m512 load(const float* p, __mmask16 mask) {
    return simd::roundHf32(F32Elements::load(p, mask));
  }
  static __m512i bits(const float* p, __mmask16 mask) { return _mm512_castps_si512(load(p, mask)); }
  static __m512i bits(const float* p, int64_t step, __mmask16 mask) {
    return _mm512_castps_si512(
        simd::roundHf32(_mm512_castsi512_ps(F32Elements::bits(p, step, mask))));
  }
};
// kHalf: IEEE half words, else bf16 words. VCVTPH2PS quiets a signalling
// NaN: the bf16 kernels send any NaN to the exact path, and the fp32
// kernels' products quiet it anyway, with the same payload.
template <bool kHalf>
struct WordElements {
  using Element = uint16_t;
  static __m512 load(const uint16_t* p, __mmask16 mask) {
    return kHalf ? simd::loadF16(p, mask) : simd::loadBf16(p, mask);
  }
  static __m512i bits(const uint16_t* p, __mmask16 mask) {
    return _mm512_castps_si512(load(p, mask));
  }
  static __m512i bits(const uint16_t* p, int64_t step, __mmask16 mask) {
    __m256i words;
    if (step == 2) {
      // The low word of each dword of 32 words: the even ones (RN50 3x3/2
      // 128ch bf16 dW, 1 thread: a word-by-word copy through the stack was
      // twice the AMX tiles' time).
      words = _mm512_cvtepi32_epi16(_mm512_maskz_loadu_epi16(simd::evenLanes(mask), p));
    } else if (mask == 0) {
      words = _mm256_setzero_si256();
    } else {
      // No 16-bit gather: a 32-bit one per lane, its low word the value,
      // but for the last lane, whose 32 bits could pass the run's end: that
      // one word is read alone (1D k10 s5 512ch bf16 dW, 1 thread: the copy
      // through the stack was a fifth of the pass).
      const int last = 31 - __builtin_clz(static_cast<unsigned>(mask));
      const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
      const __m512i index = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(step)));
      const __m512i gathered = _mm512_mask_i32gather_epi32(
          _mm512_setzero_si512(), static_cast<__mmask16>(mask & ~(1u << last)), index, p, 2);
      words = _mm512_cvtepi32_epi16(
          _mm512_mask_set1_epi32(gathered, static_cast<__mmask16>(1u << last), p[last * step]));
    }
    return _mm512_castps_si512(
        kHalf ? _mm512_cvtph_ps(words)
              : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(words), 16)));
  }
};
using Bf16Elements = WordElements<false>;
using F16Elements = WordElements<true>;

}  // namespace

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
