// The few-channel weight-gradient micro-kernel: a tile of up to 4 output
// channels x 6 taps (24 accumulators) over a block of output rows; each
// step of 16 positions loads the 4 channels' dy vectors (fp32, or widened
// from the caller's bf16 or half words) and each tap's vector of one stride
// phase of the padded input row, and multiplies every pair. The
// accumulators are 16-lane partial sums, kept in the job's sums between
// blocks. Only called after a cpuid check. Keep this file free of library
// templates (see f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

// dy as fp32 (as it is, or rounded to HF32), or as the caller's bf16 or
// half words widened as loaded.
struct F32Dy {
  using Element = float;
  static __m512 load(const float* p) { return _mm512_loadu_ps(p); }
  static __m512 load(const float* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
};
struct Hf32Dy {
  using Element = float;
  static __m512 load(const float* p) { return simd::roundHf32(_mm512_loadu_ps(p)); }
  static __m512 load(const float* p, __mmask16 m) {
    return simd::roundHf32(_mm512_maskz_loadu_ps(m, p));
  }
};
struct Bf16Dy {
  using Element = uint16_t;
  static __m512 load(const uint16_t* p) { return simd::loadBf16Whole(p); }
  static __m512 load(const uint16_t* p, __mmask16 m) { return simd::loadBf16(p, m); }
};
struct F16Dy {
  using Element = uint16_t;
  static __m512 load(const uint16_t* p) { return simd::loadF16Whole(p); }
  static __m512 load(const uint16_t* p, __mmask16 m) { return simd::loadF16(p, m); }
};

template <typename D, int MO, int NT>
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
    const typename D::Element* dy = static_cast<const typename D::Element*>(j.dy) + r * j.dyRowStep;
    // Two steps per iteration: RN50 stem 7x7/2 weight gradient, pass bench,
    // 1 thread, medians of 7: batch 1 1.60 -> 1.53 ms, batch 8 14.2 -> 13.6;
    // wav2vec stem 4.9 -> 4.6.
#pragma GCC unroll 2
    for (int64_t p = 0; p < whole; p += 16) {
      __m512 d[MO];
#pragma GCC unroll 4
      for (int o = 0; o < MO; ++o) d[o] = D::load(dy + o * j.dyChannelStride + p);
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
      for (int o = 0; o < MO; ++o) d[o] = D::load(dy + o * j.dyChannelStride + whole, last);
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

template <typename D, int MO>
void runChannels(const FewChannelWeightJob& j) {
  switch (j.tapCount) {
    case 1:
      return runTile<D, MO, 1>(j);
    case 2:
      return runTile<D, MO, 2>(j);
    case 3:
      return runTile<D, MO, 3>(j);
    case 4:
      return runTile<D, MO, 4>(j);
    case 5:
      return runTile<D, MO, 5>(j);
    default:
      return runTile<D, MO, 6>(j);
  }
}

template <typename D>
void runDy(const FewChannelWeightJob& j) {
  switch (j.channels) {
    case 1:
      return runChannels<D, 1>(j);
    case 2:
      return runChannels<D, 2>(j);
    case 3:
      return runChannels<D, 3>(j);
    default:
      return runChannels<D, 4>(j);
  }
}

}  // namespace

void f32_conv_bwdw_rows_o4t6_avx512(const FewChannelWeightJob& job) {
  switch (job.dyType) {
    case ElementType::BF16:
      return runDy<Bf16Dy>(job);
    case ElementType::F16:
      return runDy<F16Dy>(job);
    default:
      return job.roundDyHf32 ? runDy<Hf32Dy>(job) : runDy<F32Dy>(job);
  }
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
