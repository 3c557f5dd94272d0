// The plane correlation of f32_conv_plane_o8w48_avx512.cpp on bf16 operands
// with VDPBF16PS: src channels in pairs, each lane's dword the two channels'
// words at its position, each weight pair one embedded broadcast; register
// tiles of 8 dst channels x 3 vectors. Products of bf16 values are exact in
// fp32. Only called after a cpuid check; free of library templates (see
// f32_dwconv_plane_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/conv/nchw_plane/conv_plane.h"
#include "kernels/simd/dpbf16_avx512bf16.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {
namespace {

// The src kinds: the caller's bf16 words (dst in words, rounded once), or
// fp32 copies of bf16 values (dst in fp32). pair: lane i's dword holds the
// word of plane p at i low and (second) the word of plane p + planeStride
// high, lanes off `m` zero.
struct WordPairs {
  using Element = uint16_t;
  static __m512i pair(const uint16_t* p, int64_t planeStride, bool second, __mmask16 m) {
    const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p));
    if (!second) return lo;
    const __m512i hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p + planeStride));
    return _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
  }
  static void store(uint16_t* p, __mmask16 m, __m512 v) { simd::storeBf16(p, m, v); }
};
struct FloatPairs {
  using Element = float;
  static __m512i pair(const float* p, int64_t planeStride, bool second, __mmask16 m) {
    const __m512i lo = _mm512_srli_epi32(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, p)), 16);
    if (!second) return lo;
    const __m512i hi =
        _mm512_and_si512(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, p + planeStride)),
                         _mm512_set1_epi32(static_cast<int>(0xFFFF0000u)));
    return _mm512_or_si512(lo, hi);
  }
  static void store(float* p, __mmask16 m, __m512 v) { _mm512_mask_storeu_ps(p, m, v); }
};

template <typename E>
inline const E* tapSource(const E* plane, int64_t origin, const PlaneVectors& b, int64_t t,
                          int64_t k) {
  return b.masks[t * b.padded + k] ? plane + (b.srcBase[k] + b.tapOffset[t] - origin) : plane;
}

template <int OT, int NV, typename K>
void pairTile(const GroupCorrelation& j, const uint32_t* pairWeights, int64_t k0, int64_t d0) {
  using E = typename K::Element;
  const PlaneVectors& b = *j.vectors;
  const E* src = static_cast<const E*>(j.src);
  E* dst = static_cast<E*>(j.dst);
  const int64_t S = j.srcChannels, D = j.dstChannels, P = (S + 1) / 2;
  const int64_t srcPlane = j.srcStride, dstPlane = j.dstStride;
  const int64_t taps = j.map.kh * j.map.kw;
  __m512 acc[OT][NV];
#pragma GCC unroll 8
  for (int o = 0; o < OT; ++o)
#pragma GCC unroll 6
    for (int v = 0; v < NV; ++v) acc[o][v] = _mm512_setzero_ps();
  for (int64_t t = 0; t < taps; ++t) {
    const E* p[NV];
    __mmask16 mk[NV];
#pragma GCC unroll 6
    for (int v = 0; v < NV; ++v) {
      mk[v] = b.masks[t * b.padded + k0 + v];
      p[v] = tapSource(src, j.srcOrigin, b, t, k0 + v);
    }
    const uint32_t* w = pairWeights + t * P * D + d0;
    for (int64_t q = 0; q < P; ++q) {
      const bool second = 2 * q + 1 < S;
      __m512bh x[NV];
#pragma GCC unroll 6
      for (int v = 0; v < NV; ++v)
        x[v] =
            reinterpret_cast<__m512bh>(K::pair(p[v] + 2 * q * srcPlane, srcPlane, second, mk[v]));
#pragma GCC unroll 8
      for (int o = 0; o < OT; ++o)
#pragma GCC unroll 6
        for (int v = 0; v < NV; ++v) simd::dotBroadcastWord(acc[o][v], w + q * D + o, x[v]);
    }
  }
#pragma GCC unroll 8
  for (int o = 0; o < OT; ++o) {
    const __m512 bias = _mm512_set1_ps(j.bias ? j.bias[d0 + o] : 0.0f);
#pragma GCC unroll 6
    for (int v = 0; v < NV; ++v) {
      if (!b.valid[k0 + v]) continue;
      const __m512 r = j.bias ? _mm512_add_ps(acc[o][v], bias) : acc[o][v];
      K::store(dst + (d0 + o) * dstPlane + b.dstBase[k0 + v], b.valid[k0 + v], r);
    }
  }
}

