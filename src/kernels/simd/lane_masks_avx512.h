#pragma once
// The mask of the first lanes of a 16-lane vector, for the tails of masked
// loads and stores. For files compiled with AVX-512 only; static for the
// reason given in transpose_avx512.h.

#include <immintrin.h>

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace simd {

// Lanes [0, count): none for count <= 0, all 16 for count >= 16.
static inline __mmask16 firstLanes(int64_t count) {
  if (count <= 0) return 0;
  return count >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : static_cast<__mmask16>((1u << static_cast<unsigned>(count)) - 1u);
}

// The first `count` floats at p, the other lanes zero. A whole vector is a
// plain load: masked loads that cross a cache line are several times slower
// on Zen 5 (the HF32 depthwise band copies ran 1.6x longer).
static inline __m512 loadFirstLanes(const float* p, int64_t count) {
  return count >= 16 ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(firstLanes(count), p);
}

// fn(mask of the first `count` lanes) for a chunk of at most 16, with a
// constant full mask for a whole one: with fn inlined (always_inline), its
// masked loads then compile to plain ones (see loadFirstLanes).
template <typename Fn>
static inline __attribute__((always_inline)) void withFirstLanes(int64_t count, Fn&& fn) {
  if (count >= 16) {
    fn(static_cast<__mmask16>(0xFFFF));
  } else {
    fn(firstLanes(count));
  }
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
