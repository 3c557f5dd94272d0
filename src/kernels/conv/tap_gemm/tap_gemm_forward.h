#pragma once
// A 1D convolution's forward pass as one GEMM per (image, group) whose K runs
// over the kernel taps, each tap's rows a shifted view of the input split
// into its stride phases: no column matrix (the taps x positions copy that
// im2col writes and the GEMM reads back), only the phase split, about the
// size of x itself.
//
//   y[o, p] = sum over taps k, channels c of w[o, c, k] x[c, p * s + k * d - pad]
//           = sum_k (W_k x X_k)[o, p],  X_k[c, p] = phases[r_k][c][p + j_k]
// with k * d = j_k * s + r_k and phases[r][c][t] = x padded at t * s + r.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace tap_gemm {

// 1D shapes (the two leading spatial axes of extent 1, unpadded) with a kernel of at
// least two taps and enough input channels per group for each tap's K block
// to be a full-depth one.
bool acceptsForward(const ConvShape& shape);

uint64_t forwardScratchBytes(const ConvShape& shape);

// bias (may be null) joins each output as it is stored. x may hold raw
// values to round to HF32 (shape.inputRounding), rounded as they are split
// into phases.
void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias = nullptr);

}  // namespace tap_gemm
}  // namespace kernels
}  // namespace aclcpu
