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

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
