// Weight-gradient store: up to 16 taps of 16 x 16 (reduction channel,
// output channel) sums into dw's rows, one 16 x 16 transpose per reduction
// channel turning its taps' vectors (over output channels) into each output
// channel's run of taps. The scalar transpose it replaces was 10% of a bf16
// RN50 3x3 512ch 7x7 weight gradient. Only called after a cpuid check. Keep
// this file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

void f32_weight_taps_store_16x16_avx512(const WeightTapTiles& j) {
  if (j.taps == 1 && j.channelStride == 1) {
    // A pointwise layer: each output channel's row of dw is the reduction
    // channels' sums, one transpose for the tile instead of one per channel
    // (res5 1x1/2 1024->2048 bf16 dW, 1 thread: the per-channel form was a
    // third of the pass).
    __m512 v[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
      v[i] = i < j.ins ? _mm512_loadu_ps(j.sums + i * 16) : _mm512_setzero_ps();
    simd::transpose16x16(v);
    const __mmask16 ins = simd::firstLanes(j.ins);
    for (int o = 0; o < j.outs; ++o) _mm512_mask_storeu_ps(j.dw + o * j.rowStride, ins, v[o]);
    return;
  }
  const __mmask16 taps = simd::firstLanes(j.taps);
  for (int i = 0; i < j.ins; ++i) {
    __m512 v[16];
#pragma GCC unroll 16
    for (int t = 0; t < 16; ++t)
      v[t] = t < j.taps ? _mm512_loadu_ps(j.sums + t * j.tapStride + i * 16) : _mm512_setzero_ps();
    simd::transpose16x16(v);
    float* dst = j.dw + i * j.channelStride;
    for (int o = 0; o < j.outs; ++o) _mm512_mask_storeu_ps(dst + o * j.rowStride, taps, v[o]);
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
