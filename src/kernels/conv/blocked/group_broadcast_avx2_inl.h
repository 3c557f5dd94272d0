#pragma once
// The AVX2 form of group_broadcast_avx512_inl.h: G = 2 or 4 adjacent floats
// over 8 lanes (8 % G == 0, so both halves of a block take the same vector).

#include <immintrin.h>

#include <cstring>

namespace aclcpu {
namespace kernels {
namespace blocked {

template <int G>
static inline __m256 groupBroadcast256(const float* p) {
  if (G == 2) {
    double pair;
    std::memcpy(&pair, p, sizeof pair);
    return _mm256_castpd_ps(_mm256_set1_pd(pair));
  }
  return _mm256_broadcast_ps(reinterpret_cast<const __m128*>(p));
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
