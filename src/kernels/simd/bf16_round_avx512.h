#pragma once
// fp32 -> bf16 rounding of 16 lanes, for files compiled with AVX-512 only
// (the gathers' and scatters' run loops and the blocked bf16 unstaging).
// Static so that every including file keeps its own copy. Bit for bit the
// scalar floatToBf16Inline: nearest even, and a NaN keeps its top bits with
// the quiet bit forced. (VCVTNEPS2BF16 is not used: it flushes fp32
// subnormals to zero, which the scalar rule rounds.)

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

// Stores the bf16 rounding of the lanes selected by `mask` at out[0..15].
static inline void storeBf16(uint16_t* out, __mmask16 mask, __m512 value) {
  _mm256_mask_storeu_epi16(out, mask, _mm512_cvtepi32_epi16(bf16Words(value)));
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
