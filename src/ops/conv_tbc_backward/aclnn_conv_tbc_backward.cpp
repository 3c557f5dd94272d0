// aclnnConvTbcBackward: conv_tbc's backward, run by the convolution-backward
// engine as a 1D convolution (stride 1) on time-major views. No data is
// moved: the roles simply read [T, B, C] tensors as [B, C, T] and the
// [K, C_in, C_out] weight as [C_out, C_in, K].

#include <new>

#include "aclnnop/aclnn_convolution_backward.h"
#include "ops/common/conv_executor.h"
#include "ops/common/cube_math.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_views.h"
#include "ops/common/time_major_roles.h"
#include "ops/conv_tbc_backward/conv_tbc_backward_check.h"

using namespace aclcpu::ops;

namespace {

enum TbcInput { kSelf = 0, kInput = 1, kWeight = 2, kBias = 3 };
enum TbcOutput { kGradInput = 0, kGradWeight = 1, kGradBias = 2 };

ConvBackwardProblem normaliseConvTbc(const ConvTbcBackwardArgs& a) {
  ConvBackwardProblem p;
  p.empty = elementCount(a.input) == 0 || elementCount(a.weight) == 0 || elementCount(a.bias) == 0;
  p.computeGradInput = p.computeGradWeight = p.computeGradBias = true;
  p.fillGradInputWhenEmpty = true;  // K == 0: the true gradInput is zero
  p.x = timeMajorRole(false, kInput);
  p.dy = timeMajorRole(false, kSelf);
  p.w = kernelMajorWeightRole(false, kWeight);
  p.biasSource = timeMajorRole(false, kSelf);
  p.gradInput = timeMajorRole(true, kGradInput);
  p.gradWeight = kernelMajorWeightRole(true, kGradWeight);
  p.gradBias = identityRole(true, kGradBias, 1);

  const aclDataType promoted =
      promoteConvTypes(a.self->dataType, a.input->dataType, a.weight->dataType);
  const OperandNumerics numerics = operandNumerics(promoted, a.cubeMathType);
  p.operandRounding = numerics.operand;
  p.shape.operands = aclcpu::kernels::operandValuesAfter(p.operandRounding);
  p.gradInputRounding = numerics.dataGrad;
  p.biasRounding = roundingTo(a.self->dataType);
  // Upstream produces gradInput in input's dtype and gradWeight in weight's
  // before copying them into the caller's outputs.
  p.gradInputIntermediate = roundingTo(a.input->dataType);
  p.gradWeightIntermediate = roundingTo(a.weight->dataType);

  const auto& in = a.input->viewShape;
  const auto& w = a.weight->viewShape;
  auto& s = p.shape;
  s.batch = in[1];
  s.inChannels = in[2];
  s.outChannels = w[2];
  s.groups = 1;
  s.in[2] = in[0];
  s.out[2] = a.self->viewShape[0];
  s.kernel[2] = w[0];
  s.padBefore[2] = a.pad;
  return p;
}

}  // namespace

aclnnStatus aclnnConvTbcBackwardGetWorkspaceSize(const aclTensor* self, const aclTensor* input,
                                                 const aclTensor* weight, const aclTensor* bias,
                                                 int64_t pad, int8_t cubeMathType,
                                                 aclTensor* gradInput, aclTensor* gradWeight,
                                                 aclTensor* gradBias, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  try {
    const ConvTbcBackwardArgs args{self,     input,         weight,    bias,
                                   pad,      cubeMathType,  gradInput, gradWeight,
                                   gradBias, workspaceSize, executor};
    const aclnnStatus status = checkConvTbcBackward(args);
    if (status != kSuccess) return status;
    const ConvBackwardProblem problem = normaliseConvTbc(args);
    return finishConvBackwardPhase1(
        kConvTbcPhase1, kConvTbcPhase2, problem, self->viewShape[2],
        {{self, "self"}, {input, "input"}, {weight, "weight"}, {bias, "bias"}},
        {{gradInput, "gradInput"}, {gradWeight, "gradWeight"}, {gradBias, "gradBias"}},
        workspaceSize, executor);
  } catch (const std::bad_alloc&) {
    return fail(kInnerNullptr, kConvTbcPhase1, "out of host memory while planning");
  } catch (...) {
    return fail(kInner, kConvTbcPhase1, "internal error while planning");
  }
}

aclnnStatus aclnnConvTbcBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 const aclrtStream stream) {
  return aclcpu::launchExecutor(kConvTbcPhase2, workspace, workspaceSize, executor, stream);
}
