// The two public entry points of aclnnConvolutionBackward.

#include "aclnnop/aclnn_convolution_backward.h"

#include <new>

#include "ops/common/conv_executor.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/conv_backward/conv_backward_args.h"
#include "ops/conv_backward/conv_backward_problem.h"

using namespace aclcpu::ops;

aclnnStatus aclnnConvolutionBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* weight,
    const aclIntArray* biasSizes, const aclIntArray* stride, const aclIntArray* padding,
    const aclIntArray* dilation, bool transposed, const aclIntArray* outputPadding, int groups,
    const aclBoolArray* outputMask, int8_t cubeMathType, aclTensor* gradInput,
    aclTensor* gradWeight, aclTensor* gradBias, uint64_t* workspaceSize, aclOpExecutor** executor) {
  try {
    const ConvBackwardArgs args{gradOutput,    input,        weight,     biasSizes,     stride,
                                padding,       dilation,     transposed, outputPadding, groups,
                                outputMask,    cubeMathType, gradInput,  gradWeight,    gradBias,
                                workspaceSize, executor};
    bool emptyPath = false;
    const aclnnStatus status = checkConvBackward(args, &emptyPath);
    if (status != kSuccess) return status;

    const ConvBackwardProblem problem = normaliseConvBackward(args, emptyPath);
    // An empty gradOutput has all-zero channel sums whatever gradBias's
    // length (the empty path then zero-fills gradBias), so no sums are planned.
    const int64_t biasChannels = elementCount(gradOutput) == 0 ? 0 : gradOutput->viewShape[1];
    return finishConvBackwardPhase1(
        kConvBackwardPhase1, kConvBackwardPhase2, problem, biasChannels,
        {{gradOutput, "gradOutput"}, {input, "input"}, {weight, "weight"}},
        {{gradInput, "gradInput"}, {gradWeight, "gradWeight"}, {gradBias, "gradBias"}},
        workspaceSize, executor);
  } catch (const std::bad_alloc&) {
    return fail(kInnerNullptr, kConvBackwardPhase1, "out of host memory while planning");
  } catch (...) {
    return fail(kInner, kConvBackwardPhase1, "internal error while planning");
  }
}

aclnnStatus aclnnConvolutionBackward(void* workspace, uint64_t workspaceSize,
                                     aclOpExecutor* executor, const aclrtStream stream) {
  return aclcpu::launchExecutor(kConvBackwardPhase2, workspace, workspaceSize, executor, stream);
}
