#pragma once
// The bf16 blocked direct convolution on AMX: forward and backward data of
// ungrouped problems, and the weight gradient of ungrouped stride-1 ones, whose operands are bf16
// values (OperandValues::BF16) or exact hi + lo sums of two (F16, HF32), on dense fp32 NCDHW
// buffers. Operands are staged as bf16 words (blocked_bf16_kernels.h), products are exact and sums
// are fp32, as on the NPU's cube unit. When an operand holds a value the hardware would not take
// exactly (bf16Unsafe: non-finite or below 2^-40), the pass runs the fp32 algorithm the registry
// has for it instead, so results never depend on the hardware's flush-to-zero.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

bool acceptsBf16Forward(const ConvShape& shape);
bool acceptsBf16BackwardData(const ConvShape& shape);
bool acceptsBf16BackwardWeight(const ConvShape& shape);

uint64_t bf16ForwardScratchBytes(const ConvShape& shape);
uint64_t bf16BackwardDataScratchBytes(const ConvShape& shape);
uint64_t bf16BackwardWeightScratchBytes(const ConvShape& shape);

void bf16Forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch);
void bf16BackwardData(const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch);
void bf16BackwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                        void* scratch);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
