#pragma once
// Internal to the gemm module: the register-blocked micro-kernels and the
// cache-block sizes that go with each. Every kernel computes one mr x nr tile
// of C from packed operands:
//   packedA: kc steps of mr floats (A sliver, column p holds A[0..mr, p]),
//   packedB: kc steps of nr floats (B sliver),
//   tile = sum over p in order of packedA[p] * packedB[p] (from zero), then
//   C = addToC ? C + tile : tile, then, with rowBias (may be null),
//   C[i][j] = C[i][j] + rowBias[i]: the bias joins in the store instead of
//   in a second pass over C (which, reloading the tile just stored, took
//   13% of the RN50 1x1/2 256->512 forward's GEMM time even vectorised).
// Using the same operation sequence for every tile (ragged edges go through a
// full-size temporary) keeps every element's arithmetic independent of where
// the tile sits and of how C was split across threads.

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

// The final step above for one element of row `row` whose tile sum is `sum` (old:
// C's value before the store), in the portable code: the scalar kernel and
// the ragged-edge copy. static: no out-of-line copy compiled for an ISA can
// stand in for it (see the ISA files' note).
static inline float storedValue(float old, float sum, bool addToC, const float* rowBias,
                                int64_t row) {
  const float v = addToC ? old + sum : sum;
  return rowBias ? v + rowBias[row] : v;
}

using MicroKernelFn = void (*)(int64_t kc, const float* packedA, const float* packedB, float* c,
                               int64_t ldc, bool addToC, const float* rowBias);
// How a tile meets a row-major B (rows ldb floats apart) that the tiles
// pack themselves. packFrom not null: step p's nr floats are read at
// packFrom + p * ldb, all inside B, and written to packedB in the sliver
// layout as they are used (each rounded to HF32 first when roundHf32).
// Otherwise packedB is read as packed, and the fetchRows rows at fetchFrom
// (a share of the next sliver's) are prefetched. Either way the same
// products in the same order as the plain kernel.
struct BStream {
  const float* packFrom = nullptr;
  const float* fetchFrom = nullptr;
  int64_t ldb = 0;
  int64_t fetchRows = 0;
  bool roundHf32 = false;
};
using StreamingMicroKernelFn = void (*)(int64_t kc, const float* packedA, float* packedB, float* c,
                                        int64_t ldc, bool addToC, const float* rowBias,
                                        const BStream& stream);
// The tile's first `cols` (1 to nr - 1) columns, into C directly: the same
// products, order and final step as the kernel's for those columns.
using NarrowMicroKernelFn = void (*)(int64_t kc, const float* packedA, const float* packedB,
                                     float* c, int64_t ldc, bool addToC, const float* rowBias,
                                     int64_t cols);

// Packs a block of `lines` lines of `depth` elements into ceil(lines / slot)
// slivers of depth * slot floats: line l, step p is read from
// src[l * lineStride + p * stepStride] and written to
// dst[(l / slot) * depth * slot + p * slot + l % slot]; the missing lines of a
// ragged last sliver are written as zero.
using PackBlockFn = void (*)(const float* src, int64_t lineStride, int64_t stepStride,
                             int64_t lines, int64_t depth, int slot, float* dst);

struct GemmKernel {
  const char* name;
  int mr;
  int nr;
  int64_t kc;  // K block: fixed per kernel, never derived from threads or shapes
  int64_t mc;  // multiple of mr
  int64_t nc;  // multiple of nr
  MicroKernelFn run;
  // Optional (null: B blocks are always packed before use).
  StreamingMicroKernelFn runStreamingB;
  PackBlockFn pack;
  PackBlockFn packHf32;  // the same, each value rounded to HF32 (MatrixView::roundHf32)
  // Rounds `count` packed floats to HF32 in place (a PackedBSource's blocks).
  void (*roundHf32)(float* data, int64_t count);
  // Optional (null: a column edge computes a whole tile into a temporary).
  NarrowMicroKernelFn runNarrow;
};

// Defined in ISA-specific files; call only after the matching cpuid check.
void microKernelScalar(int64_t kc, const float* packedA, const float* packedB, float* c,
                       int64_t ldc, bool addToC, const float* rowBias);
void microKernelAvx2(int64_t kc, const float* packedA, const float* packedB, float* c, int64_t ldc,
                     bool addToC, const float* rowBias);
void microKernelAvx512(int64_t kc, const float* packedA, const float* packedB, float* c,
                       int64_t ldc, bool addToC, const float* rowBias);
void microKernelStreamingBAvx512(int64_t kc, const float* packedA, float* packedB, float* c,
                                 int64_t ldc, bool addToC, const float* rowBias,
                                 const BStream& stream);
void microKernelNarrowAvx512(int64_t kc, const float* packedA, const float* packedB, float* c,
                             int64_t ldc, bool addToC, const float* rowBias, int64_t cols);

void packBlockPortable(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                       int64_t depth, int slot, float* dst);
void packBlockAvx512(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                     int64_t depth, int slot, float* dst);
void packBlockHf32Portable(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                           int64_t depth, int slot, float* dst);
void packBlockHf32Avx512(const float* src, int64_t lineStride, int64_t stepStride, int64_t lines,
                         int64_t depth, int slot, float* dst);
void roundHf32Portable(float* data, int64_t count);
void roundHf32Avx512(float* data, int64_t count);

// Tile shapes of the kernels above (the single source of truth for mr/nr).
constexpr int kScalarMr = 4;
constexpr int kScalarNr = 16;
constexpr int kAvx2Mr = 6;
constexpr int kAvx2Nr = 16;
constexpr int kAvx512Mr = 8;
constexpr int kAvx512Nr = 48;

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
