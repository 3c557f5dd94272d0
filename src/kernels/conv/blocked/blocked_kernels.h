#pragma once
// The micro-kernels and staging loops of the blocked direct convolution, per
// ISA (defined in *_avx512.cpp / *_avx2.cpp files; call only when the CPU
// has that ISA). Every kernel's arithmetic on an output element is the
// same sequence whatever tile, segment or thread computes it.

#include <cstdint>
#include <type_traits>

#include "kernels/conv/blocked/blocked_plan.h"
#include "kernels/conv/blocked/row_tiles_inl.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// One row segment of a row pass:
//   out[t][b * 16 + o] = sum over taps k, in order, of sum over c in 0..15 of
//     in[taps[k] + t * inStep * 16 + c] * weights[k * tapStride + c * nb * 16 + b * 16 + o]
// stored (not accumulated) at out + t * outColStep + b * outBlockStride. The
// kernel may keep partial sums of a slice of the taps there meanwhile.
// Depthwise: out[t][o] = sum over k of in[taps[k] + t * inStep * 16 + o] *
// weights[k * tapStride + o].
// Optional facts about a row job (taps > 0): its taps run in runs of `taps`
// W taps (tap k is W tap k % taps), and W tap j's products are nonzero only
// for the positions [lo[j], hi[j]) (the others read padding columns, zeros
// in the staged input), so a kernel may leave the others out.
struct ColumnRanges {
  static constexpr int kMaxTaps = 16;
  int taps = 0;
  int16_t lo[kMaxTaps] = {};
  int16_t hi[kMaxTaps] = {};
};
// The item's ranges, where the plan describes them (rowItemAt).
void describeColumns(const RowItem& item, ColumnRanges* ranges);

// The positions of a register tile a W tap computes: those whose input
// column is inside, where they are all but the first and / or the last (the
// common pad-1 edges); else every position (the others' products are
// zeros), or none.
enum ColumnClass : uint8_t { kAllColumns, kSkipFirst, kSkipLast, kSkipBoth, kSkipTap };
// The class of each W tap for the tile [pos, pos + wt); false when every tap
// computes every position. Static (the ISA files each keep their own copy).
static inline bool columnClasses(const ColumnRanges& r, int64_t pos, int64_t wt, uint8_t* cls) {
  bool any = false;
  for (int j = 0; j < r.taps; ++j) {
    const int64_t lead = r.lo[j] > pos ? r.lo[j] - pos : 0;
    const int64_t trail = pos + wt > r.hi[j] ? pos + wt - r.hi[j] : 0;
    uint8_t c = kAllColumns;
    if (lead + trail >= wt)
      c = kSkipTap;
    else if (lead <= 1 && trail <= 1)
      c = static_cast<uint8_t>(lead | trail << 1);
    cls[j] = c;
    any = any || c != kAllColumns;
  }
  return any;
}

// Runs a tile's tap over the positions its class leaves: tap(L, T) with
// std::integral_constant first-skip and last-skip counts (kSkipTap runs
// nothing; columnClasses gives kSkipBoth only to tiles of 3 or more). Static
// (the ISA files each keep their own copy).
template <int WT, typename Tap>
static inline void runColumnClass(int cls, Tap&& tap) {
  using Zero = std::integral_constant<int, 0>;
  using One = std::integral_constant<int, 1>;
  if constexpr (WT >= 2) {
    if (cls == kSkipFirst) return tap(One{}, Zero{});
    if (cls == kSkipLast) return tap(Zero{}, One{});
  }
  if constexpr (WT >= 3) {
    if (cls == kSkipBoth) return tap(One{}, One{});
  }
  if (cls != kSkipTap) tap(Zero{}, Zero{});
}

struct RowJob {
  const float* in = nullptr;
  const int64_t* taps = nullptr;
  int64_t tapCount = 0;
  const float* weights = nullptr;
  int64_t tapStride = 0;  // floats
  float* out = nullptr;
  int64_t outColStep = 0;
  int64_t outBlockStride = 0;
  int64_t count = 0;  // positions
  int nb = 1;         // output blocks: 1, 2 or 4
  int inStep = 1;     // 1 or 2
  // 2 or 4: one block of interleaved groups (StagedLayout::laneGroups), nb
  // 1, and per tap 16 / laneGroups weight vectors:
  //   out[t][l] = sum over k, then j in 0..16/G-1, of
  //     in[taps[k] + t * inStep * 16 + j * G + l % G] * weights[k * tapStride + j * 16 + l]
  int laneGroups = 1;
  ColumnRanges cols;
  bool tapSlices = true;  // forEachTapSlice cuts the taps into slices (rowTapSlices())
};
// With job.tapSlices, the taps of a row of `tiles` register tiles run in
// slices whose weights fit in L1 next to the row's inputs and outputs (4096
// floats, a third of L1), each slice over every tile before the next, the
// partial sums waiting in the staged output: the weights are then read from
// L2 once per row instead of once per tile, and each output still sums its
// taps in order. Slices take at least 8 taps: tiles of four blocks (1024
// floats per tap) measured slower with 2 or 4 taps per slice than with 8
// (RN50 3x3/2 128ch forward, 1 thread: 15.5 / 12.6 against 10.5 ms; 16 taps
// 10.5). Calls slice(k0, taps, accumulate) for taps [k0, k0 + taps); one
// tile, or a job without tapSlices, takes every tap in one slice. Static
// (the ISA files each keep their own copy).
template <typename Slice>
static inline void forEachTapSlice(const RowJob& job, int64_t tiles, Slice&& slice) {
  constexpr int64_t kSliceWeightFloats = 4096;
  constexpr int64_t kMinSliceTaps = 8;
  int64_t length = tiles == 1 || !job.tapSlices ? job.tapCount : kSliceWeightFloats / job.tapStride;
  if (length < kMinSliceTaps) length = kMinSliceTaps;
  for (int64_t k0 = 0; k0 == 0 || k0 < job.tapCount; k0 += length)
    slice(k0, job.tapCount - k0 < length ? job.tapCount - k0 : length, k0 > 0);
}

