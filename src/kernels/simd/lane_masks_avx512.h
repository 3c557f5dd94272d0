#pragma once
// The mask of the first lanes of a 16-lane vector, for the tails of masked
// loads and stores, and the even lanes of a 32-lane one. For files compiled with AVX-512 only;
// static for the reason given in transpose_avx512.h.

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

// Bit j of `mask` at bit 2j: the lanes of a 32-lane vector that hold the
// even elements of a step-2 run, 16 values spread over 32 (the odd lanes
// are left alone).
static inline __mmask32 evenLanes(__mmask16 mask) {
  uint32_t x = mask;
  x = (x | (x << 8)) & 0x00FF00FFu;
  x = (x | (x << 4)) & 0x0F0F0F0Fu;
  x = (x | (x << 2)) & 0x33333333u;
  x = (x | (x << 1)) & 0x55555555u;
  return static_cast<__mmask32>(x);
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
