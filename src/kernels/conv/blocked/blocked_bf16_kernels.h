#pragma once
// The bf16 micro-kernel and staging of the blocked direct convolution
// (defined in *_amx.cpp / *_avx512.cpp files; call only when the CPU has
// that ISA). Staged operands use the fp32 layouts of blocked_plan.h with
// every 4-byte element a word of two bf16 values (bf16_pairs_inl.h), so one
// 16-element block holds 32 reduction channels (Pairs) or 8 (HiLo).

#include <cstdint>

#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/blocked/blocked_plan.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

// Loads the tile configuration of the AMX kernels below on the calling
// thread. Call it at the start of every parallel work chunk that runs them:
// other code (another library's AMX kernels) may have changed the thread's
// configuration since, and LDTILECFG costs too much to repeat per kernel
// call (measured: 8% of a bf16 3x3 64-channel forward when it was).
void configureBf16Tiles_amx();

// Output blocks (of 16 channels) a row kernel's register tile holds.
constexpr int kMaxRowTileBlocks = 2;

// One row segment of a row pass:
//   out[t][b * 16 + o] = sum over taps k, in order, of the tile dot product
//     of words in[taps[k] + t * inStep * 16 + u] (u = 0..15) with
//     weights[k * tapStride + b * 256 + u * 16 + o]
// stored at out + t * outColStep + b * outBlockStride; with `accumulate`
// added to what is there first. Reads up to 15 * inStep positions past the
// last one; their results are dropped.
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
  int nb = 1;         // output blocks: 1 to kMaxRowTileBlocks
  int inStep = 1;     // W stride: 1 or 2 (VDPBF16PS), up to 8 (AMX)
  bool accumulate = false;
};
void bf16_conv_rows_m16n16_amx(const Bf16RowJob& job);

// The weight gradient of one tap over a list of K-step segments, for up to
// 2 x 2 (input-channel block, output-channel block) tiles:
//   dw[a][b][i][o] = sum over segments, then steps s, of the tile dot product
//     of x rows (channel a * 16 + i) at x + xTapBytes + s * 64 with dy pair
//     rows at dy + b * dyBlockBytes + s * 1024
// stored at dw + a * dwIcBlockFloats + b * dwOcBlockFloats, 16 rows (input
// channels) of 16 floats (output channels); with `accumulate` added to what
// is there, in that order. The tiles must be configured.
struct Bf16WeightSegment {
  const uint8_t* x = nullptr;   // channel 0 of input block 0, step 0
  const uint8_t* dy = nullptr;  // output block 0, step 0
  int64_t steps = 0;
};
struct Bf16WeightJob {
  const Bf16WeightSegment* segments = nullptr;
  int64_t segmentCount = 0;
  int64_t xTapBytes = 0;
  int64_t xChannelBytes = 0;       // between the rows of an x tile
  int64_t xBlockBytes = 0;         // between input blocks (16 channels)
  int64_t dyBlockBytes = 0;        // between output blocks
  int icBlocks = 1, ocBlocks = 1;  // 1 or 2 each
  float* dw = nullptr;
  int64_t dwIcBlockFloats = 0, dwOcBlockFloats = 0;
  bool accumulate = false;
};
void bf16_convbwdw_m16n16_amx(const Bf16WeightJob& job);

// The same two jobs with AVX512-BF16 (VDPBF16PS on 16-lane registers):
// the same products, the fp32 sums of each lane in the same order of taps
// and words; the two products of a word are added by the instruction.
void bf16_conv_rows_nb16_avx512bf16(const Bf16RowJob& job);
void bf16_convbwdw_8x32_avx512bf16(const Bf16WeightJob& job);

// The micro-kernels one bf16 ISA (Amx or Avx512Bf16) runs the passes with,
// and the plan parameters measured for them.
struct Bf16Kernels {
  void (*configure)();  // at the start of every work chunk; null: nothing to do
  void (*rows)(const Bf16RowJob& job);
  void (*weight)(const Bf16WeightJob& job);
  int64_t shortRow;         // planes whose rows are shorter run flattened
  int64_t callWeightBytes;  // weights one row-kernel call covers at most
  // bf16 pairs: calls end between taps once they cover this many bytes of
  // weights, instead of at reduction-block ends (0: at block ends only).
  int64_t pairCallTapBytes;
};
const Bf16Kernels& bf16KernelsFor(Isa isa);

// Packs one weight block of a row pass: for output lanes o < outLanes,
// rows[o] points at the weight of reduction channel 0 of the block, and
// channel j's weight is rows[o][j * channelStride] for j < channels (the
// rest, and lanes o >= outLanes, are zero). Pairs: dst[k * 16 + o] =
// pairWord(ch 2k, ch 2k + 1); HiLo: dst[k * 16 + o] = hiLoWord(ch k) and
// second[k * 16 + o] = loHiWord(ch k). False when a value is bf16Unsafe.
// channelStride * 32 must fit int32.
bool packBf16WeightBlock_avx512(const float* const rows[16], int outLanes, int64_t channelStride,
                                int channels, PairKind kind, uint32_t* dst, uint32_t* second);

// The same block, Pairs only, from the caller's dense bf16 weight words
// (rows[o] and channelStride in words); `end` is one past the tensor's last
// word, which no read passes.
bool packBf16WeightWordBlock_avx512(const uint16_t* const rows[16], int outLanes,
                                    int64_t channelStride, int channels, const uint16_t* end,
                                    uint32_t* dst);