template <int OT, int NV, typename K>
void pairTiles(const GroupCorrelation& j, const uint32_t* pairWeights, int64_t d0) {
  static_assert(kBlockVectors % NV == 0, "tiles stay inside the padded table");
  for (int64_t k0 = j.v0; k0 < j.v1; k0 += NV) pairTile<OT, NV, K>(j, pairWeights, k0, d0);
}

template <typename K>
void correlatePairs(const GroupCorrelation& j, const uint32_t* pairWeights) {
  for (int64_t d0 = 0; d0 < j.dstChannels;) {
    const int64_t left = j.dstChannels - d0;
    if (left >= 8) {
      pairTiles<8, 3, K>(j, pairWeights, d0);
      d0 += 8;
    } else if (left >= 4) {
      pairTiles<4, 6, K>(j, pairWeights, d0);
      d0 += 4;
    } else if (left >= 2) {
      pairTiles<2, 6, K>(j, pairWeights, d0);
      d0 += 2;
    } else {
      pairTiles<1, 6, K>(j, pairWeights, d0);
      d0 += 1;
    }
  }
}

// Lanes holding a value the hardware would not take exactly (bf16Unsafe:
// non-finite, or nonzero below 2^-40: magnitude bits in [1, 2^-40's)), on
// 16-bit words or on fp32 bits.
inline __mmask32 unsafeWords(__m512i words) {
  const __m512i magnitude = _mm512_and_si512(words, _mm512_set1_epi16(0x7FFF));
  const __mmask32 tiny = _mm512_cmplt_epu16_mask(_mm512_sub_epi16(magnitude, _mm512_set1_epi16(1)),
                                                 _mm512_set1_epi16(((127 - 40) << 7) - 1));
  return tiny | _mm512_cmpge_epu16_mask(magnitude, _mm512_set1_epi16(0x7F80));
}
inline __mmask16 unsafeFloats(__m512i bits) {
  const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 tiny = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(1)),
                                                 _mm512_set1_epi32(((127 - 40) << 23) - 1));
  return tiny | _mm512_cmpge_epu32_mask(magnitude, _mm512_set1_epi32(0x7F800000));
}

bool safeSource(const uint16_t* src, int64_t planes, int64_t plane, int64_t lo, int64_t hi) {
  __mmask32 bad = 0;
  for (int64_t s = 0; s < planes; ++s) {
    const uint16_t* p = src + s * plane;
    for (int64_t i = lo; i < hi; i += 32) {
      const int64_t n = hi - i;
      const __mmask32 m = n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1;
      bad |= m & unsafeWords(_mm512_maskz_loadu_epi16(m, p + i));
    }
  }
  return bad == 0;
}
bool safeSource(const float* src, int64_t planes, int64_t plane, int64_t lo, int64_t hi) {
  __mmask16 bad = 0;
  for (int64_t s = 0; s < planes; ++s) {
    const float* p = src + s * plane;
    for (int64_t i = lo; i < hi; i += kLanes) {
      const __mmask16 m = simd::firstLanes(hi - i);
      bad |= m & unsafeFloats(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, p + i)));
    }
  }
  return bad == 0;
}

}  // namespace

bool bf16_conv_plane_correlate_o8w48_avx512bf16(const GroupCorrelation& j,
                                                const uint32_t* pairWeights) {
  int64_t lo = 0, hi = 0;
  correlationSourceRange(j, &lo, &hi);
  lo -= j.srcOrigin;
  hi -= j.srcOrigin;
  const int64_t plane = j.srcStride;
  if (j.kind == Elements::Bf16) {
    if (!safeSource(static_cast<const uint16_t*>(j.src), j.srcChannels, plane, lo, hi))
      return false;
    correlatePairs<WordPairs>(j, pairWeights);
  } else {
    if (!safeSource(static_cast<const float*>(j.src), j.srcChannels, plane, lo, hi)) return false;
    correlatePairs<FloatPairs>(j, pairWeights);
  }
  return true;
}

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