void f32_conv_rows_nb16_avx512(const RowJob& job);
void f32_dwconv_rows_nb16_avx512(const RowJob& job);
void f32_conv_rows_nb16_avx2(const RowJob& job);
void f32_dwconv_rows_nb16_avx2(const RowJob& job);

// Weight gradient of one (output block, reduction block, tap) over a block
// of rows:
//   dw[c * 16 + o] (+)= sum over rows r, then columns j, of
//     x[r * xRowStride + j * xColStep + c] * dy[r * dyRowStride + j * 16 + o]
// Depthwise: dw[o] (+)= sum of x[... + o] * dy[... + o].
struct WeightJob {
  const float* x = nullptr;
  int64_t xColStep = 0;
  int64_t xRowStride = 0;
  const float* dy = nullptr;
  int64_t dyRowStride = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  float* dw = nullptr;
  bool accumulate = false;
  // 2 or 4: x and dy staged with interleaved groups (StagedLayout::
  // laneGroups G), and 16 / G vectors of dw instead of 16:
  //   dw[j * 16 + l] (+)= sum of x[... + j * G + l % G] * dy[... + l]
  int laneGroups = 1;
};
void f32_convbwdw_16x16_avx512(const WeightJob& job);

// Weight gradient of a run of `taps` (1 to 3) taps along W whose x columns
// are `tapShift` columns apart, over a block of rows: for t < taps,
//   dw[t][c * 16 + o] (+)= sum over rows r, then columns j in [lo[t], hi[t]), of
//     x[r * xRowStride + (j + t * tapShift) * xColStep + c * xLaneStride]
//       * dy[r * dyRowStride + j * 16 + o]
// i.e. one WeightJob per tap, with the same sums in the same order (the same
// bits), sharing each x broadcast across the taps. Only the x columns some
// tap's [lo, hi) names are read, so x may be the caller's dense tensor
// (xLaneStride its plane size), `x` itself then pointing before a row's
// first element where the padding would be.
struct WeightTapsJob {
  static constexpr int kMaxTaps = 3;
  const float* x = nullptr;  // tap 0, column 0
  int64_t xColStep = 0;
  int64_t xRowStride = 0;
  int64_t xLaneStride = 1;    // floats between reduction channels: 1 staged
  const float* dy = nullptr;  // column 0
  int64_t dyRowStride = 0;
  int64_t rows = 0;
  int taps = 0;
  int64_t tapShift = 0;
  int64_t lo[kMaxTaps] = {}, hi[kMaxTaps] = {};
  float* dw[kMaxTaps] = {};
  bool accumulate = false;
};
void f32_convbwdw_taps3x8x16_avx512(const WeightTapsJob& job);
void f32_dwconvbwdw_16_avx512(const WeightJob& job);
void f32_convbwdw_16x16_avx2(const WeightJob& job);
void f32_dwconvbwdw_16_avx2(const WeightJob& job);

// Staging between dense fp32 [N, C, D, H, W] tensors and StagedLayout
// buffers. Staged rows are numbered (image, block, q0, q1) row-major; each
// call handles rows [begin, end).
void stageRows_avx512(const float* dense, const StagedLayout& layout, int64_t begin, int64_t end,
                      float* staged);
// The same, each value rounded to HF32 as it is read (the caller's raw
// fp32 inputs, ConvShape::inputRounding).
void stageHf32Rows_avx512(const float* dense, const StagedLayout& layout, int64_t begin,
                          int64_t end, float* staged);
// Writes the dense elements that staged rows [begin, end) map to, plus
// bias[channel] when `bias` is not null (the output store of a forward
// pass). Dense elements no staged position maps to are left alone.
void unstageRows_avx512(const float* staged, const StagedLayout& layout, int64_t begin, int64_t end,
                        float* dense, const float* bias);
// The same two on dense tensors of 16-bit words of `type` (BF16 or F16; the
// caller's tensors): staged as fp32, each result (plus bias) rounded to
// `type` once, nearest even.
void stageWordRows_avx512(const uint16_t* dense, ElementType type, const StagedLayout& layout,
                          int64_t begin, int64_t end, float* staged);
