// The few-channel forward micro-kernel: a tile of up to 6 output channels x
// 64 positions of one output row (24 accumulators, 16 positions per vector)
// summed over every (input channel, tap) in registers: each step loads 4
// vectors of one stride phase of the padded input row and broadcasts 6
// weights. Rows are stored straight into y (plus the bias), the last vector
// masked, as fp32 or rounded to the caller's words. Only called after a
// cpuid check. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

template <int NC, int NV>
void runTile(const FewChannelRowJob& j, int64_t c0, int64_t p0) {
  __m512 acc[NC][NV];
#pragma GCC unroll 6
  for (int c = 0; c < NC; ++c)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[c][v] = _mm512_setzero_ps();
  const float* x = j.x + p0;
  // The group's weights are contiguous: a tile's steps walk 24 bytes each
  // instead of one cache line of [tap][all channels] each (a 7x7 stem's
  // 38 KB of weights did not stay in L1 next to the input rows).
  const float* w = j.weights + c0 / kChannelGroup * j.tapCount * kChannelGroup;
  for (int64_t k = 0; k < j.tapCount; ++k) {
    const float* xk = x + j.taps[k];
    const float* wk = w + k * kChannelGroup;
    __m512 xv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) xv[v] = _mm512_loadu_ps(xk + v * 16);
#pragma GCC unroll 6
    for (int c = 0; c < NC; ++c) {
      const __m512 wc = _mm512_set1_ps(wk[c]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[c][v] = _mm512_fmadd_ps(xv[v], wc, acc[c][v]);
    }
  }
  const __mmask16 last = simd::firstLanes(j.count - p0 - (NV - 1) * 16);
  const bool half = j.outWordType == ElementType::F16;
#pragma GCC unroll 6
  for (int c = 0; c < NC; ++c) {
    const int64_t row = (c0 - j.channelBegin + c) * j.outChannelStride + p0;
    const __m512 b = _mm512_set1_ps(j.bias ? j.bias[c0 + c] : 0.0f);
    if (j.outWords) {
      // Words two vectors at a time: 32 words, one line when aligned, which
      // a streaming store writes without reading it first.
#pragma GCC unroll 2
      for (int v = 0; v < NV; v += 2) {
        const __m512 r0 = j.bias ? _mm512_add_ps(acc[c][v], b) : acc[c][v];
        uint16_t* words = j.outWords + row + v * 16;
        if (v + 1 == NV) {
          const __mmask16 m = last;
          if (half)
            simd::storeF16(words, m, r0);
          else
            simd::storeBf16(words, m, r0);
          continue;
        }
        const __m512 r1 = j.bias ? _mm512_add_ps(acc[c][v + 1], b) : acc[c][v + 1];
        const __m512i pair = half ? simd::halfWords32(r0, r1) : simd::bf16Words32(r0, r1);
        const bool whole = v + 2 < NV || last == 0xFFFF;
        if (j.stream && whole && (reinterpret_cast<uintptr_t>(words) & 63) == 0)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(words), pair);
        else
          _mm512_mask_storeu_epi16(
              words, whole ? ~__mmask32{0} : 0xFFFFu | static_cast<__mmask32>(last) << 16, pair);
      }
      continue;
    }
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const __m512 r = j.bias ? _mm512_add_ps(acc[c][v], b) : acc[c][v];
      const bool whole = v + 1 < NV || last == 0xFFFF;
      float* at = j.out + row + v * 16;
      if (j.stream && whole && (reinterpret_cast<uintptr_t>(at) & 63) == 0)
        _mm512_stream_ps(at, r);
      else if (whole)
        _mm512_storeu_ps(at, r);
      else
        _mm512_mask_storeu_ps(at, last, r);
    }
  }
}

template <int NC>
void runChannels(const FewChannelRowJob& j, int64_t c0) {
  for (int64_t p0 = 0; p0 < j.count; p0 += 64) {
    switch ((j.count - p0 >= 64 ? 64 : j.count - p0 + 15) / 16) {
      case 4:
        runTile<NC, 4>(j, c0, p0);
        break;
      case 3:
        runTile<NC, 3>(j, c0, p0);
        break;
      case 2:
        runTile<NC, 2>(j, c0, p0);
        break;
      default:
        runTile<NC, 1>(j, c0, p0);
        break;
    }
  }
}

}  // namespace

void f32_conv_fwd_rows_c6w64_avx512(const FewChannelRowJob& job) {
  const int64_t end = job.channelBegin + job.channelCount;
  static_assert(kChannelGroup == 6, "the tiles below are of 6 channels");
  for (int64_t c0 = job.channelBegin; c0 < end; c0 += kChannelGroup) {
    switch (end - c0 >= 6 ? 6 : end - c0) {
      case 6:
        runChannels<6>(job, c0);
        break;
      case 5:
        runChannels<5>(job, c0);
        break;
      case 4:
        runChannels<4>(job, c0);
        break;
      case 3:
        runChannels<3>(job, c0);
        break;
      case 2:
        runChannels<2>(job, c0);
        break;
      default:
        runChannels<1>(job, c0);
        break;
    }
  }
  if (job.stream) _mm_sfence();
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
