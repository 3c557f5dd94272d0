#pragma once
// The ordered list of convolution algorithms (oneDNN's implementation list):
// for each pass, the first entry that accepts the shape on the active ISA
// runs. Acceptance depends on the shape and the ISA only, never on the
// thread count; the generic entry (im2col + sgemm) is last and takes all.

#include <cstdint>

#include "kernels/cpu/cpu_info.h"
#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {

enum class ConvPass : uint8_t { Forward, BackwardData, BackwardWeight };

struct ConvAlgorithm {
  const char* name;  // dtype, pass, method, layout, ISA
  ConvPass pass;
  Isa minimumIsa;
  bool (*accepts)(const ConvShape& shape);
  uint64_t (*scratchBytes)(const ConvShape& shape);
  // Forward: (x, w) -> y; BackwardData: (dy, w) -> dx; BackwardWeight: (x, dy) -> dw.
  void (*run)(const ConvShape& shape, const float* a, const float* b, float* out, void* scratch);
  // The same, adding bias[c] to every output of channel c as it is stored
  // (forward and backward data only); null when the algorithm has no such
  // store step.
  void (*runWithBias)(const ConvShape& shape, const float* a, const float* b, const float* bias,
                      float* out, void* scratch) = nullptr;
  // Optional: the same pass on the caller's dense 16-bit tensors of type
  // shape.io (conv_passes.h, *Words), for the shapes `acceptsWords` takes;
  // false when the data needs the fp32 run instead (the output is then
  // incomplete). Forward and backward data: `a` and `out` as words, each
  // result (+ bias, may be null) rounded to shape.io once.
  bool (*acceptsWords)(const ConvShape& shape) = nullptr;
  bool (*runWords)(const ConvShape& shape, const uint16_t* a, const float* b, const float* bias,
                   uint16_t* out, void* scratch) = nullptr;
  // BackwardWeight's form: x and dy as words, dw in fp32.
  bool (*runWeightWords)(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch) = nullptr;
  // The fp32 runs take shape.inputRounding HF32: the inputs (x, dy) as the
  // caller's raw values, rounded as they are read.
  bool roundsHf32Inputs = false;
  // Optional: runWords with the weights, too, as the caller's dense words of
  // type shape.io ([O, C / G, taps]): no fp32 copy of them is made. False
  // also where the shape's words do not go this way (the caller then runs
  // runWords on fp32 weights).
  bool (*runAllWords)(const ConvShape& shape, const uint16_t* a, const uint16_t* b,
                      const float* bias, uint16_t* out, void* scratch) = nullptr;
  // Optional (BackwardWeight; both or neither): run and runWeightWords that
  // also sum dy per channel into dySums[c], with channelSums' bits
  // (convert.h) on the values they read: the bias gradient without a pass
  // over dy of its own.
  void (*runSummingDy)(const ConvShape& shape, const float* x, const float* dy, float* dw,
                       double* dySums, void* scratch) = nullptr;
  bool (*runWeightWordsSummingDy)(const ConvShape& shape, const uint16_t* x, const uint16_t* dy,
                                  float* dw, double* dySums, void* scratch) = nullptr;
};

// Runs `algorithm`, then (bias not null) makes out[n, c, ...] += bias[c]:
// in its store step where it has one, else as a pass over the output. The
// two give the same bits.
void runConvAlgorithm(const ConvAlgorithm& algorithm, const ConvShape& shape, const float* a,
                      const float* b, const float* bias, float* out, void* scratch);

// The algorithm for a non-empty problem (every extent and the reduction
// positive) on `isa`.
const ConvAlgorithm& selectConvAlgorithm(ConvPass pass, const ConvShape& shape, Isa isa);

// Every registered algorithm, in order (for testers and benchmarks).
int convAlgorithmCount();
const ConvAlgorithm& convAlgorithmAt(int index);

}  // namespace kernels
}  // namespace aclcpu