void unstageWordRows_avx512(const float* staged, const StagedLayout& layout, int64_t begin,
                            int64_t end, uint16_t* dense, ElementType type, const float* bias);
// The output store of a pass that keeps a row segment's sums in a small
// local buffer: the dense elements of staged positions [q, q + n) of staged
// row `row` (numbered as above), read from src ([position][16] floats).
void unstageSegment_avx512(const float* src, const StagedLayout& layout, int64_t row, int64_t q,
                           int64_t n, float* dense, const float* bias);
void unstageWordSegment_avx512(const float* src, const StagedLayout& layout, int64_t row, int64_t q,
                               int64_t n, uint16_t* dense, ElementType type, const float* bias);
void stageRows_avx2(const float* dense, const StagedLayout& layout, int64_t begin, int64_t end,
                    float* staged);
void unstageRows_avx2(const float* staged, const StagedLayout& layout, int64_t begin, int64_t end,
                      float* dense, const float* bias);

// One gather step of the row passes' weight packing: for c < 16, t < taps
// and o < width (a multiple of 16),
//   buffer[(c * sliceTaps + t) * width + o] =
//       outGroup[o] == redGroup[c] >= 0 ? w[outOffset[o] + redOffset[c] + t] : 0
// (the element offsets as int32: the caller checks they fit).
struct WeightSliceJob {
  const float* w = nullptr;
  const int32_t* outOffset = nullptr;
  const int32_t* outGroup = nullptr;  // -1: a padding channel
  int width = 0;
  const int64_t* redOffset = nullptr;
  const int64_t* redGroup = nullptr;  // -1: a padding channel
  int64_t taps = 0, sliceTaps = 0;
  float* buffer = nullptr;
  int64_t wFloats = 0;  // w's elements: no read reaches past them
  // Elements from each weight this job reads to the one the next job reads
  // in its place (0: unknown), to be fetched early.
  int64_t nextJobStep = 0;
  // Non-null: where tap t's packed block begins (taps entries, the whole
  // kernel in the slice); the transposing paths then store each (channel c,
  // tap t) row of `width` floats straight to tapDst[t] + c * width instead
  // of the buffer.
  float* const* tapDst = nullptr;
};
// True when it wrote through job.tapDst (the buffer is then not written).
bool gatherWeightSlice_avx512(const WeightSliceJob& job);

// Up to 16 taps of 16 x 16 weight-gradient sums, sums[t * tapStride + i *
// 16 + o] (reduction channel i, output channel o), stored as
//   dw[o * rowStride + i * channelStride + t]   for t < taps, i < ins, o < outs.
struct WeightTapTiles {
  const float* sums = nullptr;
  int64_t tapStride = 256;
  int taps = 0, ins = 16, outs = 16;
  float* dw = nullptr;
  int64_t rowStride = 0, channelStride = 0;
};
void f32_weight_taps_store_16x16_avx512(const WeightTapTiles& j);
// The portable loop (blocked_conv.cpp).
void storeWeightTaps(const WeightTapTiles& j);

// One ISA's set of the functions above; the drivers take one of these.
struct BlockedKernels {
  void (*rows)(const RowJob&);
  void (*depthwiseRows)(const RowJob&);
  void (*weightGrad)(const WeightJob&);
  void (*depthwiseWeightGrad)(const WeightJob&);
  // Runs of taps along W (dense, ungrouped blocks); null: one weightGrad per tap.
  void (*weightGradTaps)(const WeightTapsJob&);
  // null: the portable loop.
  bool (*gatherWeightSlice)(const WeightSliceJob&);
  void (*stageRows)(const float*, const StagedLayout&, int64_t, int64_t, float*);
  void (*unstageRows)(const float*, const StagedLayout&, int64_t, int64_t, float*, const float*);
  // stageRows with HF32 rounding; null where the ISA has none (its registry
  // entries do not take raw HF32 inputs).
  void (*stageHf32Rows)(const float*, const StagedLayout&, int64_t, int64_t, float*);
  void (*storeWeightTaps)(const WeightTapTiles&);
};

constexpr BlockedKernels kAvx512Kernels{f32_conv_rows_nb16_avx512,
                                        f32_dwconv_rows_nb16_avx512,
                                        f32_convbwdw_16x16_avx512,
                                        f32_dwconvbwdw_16_avx512,
                                        f32_convbwdw_taps3x8x16_avx512,
                                        gatherWeightSlice_avx512,
                                        stageRows_avx512,
                                        unstageRows_avx512,
                                        stageHf32Rows_avx512,
                                        f32_weight_taps_store_16x16_avx512};
constexpr BlockedKernels kAvx2Kernels{f32_conv_rows_nb16_avx2,
                                      f32_dwconv_rows_nb16_avx2,
                                      f32_convbwdw_16x16_avx2,
                                      f32_dwconvbwdw_16_avx2,
                                      nullptr,
                                      nullptr,
                                      stageRows_avx2,
                                      unstageRows_avx2,
                                      nullptr,
                                      storeWeightTaps};

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
