#pragma once
// One channel of every group of an interleaved block (StagedLayout::
// laneGroups G = 2 or 4): the G adjacent floats at p, repeated over the 16
// lanes, so lane l gets the value of its group l % G. Static inline: only
// AVX-512 files include it.

#include <immintrin.h>

#include <cstring>

namespace aclcpu {
namespace kernels {
namespace blocked {

template <int G>
static inline __m512 groupBroadcast512(const float* p) {
  if (G == 2) {
    double pair;
    std::memcpy(&pair, p, sizeof pair);
    return _mm512_castpd_ps(_mm512_set1_pd(pair));
  }
  return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
