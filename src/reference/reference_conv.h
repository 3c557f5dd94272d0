#pragma once
// Float64 reference convolution: plain loops straight from the definitions,
// written independently of the optimised engine (no shared code with
// src/kernels or src/ops) so that it can serve as the tests' oracle.

#include <cstdint>
#include <functional>
#include <vector>

namespace aclcpu {
namespace reference {

// How an fp32 operand is rounded before use, as the NPU's cubeMathType does.
enum class OperandRounding { None, HF32, F16, BF16 };

// Rounds v (an fp32 value) per the rule; an independent implementation of the
// same bit rules the engine uses (HF32: 11 mantissa bits, ties away from zero,
// NaN/Inf unchanged; F16/BF16: nearest even, fp16 overflow to inf).
double roundOperand(float v, OperandRounding rounding);

// A convolution exactly as aclnnConvolutionBackward receives it.
//   spatialDims 1, 2 or 3.
//   Not transposed: input [N, Cin, in...], weight [Cout, Cin/G, k...],
//                   gradOutput [N, Cout, out...].
//   Transposed:     input [N, Cti, in...], weight [Cti, Cto/G, k...],
//                   gradOutput [N, Cto, out...].
//   padding: padBefore/padAfter per spatial dim (4-value 2D padding
//   [top, bottom, left, right] becomes before = {top, left}, after = {bottom, right}).
//   outputPadding never affects the gradients and is not needed here.
struct ConvParams {
  int spatialDims = 2;
  bool transposed = false;
  int64_t groups = 1;
  std::vector<int64_t> inputShape;                             // rank spatialDims + 2
  std::vector<int64_t> weightShape;                            // rank spatialDims + 2
  std::vector<int64_t> gradOutputShape;                        // rank spatialDims + 2
  std::vector<int64_t> stride, dilation, padBefore, padAfter;  // spatialDims each
};

struct Gradients {
  std::vector<double> gradInput;   // input's shape
  std::vector<double> gradWeight;  // weight's shape
  std::vector<double> gradBias;    // [Cout] (transposed: [weight[1] * G])
};

// The three true gradients, in float64, from dense row-major operands.
Gradients convolutionBackward(const ConvParams& params, const std::vector<double>& gradOutput,
                              const std::vector<double>& input, const std::vector<double>& weight);

// Forward of the same convolution: y = conv(input, weight) when not
// transposed, conv_transpose(input, weight) when transposed; y has
// gradOutputShape. Used for the adjoint identity <y, dy> = <x, dX> = <w, dW>.
std::vector<double> convolutionForward(const ConvParams& params, const std::vector<double>& input,
                                       const std::vector<double>& weight);

// Every convolution function here throws std::invalid_argument (with a message naming the
// inconsistency) when the params, the operand sizes or an index do not fit
// together; the reference is for tests and tools, never behind the C API.
// padAfter is not read: the gradOutput extent fixes the output positions, and
// any extent works (input positions no window touches get gradient 0).

// Reads element `flatIndex` (row-major in the operand's own shape) as a double.
// Lets a tool check a big problem at sampled positions straight from its own
// buffers, without first copying every operand into float64.
using ElementReader = std::function<double(int64_t flatIndex)>;

// Single gradient elements, each computed on its own by gathering straight
// from the definitions (a different formulation from the full functions
// above, which scatter). Cost: gradInputAt ~ (Cout/G)*kernel,
// gradWeightAt and gradBiasAt ~ N*spatial(gradOutput or input).
//   inputIndex:  flat index into inputShape.
//   weightIndex: flat index into weightShape.
//   channel:     index into gradBias (gradOutput channel).
double gradInputAt(const ConvParams& params, const ElementReader& gradOutput,
                   const ElementReader& input, const ElementReader& weight, int64_t inputIndex);
double gradWeightAt(const ConvParams& params, const ElementReader& gradOutput,
                    const ElementReader& input, const ElementReader& weight, int64_t weightIndex);
double gradBiasAt(const ConvParams& params, const ElementReader& gradOutput, int64_t channel);

// The same on dense row-major float64 operands (sizes are checked).
double gradInputAt(const ConvParams& params, const std::vector<double>& gradOutput,
                   const std::vector<double>& input, const std::vector<double>& weight,
                   int64_t inputIndex);
double gradWeightAt(const ConvParams& params, const std::vector<double>& gradOutput,
                    const std::vector<double>& input, const std::vector<double>& weight,
                    int64_t weightIndex);
double gradBiasAt(const ConvParams& params, const std::vector<double>& gradOutput, int64_t channel);

// Number of elements of a shape (throws on a negative dim or 64-bit overflow).
int64_t elementCount(const std::vector<int64_t>& shape);

}  // namespace reference
}  // namespace aclcpu
