// The AVX512-BF16 weight-gradient micro-kernel: the AMX weight kernel's job
// (blocked_bf16_kernels.h) on vector registers. A K word of an x row (two
// positions of one input channel) is broadcast and met by VDPBF16PS with
// the dy pair row of the same word (16 output channels, the same two
// positions). Register tiles of 8 input channels x 2 output blocks, or 16 x
// 1 for a single output block: 16 accumulators either way (measured on
// Zen 4, none faster: 11 x 2 tiles, 16 x 1 per output block, the word as
// an embedded broadcast). Only called after a cpuid check. Keep this file
// free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include <cstring>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/simd/reduction_unroll.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

constexpr int kWordUnroll = simd::kReductionUnroll;

// Rows [i0, i0 + kRows) of input block `a` against OC output blocks: 16
// accumulators either way.
template <int OC>
void rowTile(const Bf16WeightJob& j, int a, int i0) {
  constexpr int kRows = 16 / OC;
  float* dw = j.dw + a * j.dwIcBlockFloats + i0 * 16;
  __m512 acc[kRows][OC];
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int b = 0; b < OC; ++b)
      acc[i][b] =
          j.accumulate ? _mm512_loadu_ps(dw + b * j.dwOcBlockFloats + i * 16) : _mm512_setzero_ps();
  }
  const int64_t rowBytes = j.xChannelBytes;
  for (int64_t g = 0; g < j.segmentCount; ++g) {
    const Bf16WeightSegment& seg = j.segments[g];
    const uint8_t* x = seg.x + j.xTapBytes + a * j.xBlockBytes + i0 * rowBytes;
    const uint8_t* dy = seg.dy;
    for (int64_t s = 0; s < seg.steps; ++s, x += 64, dy += 1024) {
#pragma GCC unroll kWordUnroll
      for (int u = 0; u < 16; ++u) {
        __m512bh d[OC];
#pragma GCC unroll 2
        for (int b = 0; b < OC; ++b)
          d[b] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(dy + b * j.dyBlockBytes + u * 64));
#pragma GCC unroll 16
        for (int i = 0; i < kRows; ++i) {
          uint32_t word = 0;
          std::memcpy(&word, x + i * rowBytes + u * 4, sizeof word);
          const __m512bh xv = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(word)));
#pragma GCC unroll 2
          for (int b = 0; b < OC; ++b) acc[i][b] = _mm512_dpbf16_ps(acc[i][b], xv, d[b]);
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 2
    for (int b = 0; b < OC; ++b) _mm512_storeu_ps(dw + b * j.dwOcBlockFloats + i * 16, acc[i][b]);
  }
}

}  // namespace

void bf16_convbwdw_8x32_avx512bf16(const Bf16WeightJob& job) {
  for (int a = 0; a < job.icBlocks; ++a) {
    if (job.ocBlocks == 2) {
      rowTile<2>(job, a, 0);
      rowTile<2>(job, a, 8);
    } else {
      rowTile<1>(job, a, 0);
    }
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
