// aclnnConvTbc: validated as convolution-forward.md section 5 says
// (conv_tbc_check.cpp), then run by the forward engine as a 1D convolution
// (stride 1, dilation 1, groups 1) on the caller's time-major views: no data
// is moved.

#include <new>

#include "aclnnop/aclnn_convolution.h"
#include "executor/executor.h"
#include "ops/common/conv_forward_executor.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/time_major_roles.h"
#include "ops/conv_forward/conv_forward_problem.h"
#include "ops/conv_tbc/conv_tbc_check.h"

using namespace aclcpu::ops;

namespace {

ConvForwardProblem normaliseTbc(const TbcArgs& a) {
  ConvForwardProblem p;
  p.outputEmpty = elementCount(a.output) == 0;
  // T = 0 or C_in = 0: every tap reads padding; the output is the bias.
  p.emptyReduction = !p.outputEmpty && (elementCount(a.self) == 0 || elementCount(a.weight) == 0);
  p.source = timeMajorRole(false, kForwardInput);
  p.weight = kernelMajorWeightRole(false, kForwardWeight);
  p.bias = identityRole(false, kForwardBias, 1);
  p.output = timeMajorRole(true, kForwardOutput);
  resolveForwardNumerics(a.self->dataType, a.weight->dataType, a.cubeMathType, &p);
  const auto& in = a.self->viewShape;
  const auto& w = a.weight->viewShape;
  aclcpu::kernels::ConvShape& s = p.shape;
  s.batch = in[1];
  s.inChannels = in[2];
  s.outChannels = w[2];
  s.groups = 1;
  s.in[2] = in[0];
  s.out[2] = a.output->viewShape[0];
  s.kernel[2] = w[0];
  s.padBefore[2] = a.pad;
  return p;
}

}  // namespace

aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor* self, const aclTensor* weight,
                                         const aclTensor* bias, const int64_t pad,
                                         aclTensor* output, int8_t cubeMathType,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  try {
    const TbcArgs args{self, weight, bias, pad, output, cubeMathType, workspaceSize, executor};
    const aclnnStatus status = checkConvTbc(args);
    if (status != kSuccess) return status;
    return finishConvForwardPhase1(kConvTbcForwardPhase1, kConvTbcForwardPhase2, normaliseTbc(args),
                                   {{self, "self"}, {weight, "weight"}, {bias, "bias"}}, {{output, "output"}}, workspaceSize, executor);
  } catch (const std::bad_alloc&) {
    return fail(kInnerNullptr, kConvTbcForwardPhase1, "out of host memory while planning");
  } catch (...) {
    return fail(kInner, kConvTbcForwardPhase1, "internal error while planning");
  }
}

aclnnStatus aclnnConvTbc(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return aclcpu::launchExecutor(kConvTbcForwardPhase2, workspace, workspaceSize, executor, stream);
}
