#include "layer_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "layer_tensors.h"
#include "reference_check.h"

namespace {

using Executor = std::unique_ptr<aclOpExecutor, aclnnStatus (*)(aclOpExecutor*)>;
using Workspace = std::unique_ptr<void, aclError (*)(void*)>;

RunResult withOutcome(RunResult result, RunOutcome outcome, int status, std::string message) {
  result.outcome = outcome;
  result.status = status;
  result.message = std::move(message);
  return result;
}

// Every tensor once, by the API name of its first use, in the calls' order.
std::vector<std::pair<std::string, Role>> allocationOrder(const LayerPlan& plan) {
  std::vector<std::pair<std::string, Role>> order;
  bool seen[kRoleCount] = {};
  for (const OpCall& call : plan.calls) {
    for (const OpCall::Argument& argument : call.arguments) {
      if (seen[static_cast<int>(argument.role)]) continue;
      seen[static_cast<int>(argument.role)] = true;
      order.push_back({argument.name, argument.role});
    }
  }
  return order;
}

std::string shapesOf(const OpCall& call, const LayerTensors& t) {
  std::string text;
  for (const OpCall::Argument& argument : call.arguments)
    if (argument.shown)
      text += (text.empty() ? "" : ", ") + argument.name + " " +
              shapeText(t.deviceShape(argument.role));
  return text;
}

bool injectError() {
  const char* value = std::getenv("ACLNN_CONV_INJECT_ERROR");
  return value && std::strcmp(value, "1") == 0;
}

// One call after phase 1: its executor and workspace.
struct Prepared {
  Executor executor{nullptr, aclDestroyAclOpExecutor};
  uint64_t workspaceSize = 0;
  Workspace workspace{nullptr, aclrtFree};
};

RunResult runChecked(const ProblemSpec& spec, const LayerPlan& plan, const RunOptions& options,
                     aclrtStream stream, RunObserver* observer) {
  std::mt19937 rng(options.seed);
  observer->stage("phase 1");
  LayerTensors tensors(spec, plan.layout, options.dtype);
  RunResult result;
  for (const OpCall& call : plan.calls) {
    PhaseResult phase;
    phase.phase = call.phase;
    phase.api = call.api;
    phase.shapes = shapesOf(call, tensors);
    phase.flops = call.flops;
    phase.algorithms = call.algorithms;
    result.phases.push_back(phase);
  }
  std::string error;
  if (!tensors.create(allocationOrder(plan), &error))
    return withOutcome(result, RunOutcome::kRefused, -1, error);

  std::vector<Prepared> prepared(plan.calls.size());
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    aclOpExecutor* raw = nullptr;
    const aclnnStatus status = plan.calls[c].phase1(tensors, &prepared[c].workspaceSize, &raw);
    if (status != 0) return withOutcome(result, RunOutcome::kRefused, status, recentMessage());
    aclSetAclOpExecutorRepeatable(raw);
    prepared[c].executor.reset(raw);
    result.phases[c].workspaceBytes = prepared[c].workspaceSize;
  }

