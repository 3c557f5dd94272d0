#pragma once
// Strided layers with few input channels as unit-stride layers of the plane
// kernels (space to depth). With strides (sh, sw), input channel c becomes
// the sh * sw channels (c, ph, pw) of x'(c, ph, pw)[m][q] =
// x_padded[c][sh * m + ph][sw * q + pw], and the kernel the ceil(k / s) taps
// per dim of w'(o, (c, ph, pw))[i][j] = w[o][c][sh * i + ph][sw * j + pw]
// (zero past k): y is then the unit-stride, unpadded convolution of x' with
// w', tap for tap the same products. Every x element is one x' element, so
// dx is dx' put back in place (zero for the x positions no window reaches),
// and dw the dw' entries inside the kernel.
//
// The layers this serves (wav2vec's k10 s5 stem over one channel, image
// stems of 3 channels) have a long dy over many channels and a reduction of
// a few hundred; the generic GEMM runs their data and weight gradients at a
// fifth of the FMA peak, most of it packing dy.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {

// Dense (groups 1) 1D/2D layers, a stride above 1 along H or W, no
// dilation along a strided dim and no stride above its kernel (phases no tap
// reads would be computed for nothing), whose x' has at most kMaxPhaseChannels
// channels and whose unit-stride form the plane kernels take; the data
// gradient only where the strides divide the kernel (w' then has no zeros).
constexpr int64_t kMaxPhaseChannels = 16;
bool acceptsStridePhasesBackwardData(const ConvShape& s);
bool acceptsStridePhasesBackwardWeight(const ConvShape& s);
uint64_t stridePhasesBackwardDataScratchBytes(const ConvShape& s);
uint64_t stridePhasesBackwardWeightScratchBytes(const ConvShape& s);
void stridePhasesBackwardData(const ConvShape& s, const float* dy, const float* w,
                              const float* bias, float* dx, void* scratch);
void stridePhasesBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                                void* scratch);

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
