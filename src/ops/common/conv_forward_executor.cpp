#include "ops/common/conv_forward_executor.h"

#include <algorithm>
#include <vector>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/convert/convert.h"
#include "ops/common/conv_geometry_checks.h"
#include "ops/common/executor_registration.h"
#include "ops/common/executor_views.h"
#include "ops/common/op_status.h"
#include "ops/common/view_checks.h"

namespace aclcpu {
namespace ops {
namespace {

int64_t spatialCount(const int64_t (&extent)[3]) { return extent[0] * extent[1] * extent[2]; }

// [batch, channels, spatial] of the output in the kernels' dense layout.
struct OutputExtent {
  int64_t batch, channels, spatial;
};

OutputExtent outputExtent(const ConvForwardProblem& p) {
  const kernels::ConvShape& s = p.shape;
  if (p.transposedAsDataGrad) return {s.batch, s.inChannels, spatialCount(s.in)};
  return {s.batch, s.outChannels, spatialCount(s.out)};
}

// An empty reduction's result: each channel's bias (0 without one).
void fillChannelBias(float* result, const float* bias, const OutputExtent& e) {
  parallelFor(e.batch * e.channels, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row)
      std::fill(result + row * e.spatial, result + (row + 1) * e.spatial,
                bias ? bias[row % e.channels] : 0.0f);
  });
}

bool countOf(int64_t a, int64_t b, int64_t c, int64_t* out) {
  return checkedMul(a, b, out) && checkedMul(*out, c, out);
}

bool planForward(const ConvForwardProblem& p, bool sourceInPlace, bool weightInPlace,
                 ConvForwardPlan* plan) {
  *plan = ConvForwardPlan{};
  if (p.outputEmpty) return true;
  const kernels::ConvShape& s = p.shape;
  const OutputExtent e = outputExtent(p);
  WorkspaceAllocator space;
  if (p.bias.present) plan->bias = space.reserve(e.channels, sizeof(float));
  int64_t resultCount = 0;
  if (!countOf(e.batch, e.channels, e.spatial, &resultCount)) return false;
  if (!p.emptyReduction) {
    int64_t xCount = 0, yCount = 0, wCount = 0;
    if (!countOf(s.batch, s.inChannels, spatialCount(s.in), &xCount) ||
        !countOf(s.batch, s.outChannels, spatialCount(s.out), &yCount) ||
        !countOf(s.outChannels, s.inChannels / s.groups, spatialCount(s.kernel), &wCount))
      return false;
    plan->sourceInPlace = sourceInPlace;
    plan->weightInPlace = weightInPlace;
    if (!sourceInPlace)
      plan->source = space.reserve(p.transposedAsDataGrad ? yCount : xCount, sizeof(float));
    if (!weightInPlace) plan->weight = space.reserve(wCount, sizeof(float));
    const uint64_t scratch = p.transposedAsDataGrad ? kernels::backwardDataScratchBytes(s)
                                                    : kernels::forwardScratchBytes(s);
    if (scratch > 0) plan->scratch = space.reserve(static_cast<int64_t>(scratch), 1);
  }
  plan->result = space.reserve(resultCount, sizeof(float));
  plan->totalBytes = space.total();
  return space.ok();
}

}  // namespace

aclnnStatus ConvForwardExecutor::run(const Bindings& inputs, const Bindings& outputs,
                                     void* workspace, uint64_t /*workspaceSize*/) const {
  try {
    const ConvForwardProblem& p = problem_;
    if (p.outputEmpty) return kSuccess;
    char* ws = static_cast<char*>(workspace);
    auto view = [&](const TensorRole& role) { return boundView(role, inputs, outputs); };
    const OutputExtent extent = outputExtent(p);

    // Every input is read (the bias into the workspace, the operands by the
    // kernel) before the output is written through a view that may share
    // their memory; a direct store is only planned when nothing overlaps.
    float* bias = workspaceAt<float>(ws, plan_.bias);
    if (p.bias.present) kernels::gatherToFloat(view(p.bias), p.biasRounding, bias);

    const kernels::View5 target = view(p.output);
    ByteRange inputRanges[3];
    size_t inputCount = 0;
    for (const TensorRole* role : {&p.source, &p.weight, &p.bias})
      if (role->present) inputRanges[inputCount++] = byteRange(view(*role));
    float* direct = directResultTarget(target, p.resultRounding != kernels::Rounding::None,
                                       inputRanges, inputCount);
    float* result = direct ? direct : workspaceAt<float>(ws, plan_.result);

    // The bias joins the fp32 result before its one rounding (project
    // decision 8), added by the kernels as they store it.
    const float* channelBias = p.bias.present ? bias : nullptr;
    if (p.emptyReduction) {
      fillChannelBias(result, channelBias, extent);
    } else {
      void* scratch = workspaceAt<char>(ws, plan_.scratch);
      if (plan_.onWords &&
          runOnAllWords(!p.transposedAsDataGrad, p.shape, view(p.source), view(p.weight),
                        p.operandRounding, target, inputRanges, inputCount, channelBias, scratch))
        return kSuccess;
      const float* weight =
          stageOperand(view(p.weight), plan_.weightInPlace, p.operandRounding, ws, plan_.weight);
      if (plan_.onWords && runOnWords(!p.transposedAsDataGrad, p.shape, view(p.source), weight,
                                      target, inputRanges, inputCount, channelBias, scratch))
        return kSuccess;
      const float* source =
          stageOperand(view(p.source), plan_.sourceInPlace, p.operandRounding, ws, plan_.source);
      if (p.transposedAsDataGrad)
        kernels::convBackwardData(p.shape, source, weight, result, scratch, channelBias);
      else
        kernels::convForward(p.shape, source, weight, result, scratch, channelBias);
    }
    if (!direct) kernels::scatterFromFloat(result, p.resultRounding, target);
    return kSuccess;
  } catch (...) {
    return fail(kInner, apiName, "internal error while running the operator");
  }
}

