// Weight-gradient micro-kernel over a run of up to three taps along W that
// read x columns `tapShift` apart: each x value is broadcast once and used
// by every tap of the run (8 reduction channels x 3 taps x 16 output lanes
// of accumulators), so a position costs 3 dy loads and 8 broadcasts for 24
// FMAs instead of the per-tap kernel's 17 loads for 16. Every (tap, channel)
// sum runs over its columns in increasing order, as the per-tap kernel's
// does: the same bits. x is either staged (a position's 16 channels
// adjacent) or the caller's dense x read in place (channels a plane apart,
// job.xLaneStride): then each of the 8 channels is read through its own
// pointer, loop-invariant per row. Only called after a cpuid check. Keep
// this file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/blocked/blocked_kernels.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

constexpr int kChannels = 8;  // reduction channels per accumulator set

// Plain functions, not the library's min / max templates (see above).
int64_t smaller(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t larger(int64_t a, int64_t b) { return a > b ? a : b; }

// kLanesApart: x's channels xLaneStride floats apart (x read in place).
template <int T, bool kLanesApart>
void runTaps(const WeightTapsJob& job) {
  const int64_t shift = job.tapShift;
  const int64_t laneStride = kLanesApart ? job.xLaneStride : 1;
  // x columns q = j + t * shift: [qBegin, qEnd) holds every tap's columns,
  // [fullBegin, fullEnd) the columns every tap takes.
  int64_t qBegin = INT64_MAX, qEnd = INT64_MIN, fullBegin = INT64_MIN, fullEnd = INT64_MAX;
  for (int t = 0; t < T; ++t) {
    const int64_t lo = job.lo[t] + t * shift, hi = job.hi[t] + t * shift;
    fullBegin = larger(fullBegin, lo);
    fullEnd = smaller(fullEnd, hi);
    if (job.lo[t] >= job.hi[t]) continue;
    qBegin = smaller(qBegin, lo);
    qEnd = larger(qEnd, hi);
  }
  if (qBegin > qEnd) qBegin = qEnd = 0;  // no tap has columns
  const int64_t fb = smaller(larger(fullBegin, qBegin), qEnd);
  const int64_t fe = smaller(larger(fullEnd, fb), qEnd);
  for (int half = 0; half < 16 / kChannels; ++half) {
    __m512 acc[T][kChannels];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
#pragma GCC unroll 8
      for (int c = 0; c < kChannels; ++c) {
        const float* dw = job.dw[t] + (half * kChannels + c) * 16;
        acc[t][c] = job.accumulate ? _mm512_loadu_ps(dw) : _mm512_setzero_ps();
      }
    }
    for (int64_t r = 0; r < job.rows; ++r) {
      const float* x = job.x + r * job.xRowStride + half * kChannels * laneStride;
      const float* dy = job.dy + r * job.dyRowStride;
      // Channel c's value at column q: lane[c][q * xColStep].
      const float* lane[kChannels];
#pragma GCC unroll 8
      for (int c = 0; c < kChannels; ++c) lane[c] = x + c * laneStride;
      // Columns where some tap has no term: each tap checks its own range.
      auto edge = [&](int64_t q) {
        const int64_t at = q * job.xColStep;
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) {
          const int64_t j = q - t * shift;
          if (j < job.lo[t] || j >= job.hi[t]) continue;
          const __m512 d = _mm512_loadu_ps(dy + j * 16);
#pragma GCC unroll 8
          for (int c = 0; c < kChannels; ++c)
            acc[t][c] = _mm512_fmadd_ps(_mm512_set1_ps(lane[c][at]), d, acc[t][c]);
        }
      };
      for (int64_t q = qBegin; q < fb; ++q) edge(q);
      for (int64_t q = fb; q < fe; ++q) {
        const int64_t at = q * job.xColStep;
        __m512 d[T];
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) d[t] = _mm512_loadu_ps(dy + (q - t * shift) * 16);
#pragma GCC unroll 8
        for (int c = 0; c < kChannels; ++c) {
          const __m512 v = _mm512_set1_ps(lane[c][at]);
#pragma GCC unroll 4
          for (int t = 0; t < T; ++t) acc[t][c] = _mm512_fmadd_ps(v, d[t], acc[t][c]);
        }
      }
      for (int64_t q = fe; q < qEnd; ++q) edge(q);
    }
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
#pragma GCC unroll 8
      for (int c = 0; c < kChannels; ++c)
        _mm512_storeu_ps(job.dw[t] + (half * kChannels + c) * 16, acc[t][c]);
    }
  }
}

}  // namespace

void f32_convbwdw_taps3x8x16_avx512(const WeightTapsJob& job) {
  if (job.xLaneStride != 1) {
    if (job.taps == 3) return runTaps<3, true>(job);
    if (job.taps == 2) return runTaps<2, true>(job);
    return runTaps<1, true>(job);
  }
  if (job.taps == 3) return runTaps<3, false>(job);
  if (job.taps == 2) return runTaps<2, false>(job);
  runTaps<1, false>(job);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