// The blocks of every tap of one forward weight block in Pairs form, when
// each lane's weights are one contiguous run: rows[o] (or wordRows[o], the
// caller's bf16 words; exactly one of the two is non-null) points at
// w[o][c0][0] of w [O, C, taps], and the 32 channels c0 .. c0 + 31 x `taps`
// taps that follow are read as 2 * taps whole vectors per lane (no gather;
// the caller guarantees they lie inside w). Lanes o >= outLanes are zero.
// tapDst[t] receives tap t's block: tapDst[t][k * 16 + o] = pairWord(ch
// 2k, ch 2k + 1). 1 <= taps <= kMaxRunTaps. False when a value is
// bf16Unsafe.
constexpr int kMaxRunTaps = 32;
bool packBf16WeightRuns_avx512(const float* const rows[16], const uint16_t* const wordRows[16],
                               int outLanes, int taps, uint32_t* const tapDst[]);

// The same for a data-gradient weight block: reduction channel j's lane o
// weights are w[c0 + j][o0 + o][0 .. taps) of w [O, C, taps], so for each j
// the 16 lanes' taps are one run starting at rows[j] (or wordRows[j]);
// each lane's taps are read as one vector (whole where at least 16
// elements of w remain before `end`, the tensor's end in its own elements).
// 1 <= taps <= 16.
bool packBf16DataWeightRuns_avx512(const float* const rows[32], const uint16_t* const wordRows[32],
                                   int outLanes, int taps, const void* end,
                                   uint32_t* const tapDst[]);

// Stages rows [begin, end) of `l`, whose channels are words, from the
// dense fp32 [N, denseChannels, D, H, W] tensor, each value rounded to
// HF32 first when `rounding` says so (the caller's raw inputs,
// ConvShape::inputRounding). False when a value is bf16Unsafe (the words
// are then still written).
bool stageBf16Rows_avx512(const float* dense, int64_t denseChannels, PairKind kind,
                          const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged,
                          Rounding rounding = Rounding::None);
// The same from a dense tensor of 16-bit words of `type` (BF16 or F16; the
// caller's tensor), for Pairs and HiLo alike.
bool stageBf16Rows_avx512(const uint16_t* dense, ElementType type, int64_t denseChannels,
                          PairKind kind, const StagedLayout& l, int64_t begin, int64_t end,
                          uint32_t* staged);

// Staging for the weight gradient. x: for each (image, channel) and each
// stride residue r (r[d] in [0, step[d]), row-major), a padded plane volume
// of `size` positions holding source index q[d] * step[d] + r[d] + first[d]
// (zero outside the source), so that every tap of a strided convolution
// reads one residue volume at unit stride. Channels from `channels` to
// `paddedChannels` are zero. `entries` bf16 per position (1: the value; 4
// for HiLo: hi, lo, hi, lo). Item i of [begin, end) is the staged (image,
// channel) pair i.
struct Bf16PlaneLayout {
  int64_t channels = 0, paddedChannels = 0;
  int64_t source[3] = {1, 1, 1};  // dense extents
  int64_t size[3] = {1, 1, 1};    // residue volume extents
  int64_t step[3] = {1, 1, 1};    // the convolution's strides
  int64_t first[3] = {0, 0, 0};   // source index of position 0 of residue 0
  int64_t entries = 1;            // bf16 per position
  int64_t residueEntries = 0;     // bf16 per residue volume
  int64_t channelEntries = 0;     // bf16 per channel (every residue)
};
bool stageBf16Planes_avx512(const float* dense, const Bf16PlaneLayout& l, PairKind kind,
                            int64_t begin, int64_t end, uint16_t* staged,
                            Rounding rounding = Rounding::None);
// The same from a dense tensor of 16-bit words of `type` (BF16 or F16).
bool stageBf16Planes_avx512(const uint16_t* dense, ElementType type, const Bf16PlaneLayout& l,
                            PairKind kind, int64_t begin, int64_t end, uint16_t* staged);

// True when none of `count` bf16 words is bf16Unsafe (a check without a
// copy, for x read in place).
bool bf16WordsSafe_avx512(const uint16_t* words, int64_t count);

// dy as pair rows: for each (image, 16-channel block) the flat positions
// p = (od * rowsPerPlane + oh) * rowLength + ow for p < positions (zero where
// oh >= out[1] or ow >= out[2]), as rows of 16 words: Pairs: row r holds
// positions 2r and 2r + 1; HiLo: position p gives rows 2p (hi, lo) and
// 2p + 1 (lo, hi). `rows` rows per (image, block), zero past the positions.
struct Bf16PairRowLayout {
  int64_t channels = 0, blocks = 0;
  int64_t out[3] = {1, 1, 1};  // dense extents
  int64_t rowsPerPlane = 0, rowLength = 0;
  int64_t positions = 0, rows = 0;
};
bool stageBf16PairRows_avx512(const float* dense, const Bf16PairRowLayout& l, PairKind kind,
                              int64_t begin, int64_t end, uint32_t* staged,
                              Rounding rounding = Rounding::None);
// The same from a dense tensor of 16-bit words of `type` (BF16 or F16).
bool stageBf16PairRows_avx512(const uint16_t* dense, ElementType type, const Bf16PairRowLayout& l,
                              PairKind kind, int64_t begin, int64_t end, uint32_t* staged);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
