#pragma once
// The bf16 pointwise convolution (1x1, stride 1, no padding, ungrouped) on
// AMX: forward and backward data for bf16 operands, and for fp16 (and HF32)
// operands as exact bf16 hi + lo splits (four products per multiply); the
// weight gradient for bf16 operands. With AVX512-BF16 (`isa` below Amx):
// forward and backward data for bf16 operands (the blocked weight
// gradient measured faster there: blocked_bf16_conv_weight.cpp). Per image a GEMM of
// the weights with the caller's NC[D]HW activations as they lie, channels
// the reduction and positions the columns, so that neither the input nor
// the output is restaged (the blocked AMX pass stages both, and transposes
// them: for 1x1 layers that costs more than the products). Products are
// exact and sums fp32, as on the NPU's cube unit; data holding a bf16Unsafe
// value (non-finite, or below 2^-40) runs the fp32 algorithm instead.

#include <cstdint>

#include "kernels/cpu/cpu_info.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {

bool acceptsForward(const ConvShape& shape);
bool acceptsBackwardData(const ConvShape& shape);
bool acceptsBackwardWeight(const ConvShape& shape);
uint64_t forwardScratchBytes(const ConvShape& shape);
uint64_t backwardDataScratchBytes(const ConvShape& shape);
uint64_t backwardWeightScratchBytes(const ConvShape& shape);

// On dense fp32 buffers holding bf16 values; bias (per output channel of
// the pass) may be null.
void forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
             void* scratch, const float* bias);
void backwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                  void* scratch, const float* bias);
// dw = the sum over images and positions of dy x^T, reduced in a fixed
// number of position chunks (a function of the shape) whose partial sums
// are added in order: the bits do not depend on the thread count.
void backwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch);
bool backwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch);
// On the caller's dense bf16 (fp16 operands: half) tensors, each result
// (+ bias) rounded to that type once; false when a value is bf16Unsafe (the
// output is then incomplete).
bool forwardWords(Isa isa, const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                  void* scratch, const float* bias);
bool backwardDataWords(Isa isa, const ConvShape& shape, const uint16_t* dy, const float* w,
                       uint16_t* dx, void* scratch, const float* bias);

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