aclnnStatus finishConvForwardPhase1(const char* phase1Api, const char* phase2Api,
                                    const ConvForwardProblem& problem,
                                    std::initializer_list<NamedTensor> inputs,
                                    std::initializer_list<NamedTensor> outputs,
                                    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const std::vector<NamedTensor> inputTensors(inputs);
  const std::vector<NamedTensor> outputTensors(outputs);
  // The run reads the operands (only the bias when the reduction is empty)
  // and writes the output, unless the output has no elements.
  const bool computes = !problem.outputEmpty && !problem.emptyReduction;
  std::vector<bool> inputsAccessed(inputTensors.size(), false);
  std::vector<bool> outputsAccessed(outputTensors.size(), !problem.outputEmpty);
  auto mark = [&](const TensorRole& role, bool used) {
    if (role.present && used && !role.isOutput && role.index >= 0 &&
        static_cast<size_t>(role.index) < inputsAccessed.size())
      inputsAccessed[static_cast<size_t>(role.index)] = true;
  };
  mark(problem.source, computes);
  mark(problem.weight, computes);
  mark(problem.bias, !problem.outputEmpty);
  std::vector<NamedTensor> written;
  for (size_t i = 0; i < outputTensors.size(); ++i)
    if (outputsAccessed[i]) written.push_back(outputTensors[i]);
  const aclnnStatus viewStatus = checkOperandViews(phase1Api, inputTensors, written);
  if (viewStatus != kSuccess) return viewStatus;
  if (computes) {
    const aclnnStatus geometryStatus = checkConvGeometryFits(phase1Api, problem.shape);
    if (geometryStatus != kSuccess) return geometryStatus;
  }

  // Operands already dense fp32 (and not rounded) are read in place; their
  // layout and dtype are fixed at phase 1, only addresses may be rebound.
  // With HF32 operand rounding, so is a dense fp32 source that the kernels
  // round as they read it.
  const bool kernelsRound = computes && kernelsRoundInputs(problem.operandRounding, problem.shape,
                                                           !problem.transposedAsDataGrad,
                                                           problem.transposedAsDataGrad, false);
  const bool sourceInPlace =
      computes && readableInPlace(problem.source,
                                  kernelsRound ? kernels::Rounding::None : problem.operandRounding,
                                  inputTensors);
  const bool weightInPlace =
      computes && readableInPlace(problem.weight, problem.operandRounding, inputTensors);
  // The words path is decided first: it is part of the kernels' job, and so
  // of the scratch they need.
  ConvForwardProblem planned = problem;
  if (sourceInPlace) planned.shape.inputRounding = problem.operandRounding;
  bool words = false;
  if (computes) {
    const kernels::View5 source =
        roleView(problem.source, *inputTensors[static_cast<size_t>(problem.source.index)].tensor);
    const kernels::View5 output =
        roleView(problem.output, *outputTensors[static_cast<size_t>(problem.output.index)].tensor);
    words = wordsPlanned(!problem.transposedAsDataGrad, &planned.shape, source,
                         problem.operandRounding, output, problem.resultRounding);
  }
  ConvForwardPlan plan;
  if (!planForward(planned, sourceInPlace, weightInPlace, &plan))
    return fail(kParamInvalid, phase1Api,
                "workspace: expected a size that fits in 64 bits for this problem");
  plan.onWords = words;
  return bindAndRegister(phase1Api, phase2Api, std::make_unique<ConvForwardExecutor>(planned, plan),
                         plan.totalBytes, inputTensors, inputsAccessed, outputTensors,
                         outputsAccessed, workspaceSize, executor);
}

}  // namespace ops
}  // namespace aclcpu
