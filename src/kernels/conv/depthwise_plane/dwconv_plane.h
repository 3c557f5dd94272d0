#pragma once
// Depthwise convolution (groups == C == O) of 1D/2D problems on the caller's
// dense NCHW memory, one (image, channel) plane at a time: a band of input
// rows is copied, padded with zeros, into a buffer in L1, and the output
// row is computed along W in 16-lane vectors. Planes whose rows do not
// fill a vector (7x7, 14x14) run 16 channels at a time instead, the
// channels in the lanes, transposed in and out in L1. Every plane's data is read
// and written once, where the channel-blocked algorithm stages both
// operands and unstages the result (three passes over memory for a layer
// that is all memory traffic).
//
// A stride of 2 along W: in the forward and the weight gradient each
// buffered row is split into its two column phases, so that a tap's
// consecutive outputs still read consecutive floats; the data gradient
// computes dx's two column phases and interleaves them.
//
// Limits: stride 1 or 2 along W, any stride along H; at most kMaxTaps
// taps; one output row's band must fit the buffer (strided data gradients:
// the whole dy plane).

#include <cstdint>

#include "kernels/conv/plane_window.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace depthwise_plane {

constexpr int64_t kBandFloats = 8192;  // 32 KB: the band buffer, on the stack
constexpr int64_t kMaxTaps = 64;
constexpr int64_t kLanes = 16;

// A plane job's index map (the rows of dst may step rowStride src rows).
using PlaneGeometry = PlaneWindow;

// The band buffer's layout, the same for every plane of a pass: the
// drivers describe it once (describePlaneBands), not each plane (for 7x7
// planes its divisions and table took a sixth of a plane's time). Rows
// rowFloats apart, bands of `rows` output rows; alignedPitch > 0: rows
// 64-byte aligned at that pitch, for windows shifted out of aligned
// vectors (unit stride and dilation along W); phaseFloats > 0: each row
// split into its two column phases (stride 2 along W), phaseFloats apart.
// W tap k's input for output column 0 starts colOff[k] floats into a row:
// k * dilW, or in phase (k * dilW) % 2 at (k * dilW) / 2, where
// consecutive outputs read consecutive floats as at unit stride. Only
// colOff[0, kw) is set.
struct PlaneBands {
  int64_t alignedPitch = 0;
  int64_t rowFloats = 0;
  int64_t phaseFloats = 0;
  int64_t rows = 0;
  int64_t colOff[kMaxTaps];
};

struct ScatterLayout;  // below, with the scatter

// dst[r][c] = sum over taps t = i * kw + j, in order, of src(r, c, i, j) *
// taps[t], plus bias when hasBias. src and dst are fp32 (with roundHf32,
// each src value rounded to HF32 as it is read), or (srcWords and dstWords
// set) 16-bit words of type `words` (BF16 or F16), each result rounded to
// that type once, nearest even.
struct PlaneCorrelation {
  PlaneGeometry g;
  const PlaneBands* bands = nullptr;       // describePlaneBands(g, true); not for the scatter
  const ScatterLayout* scatter = nullptr;  // scatterLayout(g): for the scatter only
  bool roundHf32 = false;
  const float* src = nullptr;
  const uint16_t* srcWords = nullptr;
  float* dst = nullptr;
  uint16_t* dstWords = nullptr;
  ElementType words = ElementType::BF16;
  const float* taps = nullptr;
  float bias = 0.0f;
  bool hasBias = false;
  // Write dst with streaming stores (stream_copy_avx512.h): for passes
  // whose output is much larger than the caches.
  bool streamOut = false;
  // The plane the caller runs next (may be null, else nextBytes long):
  // fetched into L2 while this one computes.
  const void* next = nullptr;
  int64_t nextBytes = 0;
};

// acc[t * 16 + lane] += the plane's contribution to tap t = i * kw + j: the
// sum over (r, c) of src(r, c, i, j) * dy[r][c] with x as src and c in lane
// c % 16 (the fixed-order reduction of the lanes is the caller's). x and dy
// are fp32 (with roundHf32, rounded to HF32 as they are read), or (xWords
// and dyWords set) 16-bit words of type `words`.
struct PlaneWeightGrad {
  PlaneGeometry g;
  const PlaneBands* bands = nullptr;  // describePlaneBands(g, false)
  bool roundHf32 = false;
  const float* x = nullptr;
  const uint16_t* xWords = nullptr;
  const float* dy = nullptr;
  const uint16_t* dyWords = nullptr;
  ElementType words = ElementType::BF16;
  float* acc = nullptr;
  // The planes the caller runs next (may be null): fetched into L2 while
  // this one computes.
  const void* nextX = nullptr;
  const void* nextDy = nullptr;
};

