#pragma once
// Copying a finished block of results to the caller's memory with
// non-temporal stores, for passes whose output is far larger than the
// caches and is all they write: ordinary stores first read each line of the
// destination (read for ownership), so a pass that reads one tensor and
// writes another moves three tensors through memory instead of two. On the
// Intel Xeon VM (AMX) a loop reading and writing 58 MB ran 9.8 ms with
// ordinary stores and 5.0 ms with streaming ones. For files compiled with
// AVX-512 (and AVX512BW) only; static for the reason given in
// transpose_avx512.h.

#include <immintrin.h>

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace simd {

// The first `count` bytes (0..63) of a 64-byte chunk.
static inline __mmask64 firstBytes(int64_t count) {
  if (count <= 0) return 0;
  return count >= 64 ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
}

// dst[0, bytes) = src[0, bytes): the 64-byte aligned lines of dst with
// streaming stores, the partial lines at either end with ordinary masked
// ones (a streaming store writes whole lines). The caller fences
// (streamFence) before anything else may read dst.
static inline void streamCopy(const void* src, void* dst, int64_t bytes) {
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  const int64_t misalign = static_cast<int64_t>(reinterpret_cast<uintptr_t>(to) & 63);
  int64_t head = misalign ? 64 - misalign : 0;
  if (head > bytes) head = bytes;
  if (head > 0) {
    const __mmask64 m = firstBytes(head);
    _mm512_mask_storeu_epi8(to, m, _mm512_maskz_loadu_epi8(m, from));
  }
  int64_t i = head;
  for (; i + 64 <= bytes; i += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(to + i), _mm512_loadu_si512(from + i));
  if (i < bytes) {
    const __mmask64 m = firstBytes(bytes - i);
    _mm512_mask_storeu_epi8(to + i, m, _mm512_maskz_loadu_epi8(m, from + i));
  }
}

// Orders the streaming stores before the stores and loads after it (they
// are weakly ordered: another thread could otherwise see the lines late).
static inline void streamFence() { _mm_sfence(); }

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
