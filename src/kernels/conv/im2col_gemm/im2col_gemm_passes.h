#pragma once
// The generic convolution passes: im2col / col2im + packed sgemm per (image,
// group). Every shape and ISA; the sgemm picks its micro-kernel for the active
// ISA. Dense fp32 buffers as in conv_passes.h; the caller handles empty
// shapes. Scratch depends on computeThreadCount() (sgemm's packing slices).

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace im2col_gemm {

// The data gradient's scratch; the forward pass needs only forwardScratchBytes
// (it never forms the column matrix), the weight gradient a little more.
uint64_t scratchBytes(const ConvShape& shape);
uint64_t forwardScratchBytes(const ConvShape& shape);
uint64_t backwardWeightScratchBytes(const ConvShape& shape);
// bias (may be null): + bias[c] on channel c, added in fp32 after each
// output's whole sum (the forward operators' bias, see conv_passes.h); the
// GEMM adds it as it stores, except in the col2im data gradient, which adds
// it in a pass after its scatter.
void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias = nullptr);
void backwardData(const ConvShape& shape, const float* dy, const float* w, float* dx, void* scratch,
                  const float* bias = nullptr);
void backwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch);

}  // namespace im2col_gemm
}  // namespace kernels
}  // namespace aclcpu
