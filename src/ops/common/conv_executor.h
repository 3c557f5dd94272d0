#pragma once
// The executor shared by the convolution-backward operators: runs a
// ConvBackwardProblem on the kernels, inside the workspace laid out by the
// plan.

#include <memory>
#include <vector>

#include "executor/executor.h"
#include "ops/common/conv_plan.h"
#include "ops/common/conv_problem.h"
#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {

class ConvBackwardExecutor : public aclOpExecutor {
 public:
  ConvBackwardExecutor(const ConvBackwardProblem& problem, const ConvWorkspacePlan& plan)
      : problem_(problem), plan_(plan) {}

  aclnnStatus run(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                  void* workspace, uint64_t workspaceSize) const override;

 private:
  void runEmpty(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                char* workspace) const;
  void sumGradBias(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                   char* workspace) const;
  // gradBias's values from the channel sums in the workspace.
  void finishGradBias(char* ws) const;
  void storeGradBias(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                     char* workspace) const;

  ConvBackwardProblem problem_;
  ConvWorkspacePlan plan_;
};

// Which bindings a run of `problem` reads (inputs) or writes (outputs).
struct RunAccess {
  std::vector<bool> inputs;
  std::vector<bool> outputs;
};
RunAccess runAccess(const ConvBackwardProblem& problem, size_t inputCount, size_t outputCount);

// The common end of phase 1, after the operator's own checks: applies the
// shared view rules (ops/common/view_checks.h) to every bound input and every
// output the run writes, lays out the workspace for `problem` (whose bias
// source has `biasChannels` channels), binds copies of the tensors (null
// entries stay absent; each binding says whether the run touches its memory,
// for the launch's address checks), registers the executor and hands it and
// its workspace size to the caller. Fails with 161002 when a view rule fails
// or the workspace size overflows.
aclnnStatus finishConvBackwardPhase1(const char* phase1Api, const char* phase2Api,
                                     const ConvBackwardProblem& problem, int64_t biasChannels,
                                     std::initializer_list<NamedTensor> inputs,
                                     std::initializer_list<NamedTensor> outputs,
                                     uint64_t* workspaceSize, aclOpExecutor** executor);

}  // namespace ops
}  // namespace aclcpu
