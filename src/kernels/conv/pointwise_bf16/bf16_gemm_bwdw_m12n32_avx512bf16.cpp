// The bf16 pointwise weight-gradient micro-kernel (bf16_pointwise_kernels.h)
// with AVX512-BF16: the AMX kernel's job on registers. The panel's rows are
// position pairs of 16 input channels; a register tile of 12 output
// channels x 32 input channels adds, for every position pair, the broadcast
// dy word (two positions of one output channel) times the panel row
// (VDPBF16PS). dy rows are read in place, or (a step past the end of a
// row, fp32 sources, the last output channels) through a zero-padded copy.
// Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

// GCC 12 reports its own _mm512_undefined_*() inside the masked intrinsics
// as uninitialised; the lanes it leaves undefined are always masked off.
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include <cstring>

#include "kernels/conv/pointwise_bf16/bf16_panel_avx512_inl.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {
namespace {

constexpr int kRows = 12;  // output channels per register tile

// Output channels [o0, o0 + kRows) x T input tiles over the job's steps.
template <int T>
void rowTile(const Bf16PointwiseWeightJob& j, int64_t o0) {
  const int64_t P = j.positions;
  const int64_t rows = j.m - o0 < kRows ? j.m - o0 : kRows;
  __m512 acc[kRows][T];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int t = 0; t < T; ++t)
      acc[r][t] = j.accumulate && r < rows
                      ? _mm512_loadu_ps(j.partial + (o0 + r) * j.partialStride + 16 * t)
                      : _mm512_setzero_ps();
  }
  alignas(64) uint16_t copy[kRows * 32];
  for (int64_t s = 0; s < j.steps; ++s) {
    const int64_t step = j.firstStep + s;
    const int64_t image = step / j.stepsPerImage, p0 = step % j.stepsPerImage * 32;
    const int64_t count = P - p0 < 32 ? P - p0 : 32;
    const uint16_t* a = nullptr;
    int64_t aStride = 0;
    if (j.dyWords && count == 32 && rows == kRows) {
      a = j.dyWords + (image * j.m + o0) * P + p0;
      aStride = P;
    } else {
      __mmask32 ignored = 0;
      for (int r = 0; r < kRows; ++r) {
        const __m512i w = r < rows ? rowWordsAt(j.dyWords, j.dyFloats,
                                                (image * j.m + o0 + r) * P + p0, count, &ignored)
                                   : _mm512_setzero_si512();
        _mm512_store_si512(copy + r * 32, w);
      }
      a = copy;
      aStride = 32;
    }
    const uint16_t* b = j.panel + 2 * s * 512;
#pragma GCC unroll 4
    for (int u = 0; u < 16; ++u) {
      __m512bh x[T];
#pragma GCC unroll 2
      for (int t = 0; t < T; ++t)
        x[t] = reinterpret_cast<__m512bh>(_mm512_load_si512(b + t * 512 + u * 32));
#pragma GCC unroll 12
      for (int r = 0; r < kRows; ++r) {
        uint32_t word = 0;
        std::memcpy(&word, a + r * aStride + 2 * u, sizeof word);
        const __m512bh d = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(word)));
#pragma GCC unroll 2
        for (int t = 0; t < T; ++t) acc[r][t] = _mm512_dpbf16_ps(acc[r][t], d, x[t]);
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
#pragma GCC unroll 2
    for (int t = 0; t < T; ++t)
      _mm512_storeu_ps(j.partial + (o0 + r) * j.partialStride + 16 * t, acc[r][t]);
  }
}

}  // namespace

bool bf16_pointwise_bwdw_m12n32_avx512bf16(const Bf16PointwiseWeightJob& j) {
  if (!packWeightPanel(j)) return false;
  const bool twoN = j.n0 + 16 < j.n;
  for (int64_t o0 = 0; o0 < j.m; o0 += kRows) {
    if (twoN)
      rowTile<2>(j, o0);
    else
      rowTile<1>(j, o0);
  }
  return true;
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
