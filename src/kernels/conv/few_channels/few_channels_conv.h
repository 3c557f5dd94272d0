#pragma once
// The forward of a 1D/2D convolution with very few input channels (an RGB
// or audio stem: 7x7/2 3 -> 64): there are no channel blocks to reduce over,
// so the blocked pass would stage 13 zero channels of every 16, and im2col
// spends a third of its time gathering columns. Here x is copied once per
// (image, channel) plane, zero-padded and split into its stride phases along
// W (phase r holds padded columns r, r + stride, ...), so that every tap
// reads 16 consecutive output positions as one contiguous vector; a
// register-tiled micro-kernel sums all (channel, tap) steps for 6 output
// channels x 64 positions of a row and stores them straight into y, with
// the bias. AVX-512 only.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {

bool acceptsForward(const ConvShape& shape);
uint64_t forwardScratchBytes(const ConvShape& shape);
// y = conv(x, w) (+ bias[o]); shape.inputRounding HF32 rounds x as it is
// copied.
void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias = nullptr);

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
};
void f32_conv_fwd_rows_c6w64_avx512(const FewChannelRowJob& job);

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
