#pragma once
// VDPBF16PS with a broadcast word, for files compiled with AVX512-BF16:
// from memory in each instruction (embedded broadcast) or from a register
// broadcast once. GCC keeps a broadcast that feeds two instructions in a
// register; the memory form measured ~5% faster on Zen 4 (bf16 3x3
// forward, 1 thread: 10.7 -> 10.2 ms, 256ch 14x14 10.1 -> 9.6, medians of
// 7), the register form 6-12% faster on Zen 5 (bf16WordsBroadcastFromMemory
// in cpu_info.h). Static inline: every including file keeps its own copy.

#include <immintrin.h>

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace simd {

// acc[i] += w.bf16[2i] * lo(word) + w.bf16[2i + 1] * hi(word), where word
// is the 32-bit pair of bf16 values at `word` (any alignment).
static inline void dotBroadcastWord(__m512& acc, const void* word, __m512bh w) {
  asm("vdpbf16ps %1%{1to16%}, %2, %0"
      : "+v"(acc)
      : "m"(*static_cast<const uint32_t*>(word)), "v"(w));
}

// The word at `word` (any alignment) in every 32-bit lane.
static inline __m512bh broadcastWord(const void* word) {
  uint32_t value;
  __builtin_memcpy(&value, word, sizeof(value));
  return reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(value)));
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
