// The AVX512-BF16 row micro-kernel: the AMX row kernel's job
// (blocked_bf16_kernels.h) on vector registers. A register tile of WT
// positions x nb 16-channel blocks; each reduction word of a position (two
// bf16 channels) is broadcast to the 16 lanes and met by VDPBF16PS with the
// word row of the weights, 16 output channels of two bf16 weights each.
// Products of bf16 values are exact in fp32; each instruction adds a
// position's two products to the lane's fp32 sum. Only called after a cpuid
// check. Keep this file free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include <utility>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/row_tiles_inl.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels/simd/dpbf16_avx512bf16.h"
#include "kernels/simd/reduction_unroll.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

constexpr int kWordUnroll = simd::kReductionUnroll;

using TileFn = void (*)(const Bf16RowJob& j, int64_t t0);

// kFromMemory: each instruction takes the input word from memory
// (embedded broadcast), else the word is broadcast into a register once for
// the NB blocks (simd/dpbf16_avx512bf16.h).
template <int WT, int NB, int IS, bool kFromMemory>
void denseTile(const Bf16RowJob& j, int64_t t0) {
  const uint32_t* in = j.in + t0 * IS * 16;
  float* out = j.out + t0 * j.outColStep;
  __m512 acc[WT][NB];
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) {
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b)
      acc[t][b] = j.accumulate ? _mm512_loadu_ps(out + t * j.outColStep + b * j.outBlockStride)
                               : _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < j.tapCount; ++k) {
    const uint32_t* src = in + j.taps[k];
    const uint32_t* wk = j.weights + k * j.tapStride;
#pragma GCC unroll kWordUnroll
    for (int u = 0; u < 16; ++u) {
      __m512bh wv[NB];
#pragma GCC unroll 2
      for (int b = 0; b < NB; ++b)
        wv[b] = reinterpret_cast<__m512bh>(_mm512_loadu_si512(wk + b * 256 + u * 16));
#pragma GCC unroll 32
      for (int t = 0; t < WT; ++t) {
        if (kFromMemory) {
#pragma GCC unroll 2
          for (int b = 0; b < NB; ++b)
            simd::dotBroadcastWord(acc[t][b], src + t * IS * 16 + u, wv[b]);
        } else {
          const __m512bh word = simd::broadcastWord(src + t * IS * 16 + u);
#pragma GCC unroll 2
          for (int b = 0; b < NB; ++b) acc[t][b] = _mm512_dpbf16_ps(acc[t][b], word, wv[b]);
        }
      }
    }
  }
#pragma GCC unroll 32
  for (int t = 0; t < WT; ++t) {
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b)
      _mm512_storeu_ps(out + t * j.outColStep + b * j.outBlockStride, acc[t][b]);
  }
}

constexpr int kMaxWide2 = 14;  // nb = 2: 28 accumulators + 2 weight vectors
constexpr int kMaxWide1 = 28;  // nb = 1: 28 accumulators + 1 weight vector

// Function tables indexed by tile width - 1 (internal linkage: nothing
// compiled here with AVX-512 is shared with generic code).
template <int N>
struct Table {
  TileFn fn[N];
  TileFn operator[](int64_t i) const { return fn[i]; }
};
template <int NB, int IS, bool M, int... W>
constexpr Table<sizeof...(W)> denseTable(std::integer_sequence<int, W...>) {
  return {{&denseTile<W + 1, NB, IS, M>...}};
}

// The memory form (Zen 4) only for two output blocks, the usual tile: every
// form is another set of instantiations (it was dropped for one-block tiles
// when this file's UBSan build took 173 s; sanitizer builds now compile it
// without UBSan, CMakeLists.txt).
constexpr auto kDense2s1 = denseTable<2, 1, false>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense2s2 = denseTable<2, 2, false>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense2s1Memory =
    denseTable<2, 1, true>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense2s2Memory =
    denseTable<2, 2, true>(std::make_integer_sequence<int, kMaxWide2>{});
constexpr auto kDense1s1 = denseTable<1, 1, false>(std::make_integer_sequence<int, kMaxWide1>{});
constexpr auto kDense1s2 = denseTable<1, 2, false>(std::make_integer_sequence<int, kMaxWide1>{});

// Cuts `count` positions into tiles of at most `widest` (forEachRowTile), so
// no row ends in a sliver of one or two positions.
template <typename T>
void runRow(const Bf16RowJob& job, const T& table, int widest) {
  const int64_t tiles = (job.count + widest - 1) / widest;
  forEachRowTile(job.count, tiles, [&](int64_t pos, int64_t wt) { table[wt - 1](job, pos); });
}

}  // namespace

void bf16_conv_rows_nb16_avx512bf16(const Bf16RowJob& job) {
  const bool step1 = job.inStep == 1;
  if (job.nb != 2)
    runRow(job, step1 ? kDense1s1 : kDense1s2, kMaxWide1);
  else if (bf16WordsBroadcastFromMemory())
    runRow(job, step1 ? kDense2s1Memory : kDense2s2Memory, kMaxWide2);
  else
    runRow(job, step1 ? kDense2s1 : kDense2s2, kMaxWide2);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
