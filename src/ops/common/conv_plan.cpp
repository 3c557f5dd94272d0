#include "ops/common/conv_plan.h"

#include <algorithm>

#include "common/checked_math.h"
#include "kernels/conv/conv_passes.h"
#include "ops/common/workspace_allocator.h"

namespace aclcpu {
namespace ops {
namespace {

bool elementCounts(const kernels::ConvShape& s, int64_t* x, int64_t* w, int64_t* y) {
  int64_t inSpatial = 1, outSpatial = 1, kernelSpatial = 1;
  for (int d = 0; d < 3; ++d) {
    if (!checkedMul(inSpatial, s.in[d], &inSpatial) ||
        !checkedMul(outSpatial, s.out[d], &outSpatial) ||
        !checkedMul(kernelSpatial, s.kernel[d], &kernelSpatial))
      return false;
  }
  return checkedMul(s.batch, s.inChannels, x) && checkedMul(*x, inSpatial, x) &&
         checkedMul(s.outChannels, s.inChannels / s.groups, w) &&
         checkedMul(*w, kernelSpatial, w) && checkedMul(s.batch, s.outChannels, y) &&
         checkedMul(*y, outSpatial, y);
}

}  // namespace

bool planConvWorkspace(const ConvBackwardProblem& problem, int64_t biasChannels,
                       const InPlaceOperands& inPlace, ConvWorkspacePlan* plan) {
  *plan = ConvWorkspacePlan{};
  plan->biasChannels = biasChannels;
  plan->inPlace = inPlace;
  WorkspaceAllocator space;
  if (problem.computeGradBias) {
    plan->biasSums = space.reserve(biasChannels, sizeof(double));
    plan->biasValues = space.reserve(biasChannels, sizeof(float));
  }
  if (problem.empty) {
    plan->totalBytes = space.total();
    return space.ok();
  }

  int64_t xCount = 0, wCount = 0, yCount = 0;
  if (!elementCounts(problem.shape, &xCount, &wCount, &yCount)) return false;

  const bool forwardForInput = problem.computeGradInput && problem.gradInputIsForward;
  const bool dataGradForInput = problem.computeGradInput && !problem.gradInputIsForward;
  const bool needX = problem.computeGradWeight || forwardForInput;
  const bool needDy = problem.computeGradWeight || dataGradForInput;
  const bool needW = problem.computeGradInput;

  if (needX && !inPlace.x) plan->x = space.reserve(xCount, sizeof(float));
  if (needW && !inPlace.w) plan->w = space.reserve(wCount, sizeof(float));
  if (needDy && !inPlace.dy) plan->dy = space.reserve(yCount, sizeof(float));
  if (problem.computeGradInput)
    plan->gradInput = space.reserve(forwardForInput ? yCount : xCount, sizeof(float));
  if (problem.computeGradWeight) plan->gradWeight = space.reserve(wCount, sizeof(float));

  uint64_t scratchBytes = 0;
  if (forwardForInput)
    scratchBytes = std::max(scratchBytes, kernels::forwardScratchBytes(problem.shape));
  if (dataGradForInput)
    scratchBytes = std::max(scratchBytes, kernels::backwardDataScratchBytes(problem.shape));
  if (problem.computeGradWeight)
    scratchBytes = std::max(scratchBytes, kernels::backwardWeightScratchBytes(problem.shape));
  if (scratchBytes > 0) plan->scratch = space.reserve(static_cast<int64_t>(scratchBytes), 1);

  plan->totalBytes = space.total();
  return space.ok();
}

}  // namespace ops
}  // namespace aclcpu
