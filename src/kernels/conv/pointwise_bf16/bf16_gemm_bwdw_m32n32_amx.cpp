// The bf16 pointwise weight-gradient micro-kernel (bf16_pointwise_kernels.h):
// 2 x 2 accumulator tiles of 16 output channels x 16 input channels over
// 32-position steps. dy rows are the a tiles as they lie in the caller's
// words (a step past the end of a row goes through a zero-padded copy); x
// is transposed into position-pair rows once per block, for all output
// channels. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/conv/blocked/bf16_words_avx512_inl.h"
#include "kernels/conv/pointwise_bf16/bf16_pointwise_kernels.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {
namespace {

// 32 positions of one channel row from `at` (zero past `count`).
inline __m512i rowWords(const uint16_t* words, const float* floats, int64_t at, int64_t count,
                        __mmask32* unsafe) {
  return blocked::rowWords32(words ? words + at : nullptr, words ? nullptr : floats + at, count,
                             unsafe);
}

}  // namespace

bool bf16_pointwise_bwdw_m32n32_amx(const Bf16PointwiseWeightJob& j) {
  const int64_t P = j.positions;
  __mmask32 unsafe = 0;
  // b tiles: for step s and input tile t, 16 rows (position pairs) of 16
  // words (one per channel) at panel + (2 s + t) * 512.
  for (int64_t s = 0; s < j.steps; ++s) {
    const int64_t step = j.firstStep + s;
    const int64_t image = step / j.stepsPerImage, p0 = step % j.stepsPerImage * 32;
    const int64_t count = P - p0 < 32 ? P - p0 : 32;
    for (int t = 0; t < 2; ++t) {
      __m512 rows[16];
      for (int r = 0; r < 16; ++r) {
        const int64_t c = j.n0 + 16 * t + r;
        rows[r] = c < j.n ? _mm512_castsi512_ps(rowWords(
                                j.xWords, j.xFloats, (image * j.n + c) * P + p0, count, &unsafe))
                          : _mm512_setzero_ps();
      }
      simd::transpose16x16(rows);
      uint16_t* tile = j.panel + (2 * s + t) * 512;
      for (int r = 0; r < 16; ++r)
        _mm512_store_ps(reinterpret_cast<float*>(tile + r * 32), rows[r]);
    }
  }
  if (j.checkDy) {
    for (int64_t s = 0; s < j.steps; ++s) {
      const int64_t step = j.firstStep + s;
      const int64_t image = step / j.stepsPerImage, p0 = step % j.stepsPerImage * 32;
      const int64_t count = P - p0 < 32 ? P - p0 : 32;
      for (int64_t o = 0; o < j.m; ++o)
        rowWords(j.dyWords, j.dyFloats, (image * j.m + o) * P + p0, count, &unsafe);
    }
  }
  if (unsafe) return false;
  const bool twoN = j.n0 + 16 < j.n;
  const int64_t mTiles = (j.m + 15) / 16;
  alignas(64) uint16_t copy[2][16 * 32];  // a tiles that cannot be read in place
  // Accumulators: tile 0 (m0, n0), 1 (m0, n1), 2 (m1, n0), 3 (m1, n1); a in
  // 4 and 5, b in 6 and 7.
  for (int64_t mt = 0; mt < mTiles; mt += 2) {
    const bool twoM = mt + 1 < mTiles;
    float* out = j.partial + mt * 16 * j.partialStride;
    const int64_t stride = j.partialStride * 4;
    if (j.accumulate) {
      _tile_loadd(0, out, stride);
      _tile_loadd(1, out + 16, stride);
      _tile_loadd(2, out + 16 * j.partialStride, stride);
      _tile_loadd(3, out + 16 * j.partialStride + 16, stride);
    } else {
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
    }
    for (int64_t s = 0; s < j.steps; ++s) {
      const int64_t step = j.firstStep + s;
      const int64_t image = step / j.stepsPerImage, p0 = step % j.stepsPerImage * 32;
      const int64_t count = P - p0 < 32 ? P - p0 : 32;
      const void* a[2];
      int64_t aStride[2];
      for (int h = 0; h < (twoM ? 2 : 1); ++h) {
        const int64_t o0 = (mt + h) * 16;
        if (j.dyWords && count == 32 && o0 + 16 <= j.m) {
          a[h] = j.dyWords + (image * j.m + o0) * P + p0;
          aStride[h] = P * 2;
          continue;
        }
        __mmask32 ignored = 0;
        for (int r = 0; r < 16; ++r) {
          const __m512i w = o0 + r < j.m
                                ? rowWords(j.dyWords, j.dyFloats, (image * j.m + o0 + r) * P + p0,
                                           count, &ignored)
                                : _mm512_setzero_si512();
          _mm512_store_si512(copy[h] + r * 32, w);
        }
        a[h] = copy[h];
        aStride[h] = 64;
      }
      const uint16_t* b = j.panel + 2 * s * 512;
      _tile_loadd(4, a[0], aStride[0]);
      _tile_loadd(6, b, 64);
      _tile_dpbf16ps(0, 4, 6);
      if (twoN) {
        _tile_loadd(7, b + 512, 64);
        _tile_dpbf16ps(1, 4, 7);
      }
      if (twoM) {
        _tile_loadd(5, a[1], aStride[1]);
        _tile_dpbf16ps(2, 5, 6);
        if (twoN) _tile_dpbf16ps(3, 5, 7);
      }
    }
    // The partial holds whole 32 x 32 blocks (padded), so every tile fits.
    _tile_stored(0, out, stride);
    _tile_stored(1, out + 16, stride);
    _tile_stored(2, out + 16 * j.partialStride, stride);
    _tile_stored(3, out + 16 * j.partialStride + 16, stride);
  }
  return true;
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
