#include "ops/common/conv_executor.h"

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/convert/convert.h"
#include "ops/common/conv_geometry_checks.h"
#include "ops/common/executor_registration.h"
#include "ops/common/executor_views.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_views.h"
#include "ops/common/view_checks.h"

namespace aclcpu {
namespace ops {
namespace {

// Applies a first rounding in place so that the final store can apply the
// second: value -> first -> second -> output dtype.
void roundInPlace(float* data, int64_t count, kernels::Rounding first) {
  if (first == kernels::Rounding::None) return;
  parallelFor(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) data[i] = kernels::roundFloat(data[i], first);
  });
}

}  // namespace

RunAccess runAccess(const ConvBackwardProblem& p, size_t inputCount, size_t outputCount) {
  RunAccess access;
  access.inputs.assign(inputCount, false);
  access.outputs.assign(outputCount, false);
  auto mark = [&](const TensorRole& role, bool used) {
    if (!role.present || !used) return;
    std::vector<bool>& side = role.isOutput ? access.outputs : access.inputs;
    if (role.index >= 0 && static_cast<size_t>(role.index) < side.size())
      side[static_cast<size_t>(role.index)] = true;
  };
  // The same needs as planConvWorkspace: which operands each pass reads.
  const bool forwardForInput = p.computeGradInput && p.gradInputIsForward;
  const bool dataGradForInput = p.computeGradInput && !p.gradInputIsForward;
  if (!p.empty) {
    mark(p.x, p.computeGradWeight || forwardForInput);
    mark(p.dy, p.computeGradWeight || dataGradForInput);
    mark(p.w, p.computeGradInput);
  }
  mark(p.biasSource, p.computeGradBias);
  mark(p.gradInput, p.computeGradInput && (!p.empty || p.fillGradInputWhenEmpty));
  mark(p.gradWeight, p.computeGradWeight);
  mark(p.gradBias, p.computeGradBias);
  return access;
}

aclnnStatus ConvBackwardExecutor::run(const Bindings& inputs, const Bindings& outputs,
                                      void* workspace, uint64_t /*workspaceSize*/) const {
  try {
    char* ws = static_cast<char*>(workspace);
    auto view = [&](const TensorRole& role) { return boundView(role, inputs, outputs); };
    if (problem_.empty) {
      runEmpty(inputs, outputs, ws);
      return kSuccess;
    }
    const auto& p = problem_;
    // Operands: the caller's memory when it is already what the kernels
    // want (planned in phase 1), else an fp32 copy in the workspace.
    auto operand = [&](const TensorRole& role, bool inPlace, uint64_t offset) -> const float* {
      if (!role.present) return nullptr;
      return stageOperand(view(role), inPlace, p.operandRounding, ws, offset);
    };
    // x and dy are staged when a pass first needs them: a pass on 16-bit
    // words needs no fp32 copy of its operands.
    const float* w = nullptr;
    const float* x = nullptr;
    const float* dy = nullptr;
    auto stagedW = [&] { return w ? w : (w = operand(p.w, plan_.inPlace.w, plan_.w)); };
    auto stagedX = [&] { return x ? x : (x = operand(p.x, plan_.inPlace.x, plan_.x)); };
    auto stagedDy = [&] { return dy ? dy : (dy = operand(p.dy, plan_.inPlace.dy, plan_.dy)); };
    void* scratch = workspaceAt<char>(ws, plan_.scratch);

    // Results go straight into an output that is dense fp32, needs no
    // rounding and shares no byte with an input; else through the workspace.
    const ByteRange inputRanges[] = {byteRange(view(p.x)), byteRange(view(p.w)),
                                     byteRange(view(p.dy))};
    auto directTarget = [&](const kernels::View5& target, bool needsRounding) -> float* {
      return directResultTarget(target, needsRounding, inputRanges, 3);
    };

    // Every input is read before any output is written through a view that
    // might share its memory: the bias sums and both gradients first, then the
    // stores.
    if (p.computeGradBias && !plan_.gradBiasFromWeightPass) sumGradBias(inputs, outputs, ws);
    kernels::View5 gradInputTarget, gradWeightTarget;
    float* gradInputResult = nullptr;  // set when it still has to be stored
    float* gradWeightResult = nullptr;
    bool gradInputDone = false;
    if (p.computeGradInput && plan_.gradInputOnWords) {
      const kernels::View5 source = view(p.gradInputIsForward ? p.x : p.dy);
      gradInputDone =
          runOnAllWords(p.gradInputIsForward, p.shape, source, view(p.w), p.operandRounding,
                        view(p.gradInput), inputRanges, 3, nullptr, scratch) ||
          runOnWords(p.gradInputIsForward, p.shape, source, stagedW(), view(p.gradInput),
                     inputRanges, 3, nullptr, scratch);
    }
    if (p.computeGradInput && !gradInputDone) {
      gradInputTarget = view(p.gradInput);
      float* direct =
          directTarget(gradInputTarget, p.gradInputRounding != kernels::Rounding::None ||
                                            p.gradInputIntermediate != kernels::Rounding::None);
      float* result = direct ? direct : workspaceAt<float>(ws, plan_.gradInput);
      if (p.gradInputIsForward)
        kernels::convForward(p.shape, stagedX(), stagedW(), result, scratch);
      else
        kernels::convBackwardData(p.shape, stagedDy(), stagedW(), result, scratch);
      if (!direct) gradInputResult = result;
    }
    if (p.computeGradWeight) {
      gradWeightTarget = view(p.gradWeight);
      float* direct =
          directTarget(gradWeightTarget, p.gradWeightIntermediate != kernels::Rounding::None);
      float* result = direct ? direct : workspaceAt<float>(ws, plan_.gradWeight);
      auto words = [&](const TensorRole& role) {
        return static_cast<const uint16_t*>(view(role).data);
      };
      double* dySums =
          plan_.gradBiasFromWeightPass ? workspaceAt<double>(ws, plan_.biasSums) : nullptr;
      if (!plan_.gradWeightOnWords ||
          !kernels::convBackwardWeightWords(p.shape, words(p.x), words(p.dy), result, scratch,
                                            dySums))
        kernels::convBackwardWeight(p.shape, stagedX(), stagedDy(), result, scratch, dySums);
      if (!direct) gradWeightResult = result;
      if (plan_.gradBiasFromWeightPass) finishGradBias(ws);
    }
    if (gradInputResult) {
      if (p.gradInputIntermediate != kernels::Rounding::None) {
        roundInPlace(gradInputResult, elementCount(gradInputTarget), p.gradInputRounding);
        kernels::scatterFromFloat(gradInputResult, p.gradInputIntermediate, gradInputTarget);
      } else {
        kernels::scatterFromFloat(gradInputResult, p.gradInputRounding, gradInputTarget);
      }
    }
    if (gradWeightResult)
      kernels::scatterFromFloat(gradWeightResult, p.gradWeightIntermediate, gradWeightTarget);
    if (p.computeGradBias) storeGradBias(inputs, outputs, ws);
    return kSuccess;
  } catch (...) {
    return fail(kInner, apiName, "internal error while running the operator");
  }
}

