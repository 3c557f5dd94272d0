#pragma once
// The channel-blocked direct convolution (16-channel blocks, AVX-512 or AVX2): the
// three passes on dense fp32 NCDHW buffers, staged through the workspace.
// accepts*() say which shapes it takes; the run functions need scratch of
// scratchBytes*() and must only be called for accepted shapes.

#include <cstdint>

#include "kernels/cpu/cpu_info.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

enum class Channels : uint8_t { Dense, Depthwise };

bool acceptsForward(const ConvShape& shape, Channels kind);
bool acceptsBackwardData(const ConvShape& shape, Channels kind);
bool acceptsBackwardWeight(const ConvShape& shape, Channels kind);

uint64_t forwardScratchBytes(const ConvShape& shape);
uint64_t backwardDataScratchBytes(const ConvShape& shape);
uint64_t backwardWeightScratchBytes(const ConvShape& shape);

// Run with the micro-kernels of `isa` (Avx2 or Avx512; the same arithmetic,
// bit for bit). A non-null `bias` (one value per output channel of the pass)
// is added as each result is stored.
void forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
             void* scratch, const float* bias = nullptr);
void backwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                  void* scratch, const float* bias = nullptr);
void backwardWeight(Isa isa, const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch);

// The AVX-512 passes on the caller's dense 16-bit tensors of type shape.io
// (conv_passes.h, *Words): staged as fp32, products exact in fp32 for bf16
// and half values, so the bits are those of the fp32 passes on the same
// values (followed by the one rounding to shape.io of y and dx), for any
// value.
void forwardWords(const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                  void* scratch, const float* bias);
void backwardDataWords(const ConvShape& shape, const uint16_t* dy, const float* w, uint16_t* dx,
                       void* scratch, const float* bias);
void backwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch);

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
