// aclnnConvDepthwise2d: validated as convolution-forward.md section 4 says
// (conv_depthwise2d_check.cpp), then run by the forward engine as a 2D
// convolution with groups = C (output channel co reads input channel co / m,
// m = the channel multiplier).

#include <new>

#include "aclnnop/aclnn_convolution.h"
#include "executor/executor.h"
#include "ops/common/conv_forward_executor.h"
#include "ops/common/op_status.h"
#include "ops/conv_depthwise2d/conv_depthwise2d_check.h"
#include "ops/conv_forward/conv_forward_args.h"
#include "ops/conv_forward/conv_forward_problem.h"

using namespace aclcpu::ops;

aclnnStatus aclnnConvDepthwise2dGetWorkspaceSize(const aclTensor* self, const aclTensor* weight,
                                                 const aclIntArray* kernelSize,
                                                 const aclTensor* bias, const aclIntArray* stride,
                                                 const aclIntArray* padding,
                                                 const aclIntArray* dilation, aclTensor* out,
                                                 int8_t cubeMathType, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  try {
    const DepthwiseArgs args{self,     weight, kernelSize,   bias,          stride,  padding,
                             dilation, out,    cubeMathType, workspaceSize, executor};
    const aclnnStatus status = checkConvDepthwise2d(args);
    if (status != kSuccess) return status;
    // A grouped convolution with groups = C (section 2.2).
    const int64_t groups = self->viewShape[1] > 0 ? self->viewShape[1] : 1;
    const ConvForwardArgs forward{self,         weight,        bias,    stride, padding,
                                  dilation,     false,         nullptr, groups, out,
                                  cubeMathType, workspaceSize, executor};
    const ConvForwardProblem problem = normaliseConvForward(forward);
    return finishConvForwardPhase1(kDepthwisePhase1, kDepthwisePhase2, problem,
                                   {{self, "self"}, {weight, "weight"}, {bias, "bias"}}, {{out, "out"}}, workspaceSize, executor);
  } catch (const std::bad_alloc&) {
    return fail(kInnerNullptr, kDepthwisePhase1, "out of host memory while planning");
  } catch (...) {
    return fail(kInner, kDepthwisePhase1, "internal error while planning");
  }
}

aclnnStatus aclnnConvDepthwise2d(void* workspace, const uint64_t workspaceSize,
                                 aclOpExecutor* executor, aclrtStream stream) {
  return aclcpu::launchExecutor(kDepthwisePhase2, workspace, workspaceSize, executor, stream);
}