void ConvBackwardExecutor::sumGradBias(const Bindings& inputs, const Bindings& outputs,
                                       char* ws) const {
  // gradBias comes from the original gradOutput (no operand rounding): summed
  // in double, rounded once to gradOutput's dtype (storeGradBias), then cast
  // to gradBias's.
  double* sums = workspaceAt<double>(ws, plan_.biasSums);
  const kernels::View5 source = boundView(problem_.biasSource, inputs, outputs);
  if (hasElements(source)) {
    kernels::channelSums(source, sums);
  } else {
    for (int64_t c = 0; c < plan_.biasChannels; ++c) sums[c] = 0.0;
  }
  finishGradBias(ws);
}

void ConvBackwardExecutor::finishGradBias(char* ws) const {
  const double* sums = workspaceAt<double>(ws, plan_.biasSums);
  float* values = workspaceAt<float>(ws, plan_.biasValues);
  const bool narrowAgain = problem_.biasRounding != kernels::Rounding::None;
  for (int64_t c = 0; c < plan_.biasChannels; ++c)
    values[c] = narrowAgain ? kernels::narrowRoundToOdd(sums[c]) : static_cast<float>(sums[c]);
}

void ConvBackwardExecutor::storeGradBias(const Bindings& inputs, const Bindings& outputs,
                                         char* ws) const {
  const kernels::View5 target = boundView(problem_.gradBias, inputs, outputs);
  if (hasElements(target))
    kernels::scatterFromFloat(workspaceAt<float>(ws, plan_.biasValues), problem_.biasRounding,
                              target);
}

void ConvBackwardExecutor::runEmpty(const Bindings& inputs, const Bindings& outputs,
                                    char* ws) const {
  // With an empty reduction the true gradInput and gradWeight are zero; the
  // bias gradient is still the real sum of gradOutput.
  auto view = [&](const TensorRole& role) { return boundView(role, inputs, outputs); };
  // A source without elements has zero sums for every channel, whatever the
  // length of gradBias (which phase 1 then accepts): it is zero-filled.
  const bool biasFromSums = problem_.computeGradBias && hasElements(view(problem_.biasSource));
  if (biasFromSums) sumGradBias(inputs, outputs, ws);
  if (problem_.computeGradInput && problem_.fillGradInputWhenEmpty) {
    const kernels::View5 target = view(problem_.gradInput);
    if (hasElements(target)) kernels::fillZero(target);
  }
  if (problem_.computeGradWeight) {
    const kernels::View5 target = view(problem_.gradWeight);
    if (hasElements(target)) kernels::fillZero(target);
  }
  if (biasFromSums) {
    storeGradBias(inputs, outputs, ws);
  } else if (problem_.computeGradBias) {
    const kernels::View5 target = view(problem_.gradBias);
    if (hasElements(target)) kernels::fillZero(target);
  }
}

