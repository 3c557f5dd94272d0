#pragma once
// The three convolution passes on dense fp32 buffers. Operand rounding has
// already been applied by the caller (see convert.h); products are exact for
// rounded operands and every sum is accumulated in fp32 in a fixed order, so
// results are bit-identical for any thread count.
//
// Layouts (row-major, see ConvShape):
//   x  [batch, inChannels, in...]      w [outChannels, inChannels/groups, kernel...]
//   y  [batch, outChannels, out...]
// Each pass overwrites its whole output. `scratch` is 64-byte aligned and at
// least the matching *ScratchBytes(shape) long; passes never touch the heap.
// Each pass runs the first algorithm of the registry (conv_registry.h) that
// takes the shape on the active ISA; size the scratch under the same ISA
// setting and thread count as the run.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {

uint64_t forwardScratchBytes(const ConvShape& shape);
uint64_t backwardDataScratchBytes(const ConvShape& shape);
uint64_t backwardWeightScratchBytes(const ConvShape& shape);

// Name of the algorithm each pass runs for `shape` on the active ISA ("none"
// when the pass has nothing to compute), for tools and benchmarks.
const char* forwardAlgorithmName(const ConvShape& shape);
const char* backwardDataAlgorithmName(const ConvShape& shape);
const char* backwardWeightAlgorithmName(const ConvShape& shape);

// y = conv(x, w) (+ bias[c] on channel c when `bias` is not null, added in
// fp32 as each result is stored: the forward operators' bias before their
// one rounding).
void convForward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
                 const float* bias = nullptr);

// dx = conv_transpose(dy, w), cropped to x's extent; positions no window
// touches get 0 (+ bias as above: a transposed forward convolution).
void convBackwardData(const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch, const float* bias = nullptr);

// The passes on the caller's dense 16-bit tensors [N, C, D, H, W] of type
// shape.io (BF16 or F16), for operand values of that type: the forward and
// data-gradient passes read their input (x, dy) and write their output (y,
// dx) as words, each result (+ bias) rounded to shape.io once, nearest even;
// the weight gradient reads x and dy as words and writes dw in fp32. No
// fp32 copy of the words is made, and the bits are those of the fp32 pass on
// the same values followed by that rounding. Only for shapes *TakesWords
// accepts (the pass's algorithm has such a run); false when the data needs
// the fp32 pass instead (the output is then incomplete). Scratch as for the
// fp32 pass.
bool forwardTakesWords(const ConvShape& shape);
bool backwardDataTakesWords(const ConvShape& shape);
bool backwardWeightTakesWords(const ConvShape& shape);
bool convForwardWords(const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                      void* scratch, const float* bias = nullptr);
bool convBackwardDataWords(const ConvShape& shape, const uint16_t* dy, const float* w, uint16_t* dx,
                           void* scratch, const float* bias = nullptr);
bool convBackwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy,
                             float* dw, void* scratch, double* dySums = nullptr);
// convForwardWords / convBackwardDataWords with the weights, too, as the
// caller's dense words of type shape.io ([O, C / G, taps]), for the
// algorithms that pack them without an fp32 copy; false where the pass's
// algorithm has no such run or the data needs another path (the caller then
// makes the fp32 weights and calls the run above). The same bits as it.
bool convForwardAllWords(const ConvShape& shape, const uint16_t* x, const uint16_t* w, uint16_t* y,
                         void* scratch, const float* bias = nullptr);
bool convBackwardDataAllWords(const ConvShape& shape, const uint16_t* dy, const uint16_t* w,
                              uint16_t* dx, void* scratch, const float* bias = nullptr);

// Whether the pass reads its inputs (x, dy) as the caller's raw fp32 values
// and rounds them itself when shape.inputRounding is HF32 (its algorithm
// does, or it reads no input); then the caller need not make rounded copies.
// The answer is the same whatever shape.inputRounding holds.
bool forwardRoundsInputs(const ConvShape& shape);
bool backwardDataRoundsInputs(const ConvShape& shape);
bool backwardWeightRoundsInputs(const ConvShape& shape);

// dw[co, ci, k] = sum over n, o of x[n, g*Cin/G + ci, o*stride - pad + k*dil] * dy[n, co, o]
// With dySums (only where backwardWeightSumsDy(shape)), also dySums[co] = the
// sum of dy[n, co, ...] with channelSums' bits (convert.h), summed as the
// pass reads dy; convBackwardWeightWords likewise.
void convBackwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                        void* scratch, double* dySums = nullptr);
bool backwardWeightSumsDy(const ConvShape& shape);

}  // namespace kernels
}  // namespace aclcpu
