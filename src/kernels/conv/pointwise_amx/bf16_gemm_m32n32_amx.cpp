// The bf16 pointwise micro-kernel (bf16_pointwise_kernels.h): 2 x 2
// accumulator tiles of 16 output channels x 16 positions, TDPBF16PS over
// 32-channel steps, b interleaved into channel-pair rows first. Keep this
// file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

// GCC 12 reports its own _mm512_undefined_*() inside the masked intrinsics
// as uninitialised; the lanes it leaves undefined are always masked off.
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/pointwise_amx/bf16_pointwise_kernels.h"
#include "kernels/simd/half_words_avx512.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_amx {
namespace {

using blocked::unsafeLanes;

// Panel rows: for position tile t and channel pair q, 16 words
// (bf16(c = 2q), bf16(2q + 1)) at panel + (t * kSteps * 16 + q) * 32; from
// bf16 words or (Element float) fp32 bf16 values.
template <typename Element>
bool packPairPanel(const Bf16PointwiseJob& j, const Element* b) {
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
bool packHiLoPanel(const Bf16PointwiseJob& j) {
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
      unsafe |= unsafeLanes(v);
      _mm512_store_si512(out + c * 32, blocked::hiLoWords(v));
    }
  }
  return unsafe == 0;
}

bool packPanel(const Bf16PointwiseJob& j) {
  if (j.hiLo) return packHiLoPanel(j);
  return j.bWords ? packPairPanel(j, j.bWords) : packPairPanel(j, j.bFloats);
}

// Stores rows [0, rows) of a 16 x 16 fp32 tile image (plus bias) to
// channels m0.. of the output, positions p0 + [0, count).
void storeTile(const Bf16PointwiseJob& j, const float* image, int64_t m0, int64_t rows, int64_t p0,
               int64_t count) {
  const __mmask16 mask = simd::firstLanes(count);
  for (int64_t r = 0; r < rows; ++r) {
    __m512 v = _mm512_load_ps(image + r * 16);
    if (j.bias) v = _mm512_add_ps(v, _mm512_set1_ps(j.bias[m0 + r]));
    const int64_t at = (m0 + r) * j.outRowStride + p0;
    if (j.outWords && j.outHalf)
      simd::storeF16(j.outWords + at, mask, v);
    else if (j.outWords)
      simd::storeBf16(j.outWords + at, mask, v);
    else
      _mm512_mask_storeu_ps(j.outFloats + at, mask, v);
  }
}

}  // namespace

bool bf16_pointwise_m32n32_amx(const Bf16PointwiseJob& j) {
  if (!packPanel(j)) return false;
  const int64_t mTiles = (j.m + 15) / 16;
  const bool twoN = j.n > 16;
  const uint16_t* b0 = j.panel;
  const uint16_t* b1 = j.panel + j.kSteps * 16 * 32;
  alignas(64) float image[4][256];
  // Accumulators: tile 0 (m0, n0), 1 (m0, n1), 2 (m1, n0), 3 (m1, n1); a in
  // 4 and 5, b in 6 and 7.
  // Hi/lo: two a tiles per step, (hi, lo) and (lo, hi) words of the
  // weights, so that the two products of every step add up to the four
  // partial products of each exact multiply.
  const int64_t aTiles = j.hiLo ? 2 : 1;
  const int64_t tileStep = j.kSteps * aTiles * 512;  // words between output tiles
  for (int64_t t = 0; t < mTiles; t += 2) {
    const bool twoM = t + 1 < mTiles;
    const uint16_t* a0 = j.a + t * tileStep;
    const uint16_t* a1 = a0 + tileStep;
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t s = 0; s < j.kSteps; ++s) {
      _tile_loadd(6, b0 + s * 512, 64);
      if (twoN) _tile_loadd(7, b1 + s * 512, 64);
      for (int64_t h = 0; h < aTiles; ++h) {
        const int64_t at = (s * aTiles + h) * 512;
        _tile_loadd(4, a0 + at, 64);
        _tile_dpbf16ps(0, 4, 6);
        if (twoN) _tile_dpbf16ps(1, 4, 7);
        if (twoM) {
          _tile_loadd(5, a1 + at, 64);
          _tile_dpbf16ps(2, 5, 6);
          if (twoN) _tile_dpbf16ps(3, 5, 7);
        }
      }
    }
    _tile_stored(0, image[0], 64);
    _tile_stored(1, image[1], 64);
    _tile_stored(2, image[2], 64);
    _tile_stored(3, image[3], 64);
    for (int mt = 0; mt < (twoM ? 2 : 1); ++mt) {
      const int64_t m0 = (t + mt) * 16;
      const int64_t rows = j.m - m0 < 16 ? j.m - m0 : 16;
      storeTile(j, image[2 * mt], m0, rows, 0, j.n < 16 ? j.n : 16);
      if (twoN) storeTile(j, image[2 * mt + 1], m0, rows, 16, j.n - 16);
    }
  }
  return true;
}

}  // namespace pointwise_amx
}  // namespace kernels
}  // namespace aclcpu
