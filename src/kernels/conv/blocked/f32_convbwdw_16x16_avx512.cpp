#include "kernels/simd/avx512_intrinsic_warnings.h"

// Weight-gradient micro-kernels of the blocked direct convolution: 16
// accumulators (one per reduction channel) over one 16-channel block of
// gradOutput, one gradOutput load feeding 16 broadcast FMAs. Only called
// after a cpuid check. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/group_broadcast_avx512_inl.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Interleaved groups: one accumulator per channel of a group.
template <int G>
void groupedWeight(const WeightJob& job) {
  constexpr int K = 16 / G;
  __m512 acc[K];
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j)
    acc[j] = job.accumulate ? _mm512_loadu_ps(job.dw + j * 16) : _mm512_setzero_ps();
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride;
    const float* dy = job.dy + r * job.dyRowStride;
    for (int64_t c = 0; c < job.cols; ++c) {
      const __m512 d = _mm512_loadu_ps(dy + c * 16);
      const float* xc = x + c * job.xColStep;
#pragma GCC unroll 8
      for (int j = 0; j < K; ++j)
        acc[j] = _mm512_fmadd_ps(groupBroadcast512<G>(xc + j * G), d, acc[j]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < K; ++j) _mm512_storeu_ps(job.dw + j * 16, acc[j]);
}

}  // namespace

void f32_convbwdw_16x16_avx512(const WeightJob& job) {
  if (job.laneGroups == 2) return groupedWeight<2>(job);
  if (job.laneGroups == 4) return groupedWeight<4>(job);
  __m512 acc[16];
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c)
    acc[c] = job.accumulate ? _mm512_loadu_ps(job.dw + c * 16) : _mm512_setzero_ps();
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride;
    const float* dy = job.dy + r * job.dyRowStride;
    for (int64_t j = 0; j < job.cols; ++j) {
      const __m512 d = _mm512_loadu_ps(dy + j * 16);
      const float* xj = x + j * job.xColStep;
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) acc[c] = _mm512_fmadd_ps(_mm512_set1_ps(xj[c]), d, acc[c]);
    }
  }
#pragma GCC unroll 16
  for (int c = 0; c < 16; ++c) _mm512_storeu_ps(job.dw + c * 16, acc[c]);
}

void f32_dwconvbwdw_16_avx512(const WeightJob& job) {
  // Four partial sums over columns j mod 4, combined in one fixed order.
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride;
    const float* dy = job.dy + r * job.dyRowStride;
    int64_t j = 0;
    for (; j + 4 <= job.cols; j += 4) {
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u)
        acc[u] = _mm512_fmadd_ps(_mm512_loadu_ps(x + (j + u) * job.xColStep),
                                 _mm512_loadu_ps(dy + (j + u) * 16), acc[u]);
    }
    for (int u = 0; j < job.cols; ++j, ++u)
      acc[u] = _mm512_fmadd_ps(_mm512_loadu_ps(x + j * job.xColStep), _mm512_loadu_ps(dy + j * 16),
                               acc[u]);
  }
  __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
  if (job.accumulate) sum = _mm512_add_ps(_mm512_loadu_ps(job.dw), sum);
  _mm512_storeu_ps(job.dw, sum);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
