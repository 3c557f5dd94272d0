// The few-channel weight-gradient micro-kernel: a tile of up to 4 output
// channels x 6 taps (24 accumulators) over a block of output rows; each
// step of 16 positions loads the 4 channels' dy vectors and each tap's
// vector of one stride phase of the padded input row, and multiplies every
// pair. The accumulators are 16-lane partial sums, kept in the job's sums
// between blocks. Only called after a cpuid check. Keep this file free of
// library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

template <int MO, int NT>
void runTile(const FewChannelWeightJob& j) {
  __m512 acc[MO][NT];
#pragma GCC unroll 4
  for (int o = 0; o < MO; ++o)
#pragma GCC unroll 6
    for (int t = 0; t < NT; ++t)
      acc[o][t] = _mm512_loadu_ps(j.sums + o * j.sumChannelStride + t * 16);
  const int64_t whole = j.count / 16 * 16;
  const __mmask16 last = simd::firstLanes(j.count - whole);
  for (int64_t r = 0; r < j.rows; ++r) {
    const float* x[NT];
#pragma GCC unroll 6
    for (int t = 0; t < NT; ++t) x[t] = j.x + r * j.xRowStep + j.taps[t];
    const float* dy = j.dy + r * j.dyRowStep;
    for (int64_t p = 0; p < whole; p += 16) {
      __m512 d[MO];
#pragma GCC unroll 4
      for (int o = 0; o < MO; ++o) d[o] = _mm512_loadu_ps(dy + o * j.dyChannelStride + p);
#pragma GCC unroll 6
      for (int t = 0; t < NT; ++t) {
        const __m512 xv = _mm512_loadu_ps(x[t] + p);
#pragma GCC unroll 4
        for (int o = 0; o < MO; ++o) acc[o][t] = _mm512_fmadd_ps(xv, d[o], acc[o][t]);
      }
    }
    if (last) {
      // The padded rows hold whole vectors: x past the row is readable, and
      // the masked lanes leave their sums as they are.
      __m512 d[MO];
#pragma GCC unroll 4
      for (int o = 0; o < MO; ++o)
        d[o] = _mm512_maskz_loadu_ps(last, dy + o * j.dyChannelStride + whole);
#pragma GCC unroll 6
      for (int t = 0; t < NT; ++t) {
        const __m512 xv = _mm512_loadu_ps(x[t] + whole);
#pragma GCC unroll 4
        for (int o = 0; o < MO; ++o) acc[o][t] = _mm512_mask3_fmadd_ps(xv, d[o], acc[o][t], last);
      }
    }
  }
#pragma GCC unroll 4
  for (int o = 0; o < MO; ++o)
#pragma GCC unroll 6
    for (int t = 0; t < NT; ++t)
      _mm512_storeu_ps(j.sums + o * j.sumChannelStride + t * 16, acc[o][t]);
}

template <int MO>
void runChannels(const FewChannelWeightJob& j) {
  switch (j.tapCount) {
    case 1:
      return runTile<MO, 1>(j);
    case 2:
      return runTile<MO, 2>(j);
    case 3:
      return runTile<MO, 3>(j);
    case 4:
      return runTile<MO, 4>(j);
    case 5:
      return runTile<MO, 5>(j);
    default:
      return runTile<MO, 6>(j);
  }
}

}  // namespace

void f32_conv_bwdw_rows_o4t6_avx512(const FewChannelWeightJob& job) {
  switch (job.channels) {
    case 1:
      return runChannels<1>(job);
    case 2:
      return runChannels<2>(job);
    case 3:
      return runChannels<3>(job);
    default:
      return runChannels<4>(job);
  }
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
