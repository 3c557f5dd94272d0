// The two public entry points of aclnnConvolution (normal and transposed).

#include <new>

#include "aclnnop/aclnn_convolution.h"
#include "executor/executor.h"
#include "ops/common/conv_forward_executor.h"
#include "ops/common/op_status.h"
#include "ops/conv_forward/conv_forward_args.h"
#include "ops/conv_forward/conv_forward_problem.h"

using namespace aclcpu::ops;

aclnnStatus aclnnConvolutionGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                             const aclTensor* bias, const aclIntArray* stride,
                                             const aclIntArray* padding,
                                             const aclIntArray* dilation, bool transposed,
                                             const aclIntArray* outputPadding, const int64_t groups,
                                             aclTensor* output, int8_t cubeMathType,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  try {
    const ConvForwardArgs args{input,        weight,        bias,          stride, padding,
                               dilation,     transposed,    outputPadding, groups, output,
                               cubeMathType, workspaceSize, executor};
    const aclnnStatus status = checkConvForward(args);
    if (status != kSuccess) return status;
    const ConvForwardProblem problem = normaliseConvForward(args);
    return finishConvForwardPhase1(kConvForwardPhase1, kConvForwardPhase2, problem,
                                   {{input, "input"}, {weight, "weight"}, {bias, "bias"}}, {{output, "output"}}, workspaceSize, executor);
  } catch (const std::bad_alloc&) {
    return fail(kInnerNullptr, kConvForwardPhase1, "out of host memory while planning");
  } catch (...) {
    return fail(kInner, kConvForwardPhase1, "internal error while planning");
  }
}

aclnnStatus aclnnConvolution(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return aclcpu::launchExecutor(kConvForwardPhase2, workspace, workspaceSize, executor, stream);
}