aclnnStatus finishConvBackwardPhase1(const char* phase1Api, const char* phase2Api,
                                     const ConvBackwardProblem& problem, int64_t biasChannels,
                                     std::initializer_list<NamedTensor> inputs,
                                     std::initializer_list<NamedTensor> outputs,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  const std::vector<NamedTensor> inputTensors(inputs);
  const std::vector<NamedTensor> outputTensors(outputs);
  const RunAccess access = runAccess(problem, inputTensors.size(), outputTensors.size());
  // Every bound input (the run forms addresses from all of them) and every
  // output the run writes.
  std::vector<NamedTensor> written;
  for (size_t i = 0; i < outputTensors.size(); ++i)
    if (access.outputs[i]) written.push_back(outputTensors[i]);
  const aclnnStatus viewStatus = checkOperandViews(phase1Api, inputTensors, written);
  if (viewStatus != kSuccess) return viewStatus;
  if (!problem.empty) {
    const aclnnStatus geometryStatus = checkConvGeometryFits(phase1Api, problem.shape);
    if (geometryStatus != kSuccess) return geometryStatus;
  }

  // Operands already dense fp32 (and not rounded) are read in place; their
  // layout and dtype are fixed at phase 1, only addresses may be rebound.
  // With HF32 operand rounding, dense fp32 x and dy are read in place too
  // when the kernels round them as they read them.
  const bool kernelsRound =
      !problem.empty && kernelsRoundInputs(problem.operandRounding, problem.shape,
                                           problem.computeGradInput && problem.gradInputIsForward,
                                           problem.computeGradInput && !problem.gradInputIsForward,
                                           problem.computeGradWeight);
  const kernels::Rounding activationRounding =
      kernelsRound ? kernels::Rounding::None : problem.operandRounding;
  InPlaceOperands inPlace;
  if (!problem.empty) {
    inPlace.x = readableInPlace(problem.x, activationRounding, inputTensors);
    inPlace.w = readableInPlace(problem.w, problem.operandRounding, inputTensors);
    inPlace.dy = readableInPlace(problem.dy, activationRounding, inputTensors);
  }
  // The words paths are decided first: they are part of the kernels' job,
  // and so of the scratch they need. gradWeight's words must be of the type
  // gradInput's chose, if it chose one.
  ConvBackwardProblem planned = problem;
  // Staged copies are rounded already; rounding them again changes nothing.
  if (inPlace.x || inPlace.dy) planned.shape.inputRounding = problem.operandRounding;
  bool gradInputOnWords = false, gradWeightOnWords = false;
  auto inputView = [&](const TensorRole& role) {
    return roleView(role, *inputTensors[static_cast<size_t>(role.index)].tensor);
  };
  if (!problem.empty && problem.computeGradInput &&
      problem.gradInputIntermediate == kernels::Rounding::None) {
    gradInputOnWords = wordsPlanned(
        problem.gradInputIsForward, &planned.shape,
        inputView(problem.gradInputIsForward ? problem.x : problem.dy), problem.operandRounding,
        roleView(problem.gradInput,
                 *outputTensors[static_cast<size_t>(problem.gradInput.index)].tensor),
        problem.gradInputRounding);
  }
  if (!problem.empty && problem.computeGradWeight) {
    const kernels::View5 x = inputView(problem.x), dy = inputView(problem.dy);
    kernels::ConvShape words = planned.shape;
    words.io = x.type;
    gradWeightOnWords = (!gradInputOnWords || words.io == planned.shape.io) &&
                        readableAsWords(x, words.io, problem.operandRounding) &&
                        readableAsWords(dy, words.io, problem.operandRounding) &&
                        kernels::backwardWeightTakesWords(words);
    if (gradWeightOnWords) planned.shape = words;
  }
  ConvWorkspacePlan plan;
  if (!planConvWorkspace(planned, biasChannels, inPlace, &plan))
    return fail(kParamInvalid, phase1Api,
                "workspace: expected a size that fits in 64 bits for this problem");
  plan.gradInputOnWords = gradInputOnWords;
  plan.gradWeightOnWords = gradWeightOnWords;
  // The weight pass reads the caller's gradOutput values (in place, as
  // words, or staged without a rounding): its sums are channelSums'.
  plan.gradBiasFromWeightPass =
      !problem.empty && problem.computeGradBias && problem.computeGradWeight &&
      sameRole(problem.biasSource, problem.dy) && biasChannels == planned.shape.outChannels &&
      (inPlace.dy || gradWeightOnWords || problem.operandRounding == kernels::Rounding::None) &&
      kernels::backwardWeightSumsDy(planned.shape);
  return bindAndRegister(
      phase1Api, phase2Api, std::make_unique<ConvBackwardExecutor>(planned, plan), plan.totalBytes,
      inputTensors, access.inputs, outputTensors, access.outputs, workspaceSize, executor);
}

}  // namespace ops
}  // namespace aclcpu
