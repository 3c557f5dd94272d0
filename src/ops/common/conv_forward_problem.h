#pragma once
// The normalised forward convolution: what aclnnConvolution (normal and
// transposed), aclnnConvDepthwise2d and aclnnConvTbc all reduce to, and the
// only thing that crosses from their phase 1 to the shared forward executor.

#include "kernels/kernel_types.h"
#include "ops/common/conv_problem.h"

namespace aclcpu {
namespace ops {

struct ConvForwardProblem {
  // Normal orientation: y = conv(x, w). A transposed convolution is the data
  // gradient of the normal convolution whose x has the transposed output's
  // shape and whose y has its input's shape (transposedAsDataGrad).
  kernels::ConvShape shape;
  bool transposedAsDataGrad = false;

  TensorRole source;  // the tensor the kernel reads: x, or y's role when transposed
  TensorRole weight;
  TensorRole bias;    // optional: absent when present == false
  TensorRole output;  // x's role when transposed, else y's

  // Nothing to compute: the output has no elements.
  bool outputEmpty = false;
  // The reduction is empty but the output is not (ConvTbc with T = 0 or
  // C_in = 0): the output is the bias broadcast (project decision 9).
  bool emptyReduction = false;

  // Project decision 8: operands rounded to the compute dtype c (and HF32),
  // fp32 accumulation, the bias (rounded to fp16 when c is fp16) added to the
  // fp32 sum, one rounding to c, then the cast to the output's dtype.
  kernels::Rounding operandRounding = kernels::Rounding::None;
  kernels::Rounding biasRounding = kernels::Rounding::None;
  kernels::Rounding resultRounding = kernels::Rounding::None;
};

}  // namespace ops
}  // namespace aclcpu
