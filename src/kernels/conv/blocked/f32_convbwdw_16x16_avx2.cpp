// AVX2 weight-gradient micro-kernels of the blocked direct convolution: the
// 16 x 16 block in three passes of 6, 6 and 4 reduction channels (two ymm
// accumulators each), so every accumulator stays in a register. Each element
// is the same sum in the same order as the AVX-512 kernel. Only called after
// a cpuid check. Keep this file free of library templates.

#include <immintrin.h>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/group_broadcast_avx2_inl.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

template <int C>
void channels(const WeightJob& job, int c0) {
  __m256 acc[C][2];
#pragma GCC unroll 6
  for (int c = 0; c < C; ++c) {
    acc[c][0] = job.accumulate ? _mm256_loadu_ps(job.dw + (c0 + c) * 16) : _mm256_setzero_ps();
    acc[c][1] = job.accumulate ? _mm256_loadu_ps(job.dw + (c0 + c) * 16 + 8) : _mm256_setzero_ps();
  }
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride + c0;
    const float* dy = job.dy + r * job.dyRowStride;
    for (int64_t j = 0; j < job.cols; ++j) {
      const __m256 d0 = _mm256_loadu_ps(dy + j * 16);
      const __m256 d1 = _mm256_loadu_ps(dy + j * 16 + 8);
      const float* xj = x + j * job.xColStep;
#pragma GCC unroll 6
      for (int c = 0; c < C; ++c) {
        const __m256 v = _mm256_broadcast_ss(xj + c);
        acc[c][0] = _mm256_fmadd_ps(v, d0, acc[c][0]);
        acc[c][1] = _mm256_fmadd_ps(v, d1, acc[c][1]);
      }
    }
  }
#pragma GCC unroll 6
  for (int c = 0; c < C; ++c) {
    _mm256_storeu_ps(job.dw + (c0 + c) * 16, acc[c][0]);
    _mm256_storeu_ps(job.dw + (c0 + c) * 16 + 8, acc[c][1]);
  }
}

// Interleaved groups: J of the 16 / G accumulators of a group's channels
// from j0 on (two ymm halves each).
template <int G, int J>
void groupedChannels(const WeightJob& job, int j0) {
  __m256 acc[J][2];
#pragma GCC unroll 4
  for (int j = 0; j < J; ++j) {
    acc[j][0] = job.accumulate ? _mm256_loadu_ps(job.dw + (j0 + j) * 16) : _mm256_setzero_ps();
    acc[j][1] = job.accumulate ? _mm256_loadu_ps(job.dw + (j0 + j) * 16 + 8) : _mm256_setzero_ps();
  }
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride + j0 * G;
    const float* dy = job.dy + r * job.dyRowStride;
    for (int64_t c = 0; c < job.cols; ++c) {
      const __m256 d0 = _mm256_loadu_ps(dy + c * 16);
      const __m256 d1 = _mm256_loadu_ps(dy + c * 16 + 8);
      const float* xc = x + c * job.xColStep;
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) {
        const __m256 v = groupBroadcast256<G>(xc + j * G);
        acc[j][0] = _mm256_fmadd_ps(v, d0, acc[j][0]);
        acc[j][1] = _mm256_fmadd_ps(v, d1, acc[j][1]);
      }
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < J; ++j) {
    _mm256_storeu_ps(job.dw + (j0 + j) * 16, acc[j][0]);
    _mm256_storeu_ps(job.dw + (j0 + j) * 16 + 8, acc[j][1]);
  }
}

}  // namespace

void f32_convbwdw_16x16_avx2(const WeightJob& job) {
  if (job.laneGroups == 2) {
    groupedChannels<2, 4>(job, 0);
    groupedChannels<2, 4>(job, 4);
    return;
  }
  if (job.laneGroups == 4) {
    groupedChannels<4, 4>(job, 0);
    return;
  }
  channels<6>(job, 0);
  channels<6>(job, 6);
  channels<4>(job, 12);
}

void f32_dwconvbwdw_16_avx2(const WeightJob& job) {
  // Four partial sums over columns j mod 4, combined as the AVX-512 kernel does.
  __m256 acc[4][2];
  for (auto& a : acc) a[0] = a[1] = _mm256_setzero_ps();
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.xRowStride;
    const float* dy = job.dy + r * job.dyRowStride;
    for (int64_t j = 0; j < job.cols; ++j) {
      const int u = static_cast<int>(j % 4);
      const float* xj = x + j * job.xColStep;
      acc[u][0] = _mm256_fmadd_ps(_mm256_loadu_ps(xj), _mm256_loadu_ps(dy + j * 16), acc[u][0]);
      acc[u][1] =
          _mm256_fmadd_ps(_mm256_loadu_ps(xj + 8), _mm256_loadu_ps(dy + j * 16 + 8), acc[u][1]);
    }
  }
  for (int h = 0; h < 2; ++h) {
    __m256 sum =
        _mm256_add_ps(_mm256_add_ps(acc[0][h], acc[1][h]), _mm256_add_ps(acc[2][h], acc[3][h]));
    if (job.accumulate) sum = _mm256_add_ps(_mm256_loadu_ps(job.dw + 8 * h), sum);
    _mm256_storeu_ps(job.dw + 8 * h, sum);
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