// Floats of one buffered src row: the output row rounded up to whole
// vectors, plus the kernel's reach along W.
inline int64_t bandRowFloats(int64_t dstW, int64_t kw, int64_t dilW) {
  return (dstW + kLanes - 1) / kLanes * kLanes + (kw - 1) * dilW;
}
// Floats of one column phase of a buffered src row at a column stride of
// 2: the output row rounded up to whole vectors, plus the reach of the
// kernel within a phase, rounded up to whole vectors (two phases make a
// buffered row).
inline int64_t phaseRowFloats(int64_t dstW, int64_t kw, int64_t dilW) {
  const int64_t floats = (dstW + kLanes - 1) / kLanes * kLanes + (kw - 1) * dilW / 2;
  return (floats + kLanes - 1) / kLanes * kLanes;
}
// The buffered dy rows of f32_dwconv_plane_scatter_avx512 for the forward
// window g: each dy row padded by `lead` zero columns before it, rowFloats
// apart; dx column phase q's output m reads (for W tap k of its parity)
// buffered column lead + m + offset[q][k].
struct ScatterLayout {
  int64_t phases = 1;        // colStride
  int64_t phaseOutputs = 0;  // outputs per dx row phase: ceil(dxW / phases)
  int64_t lead = 0, rowFloats = 0;
  bool valid[2][kMaxTaps] = {};
  int64_t offset[2][kMaxTaps] = {};
};
inline int64_t floorDivide(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
// The dy row or column from which dx index i receives kernel tap k of a
// window with this padding, dilation and stride (the data gradient's
// scatter seen from dx): true, with *o, when i + pad - k * dil is a
// multiple of stride whose quotient lies in [0, extent).
inline bool scatterSource(int64_t i, int64_t pad, int64_t k, int64_t dil, int64_t stride,
                          int64_t extent, int64_t* o) {
  const int64_t e = i + pad - k * dil;
  *o = floorDivide(e, stride);
  return *o * stride == e && *o >= 0 && *o < extent;
}
inline ScatterLayout scatterLayout(const PlaneWindow& g) {
  ScatterLayout l;
  l.phases = g.colStride;
  l.phaseOutputs = (g.srcW + l.phases - 1) / l.phases;
  int64_t lowest = 0, highest = 0;
  for (int64_t q = 0; q < l.phases; ++q)
    for (int64_t k = 0; k < g.kw; ++k) {
      const int64_t e = q + g.padW - k * g.dilW;
      l.valid[q][k] = floorDivide(e, l.phases) * l.phases == e;
      l.offset[q][k] = floorDivide(e, l.phases);
      if (!l.valid[q][k]) continue;
      lowest = l.offset[q][k] < lowest ? l.offset[q][k] : lowest;
      highest = l.offset[q][k] > highest ? l.offset[q][k] : highest;
    }
  l.lead = -lowest;
  const int64_t vectors = (l.phaseOutputs + kLanes - 1) / kLanes * kLanes;
  const int64_t floats = l.lead + vectors + highest;
  const int64_t dyFloats = l.lead + g.dstW;  // fillBand writes the whole dy row
  l.rowFloats = ((floats > dyFloats ? floats : dyFloats) + kLanes - 1) / kLanes * kLanes;
  return l;
}
// src rows one band of `rows` output rows reads.
inline int64_t bandSrcRows(int64_t rows, int64_t rowStride, int64_t kh, int64_t dilH) {
  return (rows - 1) * rowStride + (kh - 1) * dilH + 1;
}

// The layout of a correlation's bands (forward), or (forCorrelation false)
// of a weight gradient's: the forward reads aligned windows for 3x3 and
// 5x5 kernels, the weight gradient for kernels three taps wide.
PlaneBands describePlaneBands(const PlaneGeometry& g, bool forCorrelation);

// PlaneCorrelation's sums for small planes, 16 channels of one image at a
// time with the channels in the vector lanes (a 7x7 row fills 7 of a
// vector's 16 lanes; here every lane works): the group's src planes are
// transposed into a zero-padded [row][column][16] buffer, each output's
// taps summed in order (the same sums as the plane kernels), each output
// row transposed back. src, dst and taps of channel c at src + c *
// srcChannelStride (likewise dst) and taps + c * tapChannelStride, for c
// < channels (1..16), tap k at k or, where reversedTaps (the data
// gradient's correlation), at kh * kw - 1 - k; the other job fields as
// PlaneCorrelation's (g within fitsChannelGroups; bands, next and
// streamOut unused).
constexpr int64_t kChannelPlaneFloats = 8192;
struct ChannelGroupCorrelation {
  PlaneCorrelation planes;
  int channels = 16;
  int64_t srcChannelStride = 0, dstChannelStride = 0, tapChannelStride = 0;
  bool reversedTaps = false;
  const float* biases = nullptr;  // one per channel, or null
};
// The padded src plane's rows and columns the window reads.
inline int64_t channelPlaneRows(const PlaneGeometry& g) {
  return (g.dstH - 1) * g.rowStride + (g.kh - 1) * g.dilH + 1;
}
inline int64_t channelPlaneColumns(const PlaneGeometry& g) {
  return (g.dstW - 1) * g.colStride + (g.kw - 1) * g.dilW + 1;
}
inline bool fitsChannelGroups(const PlaneGeometry& g) {
  if (g.padH < 0 || g.padW < 0) return false;
  const int64_t h = channelPlaneRows(g), w = channelPlaneColumns(g);
  return h <= kChannelPlaneFloats / kLanes && w <= kChannelPlaneFloats / kLanes &&
         h * w * kLanes <= kChannelPlaneFloats;
}
void f32_dwconv_channels_correlate_avx512(const ChannelGroupCorrelation& job);
// f32_dwconv_plane_scatter_avx512's sums for small dx planes, 16 channels
// at a time the same way (planes.g the forward's window, src = dy, dst =
// dx; dy planes of at most kChannelPlaneFloats / 16 positions, dx rows of
// at most kMaxScatterColumns): each dx element's valid taps in order.
constexpr int64_t kMaxScatterColumns = 64;
inline bool fitsChannelScatter(const PlaneGeometry& g) {
  return g.dstH * g.dstW * kLanes <= kChannelPlaneFloats && g.srcW <= kMaxScatterColumns &&
         g.kw <= kMaxTaps;
}
void f32_dwconv_channels_scatter_avx512(const ChannelGroupCorrelation& job);

// PlaneWeightGrad's sums for the same small planes, 16 channels of one
// image at a time, the channels in the lanes: acc[t * 16 + c] += the sum
// over dst positions p in order of x(c, p, tap t) * dy[c][p], channel c's x
// and dy planes at x + c * xChannelStride and dy + c * dyChannelStride, c <
// channels (the other lanes' sums stay as they are); planes.acc, .g
// (within fitsChannelGroups, its dst plane at most kChannelPlaneFloats / 16
// positions), the operands and their reading as PlaneWeightGrad's.
struct ChannelGroupWeightGrad {
  PlaneWeightGrad planes;
  int channels = 16;
  int64_t xChannelStride = 0, dyChannelStride = 0;
};
void f32_dwconv_channels_weight_avx512(const ChannelGroupWeightGrad& job);

void f32_dwconv_plane_correlate_avx512(const PlaneCorrelation& job);

// The data gradient at strides other than 1 x 1, job.g the forward's window
// (g.src* the dx plane, g.dst* the dy plane; colStride 1 or 2): src = dy,
// dst = dx, taps the forward's kernel (not flipped):
//   dx[ih][iw] = sum over taps t = i * kw + k, in order, of dy[oh][ow] *
//     taps[t] where ih + padH - i * dilH = oh * rowStride and iw + padW -
//     k * dilW = ow * colStride for (oh, ow) inside dy
// (plus bias when hasBias), in the element kinds of PlaneCorrelation
// (streamOut: dx planes of at most kBandFloats elements). The whole dy
// plane is buffered (job.scatter); at a column stride of 2 each dx row is
// computed as its two column phases, each a unit-stride correlation of dy
// rows with the taps of its parity, then interleaved.
void f32_dwconv_plane_scatter_avx512(const PlaneCorrelation& job);

void f32_dwconv_plane_weight_avx512(const PlaneWeightGrad& job);

bool acceptsForward(const ConvShape& s);
bool acceptsBackwardData(const ConvShape& s);
bool acceptsBackwardWeight(const ConvShape& s);
// x [N, C, H, W], w [C, 1, KH, KW] -> y (+ bias[c] when bias is not null).
// The fp32 passes take s.inputRounding HF32 (x and dy rounded as read).
void forward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y);
void backwardData(const ConvShape& s, const float* dy, const float* w, const float* bias,
                  float* dx);
// dySums not null: also dy's channel sums (channelSums' bits, convert.h).
void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                    double* dySums = nullptr);
// The same on the caller's dense 16-bit tensors of type s.io (words;
// results rounded to that type once, dw in fp32). Products of bf16 or half
// values are exact in fp32, so these give the bits of the fp32 passes on the
// same values, for any value.
void forwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y);
void backwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w, const float* bias,
                       uint16_t* dx);
void backwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                         double* dySums = nullptr);

}  // namespace depthwise_plane
}  // namespace kernels
}  // namespace aclcpu
