#pragma once
// Unit-stride 2D and 1D convolution on the caller's dense NCHW planes, 16
// output positions of one (image, channel) plane per vector: grouped layers
// with few channels per group, and dense layers whose weights per tile of 8
// output channels fit in L1. The channel-blocked algorithm stages both
// operands and unstages the result, and its tiles of 16 channels per lane
// block are mostly zeros at 8 channels per group; here every operand is read
// where it lies, every result written once, and the reduction over (taps x
// input channels) runs in registers.
//
// A vector holds 16 consecutive positions of a dst plane: when the src and
// dst rows are equally wide (a "same" convolution) across row ends,
// otherwise within one row. Tap (i, j) of dst lane (r, c) reads src
// (r + i * dilH - padH, c + j * dilW - padW), and masked loads give the
// zeros outside the plane, so no padded copy is made.

#include <cstdint>

#include "kernels/conv/plane_window.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {

constexpr int64_t kLanes = 16;
constexpr int64_t kMaxGroupChannels = 16;
constexpr int64_t kMaxTaps = 64;
constexpr int64_t kMaxDenseReduction = 640;
// Work items and mask tables cover blocks of this many dst vectors.
constexpr int64_t kBlockVectors = 12;
// The weight gradient's blocks (GroupWeightGrad).
constexpr int64_t kWeightBlockVectors = 48;

// The positions map of one pass (rowStride 1), and how its dst vectors lie.
struct PlaneMap : PlaneWindow {
  PlaneMap() = default;
  explicit PlaneMap(const PlaneWindow& w) : PlaneWindow(w) {}
  bool acrossRows() const { return srcW == dstW; }
  int64_t vectorsPerRow() const { return (dstW + kLanes - 1) / kLanes; }
  int64_t vectors() const {
    return acrossRows() ? (dstH * dstW + kLanes - 1) / kLanes : dstH * vectorsPerRow();
  }
};

// Where each dst vector of a plane starts in the src and dst planes, its
// valid lanes, and per tap the lanes whose src position is inside the src
// plane: computed once per pass (describePlane), read by every work item.
// Entries [count, padded) have no lanes, so that tiles may run past the end.
struct PlaneVectors {
  int64_t count = 0;
  int64_t padded = 0;  // count rounded up to kBlockVectors
  int64_t* srcBase = nullptr;
  int64_t* dstBase = nullptr;
  uint16_t* valid = nullptr;
  uint16_t* masks = nullptr;  // [tap][padded]
  int64_t tapOffset[kMaxTaps] = {};
};

// Bytes of the arrays of `map`'s PlaneVectors; place them at `memory`.
uint64_t planeVectorsBytes(const PlaneMap& map);
PlaneVectors placePlaneVectors(const PlaneMap& map, void* memory);
void f32_conv_plane_describe_avx512(const PlaneMap& map, PlaneVectors* vectors);

// How the src (and dy) elements are read: fp32, or the caller's bf16 / half
// words (dst then in the same words, each result rounded once, nearest
// even), or raw fp32 values rounded to HF32 (ConvShape::inputRounding). The
// plane passes round raw inputs once per work item into a per-thread slot of
// their scratch (conv_plane.cpp); rounding every load instead (Hf32 without
// a slot, the fallback) rounds each element once per tap and tile (ResNeXt
// g32 HF32 backward 2 threads measured 2.3x the time of cubeMathType 0).
enum class Elements : uint8_t { F32, Bf16, F16, Hf32 };

// For dst vectors [v0, v1) of one image and group:
//   dst[d][p] = sum over taps t = i * kw + j in order, then s in order, of
//     weights[(t * S + s) * D + d] * src[s](p, t)   (+ bias[d])
// with S = srcChannels, D = dstChannels and dst planes of dstH * dstW
// elements; src channel s's element q of the plane (q >= srcOrigin, every
// q the vectors read) at src + s * srcStride + q - srcOrigin.
struct GroupCorrelation {
  PlaneMap map;
  const PlaneVectors* vectors = nullptr;
  Elements kind = Elements::F32;
  const void* src = nullptr;
  int64_t srcChannels = 0;
  int64_t srcStride = 0;
  int64_t srcOrigin = 0;
  // Optional: lines the next work item will read, nextLines per channel
  // from nextSrc (channels nextStride elements apart), to be fetched into
  // L2 while this item computes, nextShare lines per channel and tile.
  const void* nextSrc = nullptr;
  int64_t nextStride = 0, nextLines = 0, nextShare = 0;
  // Kind Hf32 (raw fp32 src, rounded as read), optional: the first dst
  // channel group also stores every src element it rounds at keep (channel
  // s's element q at keep + s * keepStride + q - keepOrigin), and the other
  // groups read them there instead.
  float* keep = nullptr;
  int64_t keepStride = 0, keepOrigin = 0;
  void* dst = nullptr;
  int64_t dstChannels = 0;
  int64_t dstStride = 0;  // elements between dst channels' planes
  const float* weights = nullptr;
  const float* bias = nullptr;
  int64_t v0 = 0, v1 = 0;
  // 3D layers (dense, so never the bf16 pair kernel, which takes grouped
  // layers only; never with `keep`): the sum also runs
  // over depthTaps depth taps in order, depth tap depthTap0 + a reading its
  // src planes a * depthSrcStep elements after src and its weights at
  // weights + (depthTap0 + a) * taps * S * D. 2D: one tap, the one at 0.
  int64_t depthTaps = 1, depthTap0 = 0, depthSrcStep = 0;
};

