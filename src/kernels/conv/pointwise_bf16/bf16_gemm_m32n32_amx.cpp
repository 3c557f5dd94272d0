// The bf16 pointwise micro-kernel (bf16_pointwise_kernels.h): 2 x 2
// accumulator tiles of 16 output channels x 16 positions, TDPBF16PS over
// 32-channel steps over b's packed panel. Keep this file free of library
// templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/conv/pointwise_bf16/bf16_pointwise_store_avx512_inl.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {

namespace {

// Rows [0, rows) of two tile images (positions 0-15 and 16-31, plus bias)
// as bf16 words of output channels m0..: one VCVTNE2PS2BF16 and one store per
// row, where storeTile rounds each half by the scalar rule's dozen
// instructions (1x1 256->64 56x56 bf16 forward, medians of 5, 1 / 2
// threads: 1.91 -> 1.83 / 1.01 -> 0.95 ms). The instruction flushes
// subnormal results, which only a subnormal bias makes (exactRounding).
void storeTilePairBf16(const Bf16PointwiseJob& j, const float* first, const float* second,
                       int64_t m0, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    __m512 lo = _mm512_load_ps(first + r * 16), hi = _mm512_load_ps(second + r * 16);
    if (j.bias) {
      const __m512 b = _mm512_set1_ps(j.bias[m0 + r]);
      lo = _mm512_add_ps(lo, b);
      hi = _mm512_add_ps(hi, b);
    }
    _mm512_storeu_si512(j.outWords + (m0 + r) * j.outRowStride,
                        reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo)));
  }
}

}  // namespace

void bf16_pointwise_m32n32_amx(const Bf16PointwiseJob& j) {
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
      if (j.n == 32 && j.outWords && !j.outHalf && !j.exactRounding) {
        storeTilePairBf16(j, image[2 * mt], image[2 * mt + 1], m0, rows);
        continue;
      }
      storeTile(j, image[2 * mt], m0, rows, 0, j.n < 16 ? j.n : 16);
      if (twoN) storeTile(j, image[2 * mt + 1], m0, rows, 16, j.n - 16);
    }
  }
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
