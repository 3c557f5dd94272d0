#pragma once
// The vector forms of bf16_pairs_inl.h, 16 lanes at a time, shared by the
// bf16 staging files. For files compiled with AVX-512 only; static inline so
// that every including file keeps its own copy (nothing built with AVX-512
// reaches generic code through the linker). No namespace-scope vectors: they
// would be built at load time, before any cpuid check.

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace aclcpu {
namespace kernels {
namespace blocked {

// The first `count` lanes (all 16 from 16 on).
static inline __mmask16 firstLanes(int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : static_cast<__mmask16>((1u << static_cast<unsigned>(count)) - 1u);
}

// Lanes holding a bf16Unsafe value.
static inline __mmask16 unsafeLanes(__m512i v) {
  const __m512i e = _mm512_and_si512(_mm512_srli_epi32(v, 23), _mm512_set1_epi32(0xFF));
  const __m512i magnitude = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 special = _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(0xFF));
  const __mmask16 tiny = _mm512_cmplt_epi32_mask(e, _mm512_set1_epi32(127 - 40)) &
                         _mm512_cmpneq_epi32_mask(magnitude, _mm512_setzero_si512());
  return special | tiny;
}

// The fp32 bit patterns of 16 consecutive source values (lanes off `mask`
// 0): fp32 data, or bf16 words widened.
static inline __m512i loadBits(const float* p, __mmask16 mask) {
  return _mm512_castps_si512(_mm512_maskz_loadu_ps(mask, p));
}
static inline __m512i loadBits(const uint16_t* p, __mmask16 mask) {
  return _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, p)), 16);
}

// The same for values `step` elements apart.
static inline __m512i loadBits(const float* p, int64_t step, __mmask16 mask) {
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i index = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(step)));
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, index, p, 4);
}
static inline __m512i loadBits(const uint16_t* p, int64_t step, __mmask16 mask) {
  // No 16-bit gather, and a 32-bit one would read past the last value.
  alignas(64) uint32_t bits[16];
  for (int i = 0; i < 16; ++i)
    bits[i] = (mask >> i) & 1 ? static_cast<uint32_t>(p[i * step]) << 16 : 0u;
  return _mm512_load_si512(bits);
}

// One source value as fp32.
static inline float valueOf(float v) { return v; }
static inline float valueOf(uint16_t bits) {
  const uint32_t word = static_cast<uint32_t>(bits) << 16;
  float v;
  std::memcpy(&v, &word, sizeof v);
  return v;
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
