#pragma once
// 16 x 16 fp32 register transpose, for files compiled with AVX-512 only.
// Static so that every including file keeps its own copy: nothing compiled
// with AVX-512 is ever shared with generic code through the linker.

#include <immintrin.h>

namespace aclcpu {
namespace kernels {
namespace simd {

// r[i] holds row i of a 16 x 16 block; afterwards r[j] holds column j.
static inline void transpose16x16(__m512 r[16]) {
  __m512 a[16];
  for (int k = 0; k < 8; ++k) {
    a[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
    a[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
  }
  // b[4k + c], 128-bit lane L: rows 4k..4k+3 of column 4L + c.
  __m512 b[16];
  for (int k = 0; k < 4; ++k) {
    const __m512d lo0 = _mm512_castps_pd(a[4 * k]);
    const __m512d lo1 = _mm512_castps_pd(a[4 * k + 2]);
    const __m512d hi0 = _mm512_castps_pd(a[4 * k + 1]);
    const __m512d hi1 = _mm512_castps_pd(a[4 * k + 3]);
    b[4 * k] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
    b[4 * k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
    b[4 * k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
    b[4 * k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
  }
  // Column 4L + c gathers lane L of b[c], b[4 + c], b[8 + c], b[12 + c].
  for (int c = 0; c < 4; ++c) {
    const __m512 c0 = _mm512_shuffle_f32x4(b[c], b[4 + c], 0x44);
    const __m512 c1 = _mm512_shuffle_f32x4(b[c], b[4 + c], 0xEE);
    const __m512 c2 = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0x44);
    const __m512 c3 = _mm512_shuffle_f32x4(b[8 + c], b[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(c0, c2, 0x88);
    r[4 + c] = _mm512_shuffle_f32x4(c0, c2, 0xDD);
    r[8 + c] = _mm512_shuffle_f32x4(c1, c3, 0x88);
    r[12 + c] = _mm512_shuffle_f32x4(c1, c3, 0xDD);
  }
}

// 16 x 16 block of 16-bit words, rows packed in pairs: p[k] lane c holds
// the words of rows 2k (low half) and 2k + 1 (high half) of column c.
// Afterwards the low 256 bits of p[j] hold column j (rows 0..15 in order)
// and the high 256 bits column j + 4, for j in {0..3}; p[4 + j] holds
// columns 8 + j and 12 + j the same way. 32 shuffles where widening the
// words to a 16 x 16 fp32 transpose takes 64 and a narrowing per column.
static inline void transposeWordPairs8x16(__m512i p[8]) {
  __m512i t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(p[2 * i], p[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(p[2 * i], p[2 * i + 1]);
  }
  // u[j] (u[4 + j]), 128-bit lane L: rows 0..7 (8..15) of column 4L + j.
  for (int h = 0; h < 2; ++h) {
    u[4 * h] = _mm512_unpacklo_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 1] = _mm512_unpackhi_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 2] = _mm512_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
    u[4 * h + 3] = _mm512_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    const __m512i lanes01 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44);
    const __m512i lanes23 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xEE);
    p[j] = _mm512_shuffle_i32x4(lanes01, lanes01, 0xD8);
    p[4 + j] = _mm512_shuffle_i32x4(lanes23, lanes23, 0xD8);
  }
}

// Stores r[0..n) at dst, dst + stride, ... Unrolled with a test per row:
// a plain loop to a run-time count makes the compiler spill r to the stack
// and copy it with rep movs (measured: half of a staging pass).
static inline void storeRows16(float* dst, int64_t stride, const __m512 r[16], int64_t n) {
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j)
    if (j < n) _mm512_storeu_ps(dst + j * stride, r[j]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
