#include "our_kernels.h"

#include "kernels/conv/conv_passes.h"
#include "kernels/kernel_types.h"

namespace peers {

OurKernels ourKernels(const ProblemSpec& spec, aclcpu::kernels::OperandValues operands) {
  // Normal orientation: for a transposed problem x is its gradOutput and y
  // its input; 1D and 2D occupy the trailing spatial slots.
  const auto x = spec.transposed ? spec.gradOutputShape() : spec.inputShape();
  const auto y = spec.transposed ? spec.inputShape() : spec.gradOutputShape();
  const auto w = spec.weightShape();
  const auto stride = spec.strideArray(), dilation = spec.dilationArray(),
             padding = spec.paddingArray();
  aclcpu::kernels::ConvShape shape;
  shape.operands = operands;
  // bf16 and fp16 operands are the bf16 and fp16 rows, whose tensors are
  // dense: the operators plan the words paths for them.
  if (operands == aclcpu::kernels::OperandValues::BF16) shape.io = aclcpu::kernels::ElementType::BF16;
  if (operands == aclcpu::kernels::OperandValues::F16) shape.io = aclcpu::kernels::ElementType::F16;
  shape.batch = x[0];
  shape.inChannels = x[1];
  shape.outChannels = w[0];
  shape.groups = spec.groups;
  const int dims = static_cast<int>(x.size()) - 2;
  for (int s = 0; s < dims; ++s) {
    const int slot = 3 - dims + s;
    shape.in[slot] = x[2 + s];
    shape.out[slot] = y[2 + s];
    shape.kernel[slot] = w[2 + s];
    shape.stride[slot] = stride[s];
    shape.dilation[slot] = dilation[s];
    shape.padBefore[slot] = spec.fourValuePadding ? padding[2 * s] : padding[s];
  }
  OurKernels k;
  k.data = spec.transposed ? aclcpu::kernels::forwardAlgorithmName(shape)
                           : aclcpu::kernels::backwardDataAlgorithmName(shape);
  k.weight = aclcpu::kernels::backwardWeightAlgorithmName(shape);
  k.forward = spec.transposed ? aclcpu::kernels::backwardDataAlgorithmName(shape)
                              : aclcpu::kernels::forwardAlgorithmName(shape);
  return k;
}

}  // namespace peers
