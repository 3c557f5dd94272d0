#include "ops/conv_forward/conv_forward_problem.h"

#include "ops/common/conv_rules.h"
#include "ops/common/cube_math.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_views.h"

namespace aclcpu {
namespace ops {
namespace {

// [N, C, spatial...] of the tensor, read through its format letters.
TensorRole formatRole(const aclTensor* t, int index, bool isOutput) {
  const int r = static_cast<int>(t->viewShape.size());
  TensorRole role = identityRole(isOutput, index, r);
  for (int i = 0; i < r; ++i) role.axes[i] = physicalAxis(t, i);
  return role;
}

}  // namespace

void resolveForwardNumerics(aclDataType input, aclDataType weight, int8_t cubeMathType,
                            ConvForwardProblem* p) {
  const aclDataType promoted = promoteConvTypes(input, weight, weight);
  const aclDataType compute = cubeMathType == 2 ? ACL_FLOAT16 : promoted;
  p->operandRounding = operandNumerics(promoted, cubeMathType).operand;
  p->shape.operands = kernels::operandValuesAfter(p->operandRounding);
  p->resultRounding = roundingTo(compute);
  p->biasRounding = compute == ACL_FLOAT16 ? kernels::Rounding::F16 : kernels::Rounding::None;
}

ConvForwardProblem normaliseConvForward(const ConvForwardArgs& a) {
  ConvForwardProblem p;
  p.outputEmpty =
      elementCount(a.input) == 0 || elementCount(a.weight) == 0 || elementCount(a.output) == 0;
  p.transposedAsDataGrad = a.transposed;
  p.source = formatRole(a.input, kForwardInput, false);
  p.weight = formatRole(a.weight, kForwardWeight, false);
  if (a.bias) p.bias = identityRole(false, kForwardBias, 1);
  p.output = formatRole(a.output, kForwardOutput, true);
  resolveForwardNumerics(a.input->dataType, a.weight->dataType, a.cubeMathType, &p);
  if (p.outputEmpty) return p;

  const std::vector<int64_t> in = logicalDims(a.input), w = logicalDims(a.weight),
                             out = logicalDims(a.output);
  const int d = static_cast<int>(in.size()) - 2;
  const int lift = 3 - d;  // 1D and 2D occupy the trailing spatial slots
  kernels::ConvShape& s = p.shape;
  // Normal orientation: x is the input (transposed: the output), y the output
  // (transposed: the input); the weight is [y channels, x channels / G, k...].
  const std::vector<int64_t>& x = a.transposed ? out : in;
  const std::vector<int64_t>& y = a.transposed ? in : out;
  s.batch = in[0];
  s.inChannels = x[1];
  s.outChannels = w[0];
  s.groups = a.groups;
  for (int i = 0; i < d; ++i) {
    const int slot = lift + i;
    int64_t before = 0, after = 0;
    paddingOf(a.padding->values, d, i, &before, &after);
    s.in[slot] = x[2 + i];
    s.out[slot] = y[2 + i];
    s.kernel[slot] = w[2 + i];
    s.stride[slot] = a.stride->values[i];
    s.dilation[slot] = a.dilation->values[i];
    s.padBefore[slot] = before;
  }
  return p;
}

}  // namespace ops
}  // namespace aclcpu
