#pragma once
// The bf16 blocked direct convolution on AMX or AVX512-BF16 (`isa`, the
// micro-kernels of bf16KernelsFor): forward, backward data and
// weight gradient of ungrouped problems whose operands are bf16 values
// (OperandValues::BF16) or exact hi + lo sums of two (F16, HF32), on dense
// fp32 NCDHW buffers. Operands are staged as bf16 words
// (blocked_bf16_kernels.h); products are exact and sums are fp32, as on the
// NPU's cube unit. When an operand holds a value the hardware would not take
// exactly (bf16Unsafe: non-finite or below 2^-40), the pass runs the fp32
// algorithm the registry has for it instead, so results never depend on the
// hardware's flush-to-zero.

#include <cstdint>

#include "kernels/cpu/cpu_info.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

bool acceptsBf16Forward(Isa isa, const ConvShape& shape);
bool acceptsBf16BackwardData(Isa isa, const ConvShape& shape);
bool acceptsBf16BackwardWeight(Isa isa, const ConvShape& shape);

uint64_t bf16ForwardScratchBytes(Isa isa, const ConvShape& shape);
uint64_t bf16BackwardDataScratchBytes(Isa isa, const ConvShape& shape);
uint64_t bf16BackwardWeightScratchBytes(Isa isa, const ConvShape& shape);

// A non-null `bias` (one value per output channel of the pass) is added as
// each result is stored.
void bf16Forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
                 void* scratch, const float* bias = nullptr);
void bf16BackwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch, const float* bias = nullptr);
void bf16BackwardWeight(Isa isa, const ConvShape& shape, const float* x, const float* dy, float* dw,
                        void* scratch);

// The passes on the caller's dense 16-bit tensors of type shape.io (words;
// conv_passes.h, *Words): bf16 words for bf16 operands, half words for fp16
// operands (staged as hi/lo pairs). The weights (already operand values) as
// fp32. Forward and data gradient: each result (+ bias) rounded to shape.io
// once, nearest even, the same bits as the fp32 pass followed by that
// rounding; weight gradient: dw in fp32, as bf16BackwardWeight. False when a
// value is bf16Unsafe: the output is then incomplete, and the caller runs
// the fp32 pass instead. Scratch as for the fp32 passes.
bool bf16ForwardWords(Isa isa, const ConvShape& shape, const uint16_t* x, const float* w,
                      uint16_t* y, void* scratch, const float* bias);
bool bf16BackwardDataWords(Isa isa, const ConvShape& shape, const uint16_t* dy, const float* w,
                           uint16_t* dx, void* scratch, const float* bias);
bool bf16BackwardWeightWords(Isa isa, const ConvShape& shape, const uint16_t* x, const uint16_t* dy,
                             float* dw, void* scratch);
// The forward and data-gradient passes with the weights, too, as the
// caller's dense bf16 words [O, C, taps] (shape.io BF16 only: false
// otherwise, as for a bf16Unsafe value); the same bits as the passes above
// on those weights as fp32.
bool bf16ForwardWordWeights(Isa isa, const ConvShape& shape, const uint16_t* x, const uint16_t* w,
                            uint16_t* y, void* scratch, const float* bias);
bool bf16BackwardDataWordWeights(Isa isa, const ConvShape& shape, const uint16_t* dy,
                                 const uint16_t* w, uint16_t* dx, void* scratch, const float* bias);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
