#include "ops/conv_backward/conv_backward_problem.h"

#include "ops/common/cube_math.h"
#include "ops/common/tensor_views.h"

namespace aclcpu {
namespace ops {
namespace {

int rankOf(const aclTensor* t) { return static_cast<int>(t->viewShape.size()); }

void fillShape(const ConvBackwardArgs& a, kernels::ConvShape* shape) {
  const aclTensor* x = a.transposed ? a.gradOutput : a.input;
  const aclTensor* y = a.transposed ? a.input : a.gradOutput;
  const int d = rankOf(a.input) - 2;
  const int lift = 3 - d;  // 1D and 2D occupy the trailing spatial slots
  shape->batch = x->viewShape[0];
  shape->inChannels = x->viewShape[1];
  shape->outChannels = a.weight->viewShape[0];
  shape->groups = a.groups;
  const auto& padding = a.padding->values;
  for (int s = 0; s < d; ++s) {
    const int slot = lift + s;
    shape->in[slot] = x->viewShape[2 + s];
    shape->out[slot] = y->viewShape[2 + s];
    shape->kernel[slot] = a.weight->viewShape[2 + s];
    shape->stride[slot] = a.stride->values[s];
    shape->dilation[slot] = a.dilation->values[s];
    // 4-value 2D padding is [top, bottom, left, right].
    shape->padBefore[slot] = (d == 2 && padding.size() == 4) ? padding[2 * s] : padding[s];
  }
}

}  // namespace

ConvBackwardProblem normaliseConvBackward(const ConvBackwardArgs& a, bool emptyPath) {
  ConvBackwardProblem p;
  const auto& mask = a.outputMask->values;
  p.empty = emptyPath;
  p.computeGradInput = mask[0];
  p.computeGradWeight = mask[1];
  p.computeGradBias = mask[2];
  p.gradInputIsForward = a.transposed;

  const int rank = rankOf(a.input);
  p.x = identityRole(false, a.transposed ? kGradOutput : kInput, rank);
  p.dy = identityRole(false, a.transposed ? kInput : kGradOutput, rank);
  p.w = identityRole(false, kWeight, rankOf(a.weight));
  p.biasSource = identityRole(false, kGradOutput, rankOf(a.gradOutput));
  if (a.gradInput) p.gradInput = identityRole(true, kGradInput, rankOf(a.gradInput));
  if (a.gradWeight) p.gradWeight = identityRole(true, kGradWeight, rankOf(a.gradWeight));
  if (a.gradBias) p.gradBias = identityRole(true, kGradBias, 1);

  const aclDataType promoted =
      promoteConvTypes(a.gradOutput->dataType, a.input->dataType, a.weight->dataType);
  const OperandNumerics numerics = operandNumerics(promoted, a.cubeMathType);
  p.operandRounding = numerics.operand;
  p.gradInputRounding = numerics.dataGrad;
  p.biasRounding = roundingTo(a.gradOutput->dataType);

  if (!emptyPath) fillShape(a, &p.shape);
  p.shape.operands = kernels::operandValuesAfter(p.operandRounding);
  return p;
}

}  // namespace ops
}  // namespace aclcpu
