#pragma once
// Moving data between caller views (any dtype, any strides) and the kernels'
// contiguous fp32 buffers, with the NPU's rounding rules applied on the way.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {

// Scalar conversions (bit-exact, see Rounding for the rules).
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);  // nearest even, overflow to inf
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float value);                 // nearest even, NaN stays NaN
float roundFloat(float value, Rounding rounding);  // returns the rounded value as fp32

// double -> float rounding to odd: truncate, and set the last bit when
// inexact. A later nearest-even rounding to fp16 or bf16 (13 or 16 fewer
// bits) then equals one direct rounding of the double value.
float narrowRoundToOdd(double value);

// dst[i] = round(src element i) for every element of `src`, written densely in
// row-major [N, C, D, H, W] order. Multi-threaded over the shared pool.
void gatherToFloat(const View5& src, Rounding rounding, float* dst);

// Writes round(src[i]) converted to dst.type (nearest even) through the view
// `dst`; src is dense row-major over dst.shape. Multi-threaded.
void scatterFromFloat(const float* src, Rounding rounding, const View5& dst);

// Writes zero to every element of the view.
void fillZero(const View5& dst);

// sums[c] = sum over n and spatial positions of src[n, c, ...], accumulated in
// double in a fixed order (bit-identical for any thread count).
void channelSums(const View5& src, double* sums);

// channelSums' arithmetic for a pass that reads a channel's elements anyway
// (a depthwise weight gradient reading gradOutput plane by plane): each
// channel's kChannelSumLanes double lanes start at zero, every run of its
// elements is added in row-major order, and channelLaneTotal(lanes) is then
// the bits of channelSums' sum. addChannelRuns adds `planes` channels' runs
// of `length` dense elements of `type`: run p at first + p * planeStride
// elements, holding its channel's elements [firstElement, firstElement +
// length) in row-major order, into lanes + p * kChannelSumLanes.
constexpr int64_t kChannelSumLanes = 16;
void addChannelRuns(ElementType type, const void* first, int64_t planeStride, int planes,
                    int64_t length, int64_t firstElement, double* lanes);
double channelLaneTotal(const double* lanes);

}  // namespace kernels
}  // namespace aclcpu
