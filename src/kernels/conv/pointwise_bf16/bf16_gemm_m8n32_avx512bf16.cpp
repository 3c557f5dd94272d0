// The bf16 pointwise micro-kernel (bf16_pointwise_kernels.h) with
// AVX512-BF16: the AMX kernel's job, bf16 pairs only, on registers. The
// panel's channel-pair rows are 16 position lanes of two bf16 channels
// each; a register tile of 8 output channels x 32 positions (or 16 x 16
// when the panel has one vector of positions) adds, for every channel pair,
// the broadcast weight word of each output channel times the panel row
// (VDPBF16PS). Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/conv/pointwise_bf16/bf16_pointwise_store_avx512_inl.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {
namespace {

// Output channels [m0, m0 + R) (within one 16-channel tile of the packed
// weights) x T position vectors.
template <int R, int T>
void rowTile(const Bf16PointwiseJob& j, int64_t m0) {
  const int64_t pairs = j.kSteps * 16;
  // Packed a: rows of 32 bf16 (16 words) per (tile, step), 16 rows a tile.
  const uint16_t* a = j.a + (m0 / 16) * j.kSteps * 512 + (m0 % 16) * 32;
  __m512 acc[R][T];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int t = 0; t < T; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  for (int64_t s = 0; s < j.kSteps; ++s) {
    const uint16_t* as = a + s * 512;
    const uint16_t* panel = j.panel + s * 16 * 32;
#pragma GCC unroll 4
    for (int q = 0; q < 16; ++q) {
      __m512bh b[T];
#pragma GCC unroll 2
      for (int t = 0; t < T; ++t)
        b[t] = reinterpret_cast<__m512bh>(_mm512_load_si512(panel + (t * pairs + q) * 32));
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        uint32_t word = 0;
        std::memcpy(&word, as + r * 32 + 2 * q, sizeof word);
        const __m512bh w = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(word)));
#pragma GCC unroll 2
        for (int t = 0; t < T; ++t) acc[r][t] = _mm512_dpbf16_ps(acc[r][t], w, b[t]);
      }
    }
  }
  const int64_t rows = j.m - m0 < R ? j.m - m0 : R;
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 2
    for (int t = 0; t < T; ++t) storeRow(j, acc[r][t], m0 + r, 16 * t, j.n - 16 * t);
  }
}

}  // namespace

void bf16_pointwise_m8n32_avx512bf16(const Bf16PointwiseJob& j) {
  if (j.n > 16) {
    for (int64_t m0 = 0; m0 < j.m; m0 += 8) rowTile<8, 2>(j, m0);
  } else {
    for (int64_t m0 = 0; m0 < j.m; m0 += 16) rowTile<16, 1>(j, m0);
  }
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
