#pragma once
// The forward and weight gradient of a 1D/2D convolution with very few input
// channels (an RGB or audio stem: 7x7/2 3 -> 64): there are no channel blocks
// to reduce over, so the blocked pass would stage 13 zero channels of every 16,
// and im2col spends a third of its time gathering columns. Here x is copied
// once per (image, channel) plane, zero-padded and split into its stride phases
// along W (phase r holds padded columns r, r + stride, ...), so that every tap
// reads 16 consecutive output positions as one contiguous vector; a register-
// tiled micro-kernel sums all (channel, tap) steps for 6 output channels x 64
// positions of a row and stores them straight into y, with the bias (the weight
// gradient: see backwardWeight below). AVX-512 only.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {

bool acceptsForward(const ConvShape& shape);
uint64_t forwardScratchBytes(const ConvShape& shape);
// y = conv(x, w) (+ bias[o]); shape.inputRounding HF32 rounds x as it is
// copied. The words form: x and y as the caller's dense words of type
// shape.io (their values the operands), each y value rounded once.
void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias = nullptr);
bool forwardWords(const ConvShape& shape, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y, void* scratch);

// The micro-kernel's output channels per register tile: the weights are
// packed in groups of that many channels, [group][tap][channel of group].
constexpr int64_t kChannelGroup = 6;

// One output row for channels [channelBegin, channelBegin + channelCount)
// (channelBegin a multiple of kChannelGroup):
//   out[(o - channelBegin) * outChannelStride + p] (+ bias[o] when bias is
//   not null) = sum over taps k, in order, of x[taps[k] + p] *
//   weights[(o / kChannelGroup * tapCount + k) * kChannelGroup + o % kChannelGroup]
// for p < count. Reads x up to 15 positions past count - 1 (the results
// there are dropped; the caller's buffer must hold them).
struct FewChannelRowJob {
  const float* x = nullptr;
  const int64_t* taps = nullptr;
  int64_t tapCount = 0;
  const float* weights = nullptr;
  int64_t outChannels = 0;
  int64_t channelBegin = 0, channelCount = 0;
  float* out = nullptr;
  int64_t outChannelStride = 0;
  int64_t count = 0;
  const float* bias = nullptr;
  // Whole 64-byte aligned vectors of out (of words: pairs of vectors)
  // written with streaming stores (fenced before the call returns).
  bool stream = false;
  // Not null: the row stored instead as words of outWordType (BF16 or F16,
  // each value rounded once) at the same offsets from outWords.
  uint16_t* outWords = nullptr;
  ElementType outWordType = ElementType::BF16;
};
void f32_conv_fwd_rows_c6w64_avx512(const FewChannelRowJob& job);

// The weight gradient of the same layers, from the same padded stride
// phases: dw[o][c][i][j] is a dot product of each output row of dy[o]
// (contiguous) with the phase row tap (c, i, j) reads (contiguous too), so
// the sums run along the rows 16 positions per vector, with no columns
// formed and no transposes (the im2col GEMM spent most of the wav2vec
// stem's weight gradient packing dy transposed). Every (o, tap) sum is 16
// lane sums over the rows in order, then its lanes in a fixed tree:
// bit-identical for any thread count (each output channel's sums are one
// thread's). shape.inputRounding HF32 rounds x as it is copied and dy as
// it is loaded.
bool acceptsBackwardWeight(const ConvShape& shape);
uint64_t backwardWeightScratchBytes(const ConvShape& shape);
// With dySums, also dySums[o] = the sum of dy[n, o, ...] with channelSums'
// bits (convert.h), summed as the pass reads dy. The words form: x and dy
// as the caller's dense words of type shape.io (their values the operands).
void backwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch, double* dySums = nullptr);
bool backwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch, double* dySums = nullptr);

// The data gradient of the same layers: dy's rows are added, weighted,
// into padded stride phases of dx laid out as the forward's padded x (each
// tap's products for a dy row land in one contiguous phase row), which are
// then added into dx (+ bias). One work item per (image, input channel),
// whose phase planes it alone writes: every dx element is one fixed-order
// sum over (output row, tap, output channel), whatever the thread count.
// shape.inputRounding HF32 rounds dy as it is copied.
bool acceptsBackwardData(const ConvShape& shape);
uint64_t backwardDataScratchBytes(const ConvShape& shape);
void backwardData(const ConvShape& shape, const float* dy, const float* w, float* dx, void* scratch,
                  const float* bias = nullptr);
// The words form: dy and dx as the caller's dense words of type shape.io
// (their values the operands), each dx value rounded once.
bool backwardDataWords(const ConvShape& shape, const uint16_t* dy, const float* w,
                       const float* bias, uint16_t* dx, void* scratch);

// Tiles of the weight micro-kernel: output channels x taps.
constexpr int kWeightChannels = 4;
constexpr int kWeightTaps = 6;

// Adds into sums[o * sumChannelStride + t * 16 + lane] (o < channels, t <
// tapCount), for each row r < rows in order and each position p < count in
// order, x[r * xRowStep + taps[t] + p] * dy[o * dyChannelStride + r *
// dyRowStep + p] to lane p % 16. Reads x in whole vectors up to 15
// positions past count - 1 (the products there are left out).
struct FewChannelWeightJob {
  const float* x = nullptr;
  const int64_t* taps = nullptr;
  int tapCount = 0;  // 1 to kWeightTaps
  int64_t xRowStep = 0;
  const void* dy = nullptr;  // elements of dyType
  ElementType dyType = ElementType::F32;
  bool roundDyHf32 = false;  // fp32 dy rounded to HF32 as it is loaded
  int channels = 0;          // 1 to kWeightChannels
  int64_t dyChannelStride = 0, dyRowStep = 0;
  int64_t rows = 0, count = 0;
  float* sums = nullptr;
  int64_t sumChannelStride = 0;
};
void f32_conv_bwdw_rows_o4t6_avx512(const FewChannelWeightJob& job);

// Adds into dx[taps[t] + p], for t < tapCount (1 to kWeightTaps) and p <
// count (1 to 64), the sum over output channels o in order of
// dy[o * dyChannelStride + p] * weights[o * kWeightTaps + t]; reads whole
// vectors of nothing past count.
struct FewChannelDataJob {
  const float* dy = nullptr;
  int64_t dyChannelStride = 0, outChannels = 0;
  const float* weights = nullptr;
  int tapCount = 0;
  float* dx = nullptr;
  const int64_t* taps = nullptr;
  int64_t count = 0;
};
void f32_conv_bwdd_rows_t6w64_avx512(const FewChannelDataJob& job);

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
