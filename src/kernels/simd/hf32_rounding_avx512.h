#pragma once
// HF32 operand rounding of 16 fp32 lanes, for files compiled with AVX-512
// only; static so that every including file keeps its own copy. Bit for bit
// roundHf32Inline (scalar_convert_inl.h): 11 explicit mantissa bits, ties
// away from zero on the magnitude (a carry may reach the next binade or
// infinity), Inf and NaN unchanged.

#include <immintrin.h>

namespace aclcpu {
namespace kernels {
namespace simd {

// Three instructions: an infinity rounds to itself by the same integer
// steps (its low bits are zero), so only NaNs (VFPCLASSPS: quiet or
// signalling) keep their bits by the mask.
static inline __m512 roundHf32(__m512 value) {
  const __m512i bits = _mm512_castps_si512(value);
  const __mmask16 nan = _mm512_fpclass_ps_mask(value, 0x81);
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(
      bits, static_cast<__mmask16>(~nan), _mm512_add_epi32(bits, _mm512_set1_epi32(0x800)),
      _mm512_set1_epi32(static_cast<int>(0xfffff000u))));
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
