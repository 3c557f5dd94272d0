// The few-channel data-gradient micro-kernel: a tile of up to 6 taps x 64
// positions of one dy row (24 accumulators) summed over every output
// channel in registers: each channel loads 4 vectors of its dy row and
// broadcasts its 6 weights. Each tap's sums are then added into the padded
// stride-phase row the tap writes, the last vector masked. Only called
// after a cpuid check. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

template <int NT, int NV>
void runTile(const FewChannelDataJob& j) {
  __m512 acc[NT][NV];
#pragma GCC unroll 6
  for (int t = 0; t < NT; ++t)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[t][v] = _mm512_setzero_ps();
  // The last vector's lanes past count read zeros: their sums are not stored.
  const __mmask16 last = simd::firstLanes(j.count - (NV - 1) * 16);
  for (int64_t o = 0; o < j.outChannels; ++o) {
    const float* dy = j.dy + o * j.dyChannelStride;
    const float* w = j.weights + o * kWeightTaps;
    __m512 d[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      d[v] = v + 1 < NV ? _mm512_loadu_ps(dy + v * 16) : _mm512_maskz_loadu_ps(last, dy + v * 16);
#pragma GCC unroll 6
    for (int t = 0; t < NT; ++t) {
      const __m512 wt = _mm512_set1_ps(w[t]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[t][v] = _mm512_fmadd_ps(d[v], wt, acc[t][v]);
    }
  }
#pragma GCC unroll 6
  for (int t = 0; t < NT; ++t) {
    float* dx = j.dx + j.taps[t];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __mmask16 m = v + 1 < NV ? static_cast<__mmask16>(0xFFFF) : last;
      _mm512_mask_storeu_ps(dx + v * 16, m,
                            _mm512_add_ps(_mm512_maskz_loadu_ps(m, dx + v * 16), acc[t][v]));
    }
  }
}

template <int NT>
void runTaps(const FewChannelDataJob& j) {
  switch ((j.count + 15) / 16) {
    case 1:
      return runTile<NT, 1>(j);
    case 2:
      return runTile<NT, 2>(j);
    case 3:
      return runTile<NT, 3>(j);
    default:
      return runTile<NT, 4>(j);
  }
}

}  // namespace

void f32_conv_bwdd_rows_t6w64_avx512(const FewChannelDataJob& job) {
  switch (job.tapCount) {
    case 1:
      return runTaps<1>(job);
    case 2:
      return runTaps<2>(job);
    case 3:
      return runTaps<3>(job);
    case 4:
      return runTaps<4>(job);
    case 5:
      return runTaps<5>(job);
    default:
      return runTaps<6>(job);
  }
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
