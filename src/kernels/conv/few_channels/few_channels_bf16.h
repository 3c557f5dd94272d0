#pragma once
// The forward of the few-channel layers (few_channels_conv.h) on AMX tiles,
// for bf16 operands. The blocked bf16 pass would make one tile multiply per
// tap over a 32-channel block holding 3 real channels (RN50's stem: 49 per
// output tile, 3/32 of each useful); here x is staged once per image as rows
// of interleaved channels, word q * cpad + c holding padded column q of
// channel c (zero for the channels cpad adds), so that what one output
// position reads along a kernel row, every (kernel column, channel) pair, is
// kw * cpad consecutive words: one row of an activation tile, whose rows step
// stride * cpad words from position to position. One multiply per kernel row
// then covers all its taps (RN50's stem: 7 multiplies of 28-word rows per
// output tile).

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {

// Shapes the few-channel forward takes (16 taps or more) with unit W
// dilation and bf16 operands, or fp16 / HF32 operands, each of which is
// exactly a bf16 hi + lo: x staged as (hi, lo) word pairs, the weights
// packed twice, (hi, lo) and (lo, hi), so that two tile products add up the
// four exact partial products of every multiply. A kernel row's run longer
// than a tile row (32 words) is read as up to four tile rows 32 words apart,
// with zero weights past the run (the words there are staged x values,
// never a NaN or infinity: those send the pass to the exact one).
bool acceptsTileForward(const ConvShape& shape);
uint64_t tileForwardScratchBytes(const ConvShape& shape);
// AMX only. A bf16Unsafe operand (blocked_bf16: subnormal-prone or not
// finite) sends the fp32 run to the exact few-channel pass, and makes the
// words run return false (y incomplete).
void tileForward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
                 const float* bias = nullptr);
bool tileForwardWords(const ConvShape& shape, const uint16_t* x, const float* w, const float* bias,
                      uint16_t* y, void* scratch);

// One output row: for positions p < count and output channels o <
// outChannels,
//   out[o * outChannelStride + p] = (bias[o] when not null) + sum over kernel
//     rows i, chunks h < chunks, weight variants v < variants and words k <
//     2 * pairs of x[p * positionStep + i * kernelRowStep + 32 * h + k] *
//     (word k % 2 of weights[((((o / 16 * kernelRows + i) * chunks + h) *
//     variants + v) * pairs + k / 2) * 16 + o % 16]);
// stored as fp32 (out) or rounded once to bf16 or (outHalf) half words
// (outWords). x must hold the rows of whole 16-position tiles.
struct TileRowJob {
  const uint16_t* x = nullptr;
  int64_t positionStep = 0, kernelRowStep = 0;
  int kernelRows = 0;
  int chunks = 1;    // tile rows per kernel row
  int variants = 1;  // weight tiles per chunk: 2 for hi/lo
  int pairs = 0;     // 1..16: the configured tile shape
  const uint32_t* weights = nullptr;
  int64_t outChannels = 0;
  int64_t count = 0;
  float* out = nullptr;
  uint16_t* outWords = nullptr;
  bool outHalf = false;
  int64_t outChannelStride = 0;
  const float* bias = nullptr;
  // bf16 words rounded by the scalar rule's vector form throughout, not by
  // VCVTNE2PS2BF16 (which flushes subnormal results): for a bias holding
  // a subnormal value, the only way to a subnormal output.
  bool exactRounding = false;
  // Words: a channel's 32 positions that are one aligned line of the
  // output written with a streaming store (fenced before the call returns).
  bool stream = false;
};
// Configures the tiles for reduction runs of `pairs` word pairs; every
// thread calls it before its first row job (other AMX kernels configure
// their own shapes).
void configureTileRows_amx(int pairs);
void bf16_conv_fwd_rows_m32n32_amx(const TileRowJob& job);

// Stages one padded x row: out[q * cpad + c] = row c's element at column
// q - padLeft (zero outside [0, width) and for c >= channels) for q <
// columns, rounded up to whole 16-column vectors. Rows: the channels' rows
// as bf16 words, or as fp32 values that are bf16 values. False when a value
// is bf16Unsafe.
bool interleaveBf16Row_avx512(const uint16_t* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out);
bool interleaveBf16Row_avx512(const float* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out);
// The same with each element as its (hi, lo) bf16 words: words 2 (q * cpad
// + c) and 2 (q * cpad + c) + 1. Rows: half words, or fp32 values of at
// most 12 significant bits.
bool interleaveHiLoRow_avx512(const uint16_t* const* halfRows, int channels, int cpad,
                              int64_t width, int64_t padLeft, int64_t columns, uint16_t* out);
bool interleaveHiLoRow_avx512(const float* const* rows, int channels, int cpad, int64_t width,
                              int64_t padLeft, int64_t columns, uint16_t* out);

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
