#pragma once
// The bf16 micro-kernel and staging of the blocked direct convolution
// (defined in *_amx.cpp / *_avx512.cpp files; call only when the CPU has
// that ISA). Staged operands use the fp32 layouts of blocked_plan.h with
// every 4-byte element a word of two bf16 values (bf16_pairs_inl.h), so one
// 16-element block holds 32 reduction channels (Pairs) or 8 (HiLo).

#include <cstdint>

#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/blocked/blocked_plan.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// One row segment of a row pass:
//   out[t][b * 16 + o] = sum over taps k, in order, of the tile dot product
//     of words in[taps[k] + t * inStep * 16 + u] (u = 0..15) with
//     weights[k * tapStride + b * 256 + u * 16 + o]
// stored (not accumulated) at out + t * outColStep + b * outBlockStride.
// Reads up to 15 * inStep positions past the last one; their results are
// dropped.
struct Bf16RowJob {
  const uint32_t* in = nullptr;
  const int64_t* taps = nullptr;
  int64_t tapCount = 0;
  const uint32_t* weights = nullptr;
  int64_t tapStride = 0;  // words
  float* out = nullptr;
  int64_t outColStep = 0;
  int64_t outBlockStride = 0;
  int64_t count = 0;  // positions
  int nb = 1;         // output blocks: 1 or 2
  int inStep = 1;     // 1 or 2
};
void bf16_conv_rows_m16n16_amx(const Bf16RowJob& job);

// Stages rows [begin, end) of `l`, whose channels are words, from the
// dense fp32 [N, denseChannels, D, H, W] tensor. False when a value is
// bf16Unsafe (the words are then still written).
bool stageBf16Rows_avx512(const float* dense, int64_t denseChannels, PairKind kind,
                          const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
