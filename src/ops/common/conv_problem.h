#pragma once
// The normalised convolution-backward problem: the only thing that crosses
// from an operator's phase 1 (which validates and builds it) to the shared
// executor (which runs it on the kernels). ConvolutionBackward and
// ConvTbcBackward both reduce to it.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace ops {

// Where a tensor that plays a role in the normalised problem comes from: one
// of the executor's bindings, and which of its dims become the role's
// [N, C, spatial...] dims. A rank-1 tensor plays a channel vector [C].
struct TensorRole {
  bool present = false;
  bool isOutput = false;  // index into the executor's outputs, else inputs
  int index = 0;
  int rank = 0;
  int axes[5] = {0, 1, 2, 3, 4};  // axes[i]: the tensor dim that becomes role dim i
};

// The same view of the same binding (so the same values, element for element).
inline bool sameRole(const TensorRole& a, const TensorRole& b) {
  if (a.present != b.present || a.isOutput != b.isOutput || a.index != b.index || a.rank != b.rank)
    return false;
  for (int i = 0; i < 5; ++i)
    if (a.axes[i] != b.axes[i]) return false;
  return true;
}

struct ConvBackwardProblem {
  // Normal orientation: y = conv(x, w); dy has y's shape. A transposed
  // convolution is rewritten so that x is its gradOutput and dy its input.
  kernels::ConvShape shape;

  TensorRole x, w, dy;
  TensorRole biasSource;  // summed per channel for gradBias (the original gradOutput)
  TensorRole gradInput, gradWeight, gradBias;

  bool computeGradInput = false;
  bool computeGradWeight = false;
  bool computeGradBias = false;

  // gradInput of a transposed convolution is the forward conv(x, w) (it has
  // dy's shape); otherwise it is the data gradient of x.
  bool gradInputIsForward = false;

  // Empty path: no kernels; gradWeight is zero-filled when it has elements,
  // gradBias gets the true sums of biasSource, and gradInput is zero-filled
  // only when fillGradInputWhenEmpty (ConvolutionBackward never writes it
  // there: it is empty whenever its shape is consistent).
  bool empty = false;
  bool fillGradInputWhenEmpty = false;

  kernels::Rounding operandRounding = kernels::Rounding::None;    // cubeMathType emulation
  kernels::Rounding gradInputRounding = kernels::Rounding::None;  // to the operand dtype
  kernels::Rounding biasRounding = kernels::Rounding::None;       // to biasSource's dtype

  // Extra roundings before the final cast, for operators that pass results
  // through an intermediate dtype (ConvTbcBackward: input's and weight's).
  kernels::Rounding gradInputIntermediate = kernels::Rounding::None;
  kernels::Rounding gradWeightIntermediate = kernels::Rounding::None;
};

}  // namespace ops
}  // namespace aclcpu