  observer->stage("allocating");
  if (!tensors.allocate(allocationOrder(plan), &error))
    return withOutcome(result, RunOutcome::kOutOfMemory, 0, error);
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    const OpCall& call = plan.calls[c];
    aclOpExecutor* executor = prepared[c].executor.get();
    for (const auto& in : call.inputs) {
      if (aclSetInputTensorAddr(executor, in.first, tensors.tensor(in.second),
                                tensors.data(in.second)) != 0)
        return withOutcome(result, RunOutcome::kRuntimeError, 0,
                           "binding the buffers failed: " + recentMessage());
    }
    for (const auto& out : call.outputs) {
      if (aclSetOutputTensorAddr(executor, out.first, tensors.tensor(out.second),
                                 tensors.data(out.second)) != 0)
        return withOutcome(result, RunOutcome::kRuntimeError, 0,
                           "binding the buffers failed: " + recentMessage());
    }
    const uint64_t size = prepared[c].workspaceSize;
    if (size > 0) {
      void* raw = nullptr;
      const aclError status = aclrtMalloc(&raw, size, ACL_MEM_MALLOC_HUGE_FIRST);
      if (status != ACL_SUCCESS)
        return withOutcome(result, RunOutcome::kOutOfMemory, 0,
                           "aclrtMalloc of " + bytesText(size) + " for the workspace of " +
                               call.api + " failed (error " + std::to_string(status) +
                               "): " + recentMessage());
      prepared[c].workspace.reset(raw);
    }
  }

  observer->stage("preparing data");
  tensors.fillRandom(plan.randomInputs, rng);

  observer->stage("running");
  for (PhaseResult& phase : result.phases) phase.seconds = 1e30;
  result.stepSeconds = 1e30;
  const int repeats = std::max(1, options.repeats);
  observer->repetitionsDone(0, repeats);
  for (int r = 0; r < repeats; ++r) {
    double step = 0;
    for (size_t c = 0; c < plan.calls.size(); ++c) {
      const auto start = std::chrono::steady_clock::now();
      const aclnnStatus runStatus =
          plan.calls[c].phase2(prepared[c].workspace.get(), prepared[c].workspaceSize,
                               prepared[c].executor.get(), stream);
      const aclError syncStatus = aclrtSynchronizeStream(stream);
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (runStatus != 0 || syncStatus != ACL_SUCCESS)
        return withOutcome(result, RunOutcome::kRuntimeError, 0,
                           plan.calls[c].api + " phase 2 status " + std::to_string(runStatus) +
                               ", synchronize " + std::to_string(syncStatus) + ": " +
                               recentMessage());
      result.phases[c].seconds = std::min(result.phases[c].seconds, elapsed);
      step += elapsed;
    }
    result.stepSeconds = std::min(result.stepSeconds, step);
    observer->repetitionsDone(r + 1, repeats);
  }

  observer->stage("checking");
  CheckRequest request;
  for (const OpCall& call : plan.calls) {
    for (int o = 0; o < kOutputCount; ++o)
      request.outputs[o] = request.outputs[o] || call.check.outputs[o];
    request.forwardBias = request.forwardBias || call.check.forwardBias;
  }
  if (injectError()) {
    const Role roles[kOutputCount] = {Role::kY, Role::kDX, Role::kDW, Role::kDB};
    for (int o = 0; o < kOutputCount; ++o)
      if (request.outputs[o]) tensors.corruptFirstElement(roles[o]);
  }
  CheckResult check;
  try {
    check = checkOutputs(spec, options, tensors, request, rng);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // The reference refuses a problem the library accepted: a disagreement.
    return withOutcome(result, RunOutcome::kCheckFailed, 0,
                       std::string("the reference cannot check this problem: ") + e.what());
  }
  const double tolerance = toleranceFor(options.dtype, options.cubeMathType);
  bool pass = true;
  for (size_t c = 0; c < plan.calls.size(); ++c) {
    PhaseResult& phase = result.phases[c];
    phase.passed = true;
    for (int o = 0; o < kOutputCount; ++o) {
      if (!plan.calls[c].check.outputs[o]) continue;
      phase.checked[o] = check.checked[o];
      phase.maxError[o] = check.maxError[o];
      phase.passed = phase.passed && check.maxError[o] <= tolerance;
    }
    pass = pass && phase.passed;
  }
  result.outcome = pass ? RunOutcome::kPassed : RunOutcome::kCheckFailed;
  return result;
}

}  // namespace

RunResult runLayer(const ProblemSpec& spec, const LayerPlan& plan, const RunOptions& options,
                   aclrtStream stream, RunObserver* observer) {
  RunResult failed;
  try {
    return runChecked(spec, plan, options, stream, observer);
  } catch (const std::bad_alloc&) {
    return withOutcome(failed, RunOutcome::kOutOfMemory, 0,
                       "host memory ran out (random operands, downloads or the check)");
  } catch (const std::length_error&) {
    return withOutcome(failed, RunOutcome::kOutOfMemory, 0,
                       "host data larger than a vector can hold");
  }
}
