#include "kernel_names.h"

#include "kernels/conv/conv_passes.h"
#include "reference_check.h"

namespace {

using aclcpu::kernels::ConvShape;

// The problem in the kernel layer's normal orientation, lifted to 3D: a
// transposed convolution's gradOutput plays x and its input plays y.
// What the operand gather produces under the options' operand rounding (the
// reference's name for the same rule).
aclcpu::kernels::OperandValues operandValues(const RunOptions& options) {
  using aclcpu::kernels::OperandValues;
  using aclcpu::reference::OperandRounding;
  switch (operandRounding(options.dtype, options.cubeMathType)) {
    case OperandRounding::BF16:
      return OperandValues::BF16;
    case OperandRounding::F16:
      return OperandValues::F16;
    case OperandRounding::HF32:
      return OperandValues::HF32;
    case OperandRounding::None:
      break;
  }
  return OperandValues::F32;
}

ConvShape normalShape(const ProblemSpec& spec, const RunOptions& options) {
  const std::vector<int64_t> x = spec.transposed ? spec.gradOutputShape() : spec.inputShape();
  const std::vector<int64_t> y = spec.transposed ? spec.inputShape() : spec.gradOutputShape();
  ConvShape s;
  s.operands = operandValues(options);
  // The tool's tensors are dense: the operators plan the words paths when
  // the operand values are the tensors' own 16-bit values.
  if (options.dtype == ACL_BF16 && s.operands == aclcpu::kernels::OperandValues::BF16)
    s.io = aclcpu::kernels::ElementType::BF16;
  if (options.dtype == ACL_FLOAT16 && s.operands == aclcpu::kernels::OperandValues::F16)
    s.io = aclcpu::kernels::ElementType::F16;
  s.batch = x[0];
  s.inChannels = x[1];
  s.outChannels = y[1];
  s.groups = spec.groups;
  const int first = 3 - spec.spatialDims;
  for (int d = first; d < 3; ++d) {
    const size_t at = static_cast<size_t>(2 + d - first);
    s.in[d] = x[at];
    s.out[d] = y[at];
    s.kernel[d] = spec.kernel[d];
    s.stride[d] = spec.stride[d];
    s.dilation[d] = spec.dilation[d];
    s.padBefore[d] = spec.pad[d];
  }
  if (spec.fourValuePadding) {
    s.padBefore[1] = spec.pad4[0];
    s.padBefore[2] = spec.pad4[2];
  }
  return s;
}

}  // namespace

std::vector<PassAlgorithm> kernelAlgorithms(const ProblemSpec& spec, const bool mask[3],
                                            const RunOptions& options) {
  const ConvShape s = normalShape(spec, options);
  std::vector<PassAlgorithm> names;
  if (mask[0]) {
    names.push_back({"dX", spec.transposed ? aclcpu::kernels::forwardAlgorithmName(s)
                                           : aclcpu::kernels::backwardDataAlgorithmName(s)});
  }
  if (mask[1]) names.push_back({"dW", aclcpu::kernels::backwardWeightAlgorithmName(s)});
  return names;
}

std::vector<PassAlgorithm> forwardAlgorithms(const ProblemSpec& spec, const RunOptions& options) {
  const ConvShape s = normalShape(spec, options);
  return {{"y", spec.transposed ? aclcpu::kernels::backwardDataAlgorithmName(s)
                                : aclcpu::kernels::forwardAlgorithmName(s)}};
}
