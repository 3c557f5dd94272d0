#pragma once
// Expected gradients with a rigorous per-element error bound, from the
// float64 reference (src/reference) fed with operands rounded as the spec's
// numerics say (convolution-backward.md 6.2, project decision 7).
//
// Tolerance model, per output element with reference value r (exact sum of
// the rounded operands' products) and S = the same sum over |operands|:
//   accumulation:  e0 = (n + 2) * 2^-24 * S,  n = number of products summed
//     (fp32 accumulation in any order costs at most (n - 1) ulps of S, an
//     unrounded fp32 x fp32 product one more; HF32/fp16/bf16 products are
//     exact in fp32; +1 slack)
//   then one term per rounding the result passes through, in order:
//     e_{i+1} = e_i + h(T) * (|r| + e_i) + q(T)
//     with h = half an ulp relative (fp32 2^-24, bf16 2^-8, fp16 2^-11) and
//     q = half the smallest subnormal (fp16 2^-25, others negligible 2^-134).
//   gradInput:  the operand dtype (fp16 for cubeMathType 2, else the promoted
//               dtype when it is fp16/bf16), then gradInput's dtype.
//   gradWeight: fp32 kernel result, then gradWeight's dtype.
//   gradBias:   r = true sum of the ORIGINAL gradOutput (no operand rounding),
//               then gradOutput's dtype, then gradBias's dtype.

#include <string>
#include <vector>

#include "numerics/conv_case.h"

namespace numerics {

struct ElementBounds {
  std::vector<double> value;
  std::vector<double> tolerance;
};

struct ConvExpectation {
  ElementBounds gradInput, gradWeight, gradBias;
};

// Which rounding the spec applies to every operand of this case.
aclcpu::reference::OperandRounding operandRoundingOf(DType gradOutput, DType input, DType weight,
                                                     int8_t cubeMathType);
// The dtype dX is produced in before the final cast (fp32 covers HF32).
DType dataGradDtypeOf(DType gradOutput, DType input, DType weight, int8_t cubeMathType);

std::vector<double> roundOperands(const std::vector<double>& values,
                                  aclcpu::reference::OperandRounding rounding);

double accumulationBound(int64_t terms, double absSum);
double afterRounding(DType target, double value, double bound);

ConvExpectation expectConvolutionBackward(const ConvCase& c, const std::vector<double>& gradOutput,
                                          const std::vector<double>& input,
                                          const std::vector<double>& weight);

// "" when every view element of `got` is within its bound, else a message
// naming the count and the first few offenders.
std::string compareOutput(const char* name, const HostTensor& got, const ElementBounds& expected);

}  // namespace numerics