// For dst vectors [v0, v1) of one group, and dy channels [d0, d0 + dCount):
//   acc[((t * S + s) * dCount + d) * 16 + lane] += the sum over blocks of
//     kWeightBlockVectors vectors, then images n, then the block's vectors, in
//     order, of x[s](p, t) * dy[d0 + d][p] for p in that lane
// with image n's planes at x + n * xImage, dy + n * dyImage (the
// fixed-order reduction of the lanes is the caller's).
struct GroupWeightGrad {
  PlaneMap map;
  const PlaneVectors* vectors = nullptr;
  int64_t images = 1;
  int64_t xImage = 0, dyImage = 0;  // elements
  Elements kind = Elements::F32;
  const void* x = nullptr;
  int64_t xChannels = 0;
  const void* dy = nullptr;  // dy channel d0's plane
  int64_t dCount = 0;
  float* acc = nullptr;
  int64_t v0 = 0, v1 = 0;
  // Kind Hf32 (raw fp32 x and dy): each block's rows of an image are
  // rounded into `slot` first, xSpan elements per x channel, then dySpan
  // per dy channel (no slot: each element rounded as read).
  float* slot = nullptr;
  int64_t xSpan = 0, dySpan = 0;
};

// The src plane elements [lo, hi) vectors [v0, v1) of `map` may read at any
// tap (from the first vector's lowest tap to the last valid vector's
// highest, clipped to the plane), and the dst plane elements they cover.
void planeSourceRange(const PlaneMap& map, const PlaneVectors& vectors, int64_t v0, int64_t v1,
                      int64_t* lo, int64_t* hi);
void planeDestinationRange(const PlaneMap& map, const PlaneVectors& vectors, int64_t v0, int64_t v1,
                           int64_t* lo, int64_t* hi);
// planeSourceRange of the job's vectors, per src channel.
void correlationSourceRange(const GroupCorrelation& job, int64_t* lo, int64_t* hi);

void f32_conv_plane_correlate_o8w48_avx512(const GroupCorrelation& job);
// The same on bf16 operands (kind Bf16: the caller's words; F32: fp32
// copies of bf16 values) with VDPBF16PS, the src channels in pairs
// (2q, 2q + 1; an odd last one with a zero partner):
//   pairWeights[(t * P + q) * D + d] = bf16 w(2q) | bf16 w(2q + 1) << 16,
// P = (S + 1) / 2. False, before it writes anything, when the src elements
// the job reads hold a value the hardware does not take exactly (non-finite
// or nonzero below 2^-40, blocked::bf16Unsafe).
bool bf16_conv_plane_correlate_o8w48_avx512bf16(const GroupCorrelation& job,
                                                const uint32_t* pairWeights);
void f32_convbwdw_plane_o4c4_avx512(const GroupWeightGrad& job);

// 1D/2D (depth trivial), unit strides, extents the kernels' 32-bit lane
// arithmetic takes (below kMaxPlaneExtent), at most kMaxTaps taps: the
// geometry every plane pass needs.
constexpr int64_t kMaxPlaneExtent = int64_t{1} << 28;
bool planeGeometry(const ConvShape& s);
// The same with any unit-stride depth dim: 3D layers whose correlation runs
// plane by plane, the depth taps a sum over planes (dense layers only).
bool volumeGeometry(const ConvShape& s);

// Grouped layers (groups > 1, at most kMaxGroupChannels channels per group):
// every pass.
bool acceptsGroupedForward(const ConvShape& s);
bool acceptsGroupedBackwardData(const ConvShape& s);
bool acceptsGroupedBackwardWeight(const ConvShape& s);
// Dense 1D/2D/3D layers (groups == 1) the correlation runs near the FMA
// peak: its reduction per depth tap (src channels x taps of a plane) at
// most kMaxDenseReduction, so that the weights a tile reads together stay
// in L1, at least 90% of the vectors' lanes valid, for 1x1 layers at least
// two src channels per dst channel and fewer than 32 dst channels (other
// 1x1 layers run faster as a GEMM). With HF32 operands (grouped layers
// too), a block's src rows within the rounded slot's limit; 3D layers not
// with HF32 operands. (The weight gradient of dense layers stays with the
// blocked algorithm, which measures faster there.)
bool acceptsDenseForward(const ConvShape& s);
bool acceptsDenseBackwardData(const ConvShape& s);
// The packed weights of the correlation passes; the weight gradient's
// per-lane partial sums.
uint64_t correlationScratchBytes(const ConvShape& s);
uint64_t backwardWeightScratchBytes(const ConvShape& s);
// x [N, C, H, W], w [O, C / G, KH, KW] -> y (+ bias[o] when not null).
void forward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y,
             void* scratch);
void backwardData(const ConvShape& s, const float* dy, const float* w, const float* bias, float* dx,
                  void* scratch);
void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw, void* scratch);
// The same on the caller's dense 16-bit tensors of type s.io (results rounded
// to that type once, dw in fp32); products of bf16 or half values are exact
// in fp32, so these give the fp32 passes' bits on the same values.
// bf16 operands on VDPBF16PS (AVX512-BF16): the words runs are false when
// the weights or the data hold a value the hardware does not take exactly
// (the caller then runs the fp32 pass); the fp32 runs (fp32 copies of bf16
// values) then run the fp32 kernels above, bit for bit forward() and
// backwardData().
bool forwardBf16Words(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                      uint16_t* y, void* scratch);
bool backwardDataBf16Words(const ConvShape& s, const uint16_t* dy, const float* w,
                           const float* bias, uint16_t* dx, void* scratch);
void forwardBf16(const ConvShape& s, const float* x, const float* w, const float* bias, float* y,
                 void* scratch);
void backwardDataBf16(const ConvShape& s, const float* dy, const float* w, const float* bias,
                      float* dx, void* scratch);
void forwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y, void* scratch);
void backwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w, const float* bias,
                       uint16_t* dx, void* scratch);
void backwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch);

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
