// The aclSet*TensorAddr family: point a repeatable executor's bound tensor at
// a new buffer. The address is written into the caller's aclTensor (as
// upstream does) and into the executor's own copy of the descriptor, which is
// what the next launch snapshots.
//
// Matching: every binding whose phase-1 handle is `tensor` is rebound (the
// same tensor may be bound more than once). If none matches, the plain
// variants fall back to `index`; the dynamic (tensor-list) variants require a
// match, because our executors bind list elements by handle only.

#include <cstddef>
#include <exception>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "executor/executor.h"
#include "executor/registry.h"

namespace {

enum class Side { kInput, kOutput, kEither };

const char* sideName(Side side) {
  switch (side) {
    case Side::kInput:
      return "input";
    case Side::kOutput:
      return "output";
    default:
      return "tensor";
  }
}

// Appends to `matches` the present bindings on `side` whose phase-1 handle is
// `tensor`.
void collectMatches(aclOpExecutor& executor, Side side, const aclTensor* tensor,
                    std::vector<aclOpExecutor::Binding*>* matches) {
  auto scan = [&](std::vector<aclOpExecutor::Binding>& bindings) {
    for (auto& binding : bindings) {
      if (binding.present && binding.original == tensor) matches->push_back(&binding);
    }
  };
  if (side != Side::kOutput) scan(executor.inputs);
  if (side != Side::kInput) scan(executor.outputs);
}

// The binding `index` names on `side` (inputs then outputs for kEither), or
// nullptr after recording why not.
aclOpExecutor::Binding* bindingAtIndex(const char* api, aclOpExecutor& executor, Side side,
                                       size_t index) {
  std::vector<aclOpExecutor::Binding>* bindings = nullptr;
  size_t position = index;
  size_t limit = 0;
  if (side == Side::kInput) {
    bindings = &executor.inputs;
    limit = executor.inputs.size();
  } else if (side == Side::kOutput) {
    bindings = &executor.outputs;
    limit = executor.outputs.size();
  } else {
    limit = executor.inputs.size() + executor.outputs.size();
    if (index < executor.inputs.size()) {
      bindings = &executor.inputs;
    } else {
      bindings = &executor.outputs;
      position = index - executor.inputs.size();
    }
  }
  if (index >= limit) {
    aclcpu::recordErrorf(
        "%s: argument index: expected an %s index below %zu for this executor (%s), got %zu", api,
        sideName(side), limit, executor.apiName, index);
    return nullptr;
  }
  aclOpExecutor::Binding& binding = (*bindings)[position];
  if (!binding.present) {
    aclcpu::recordErrorf(
        "%s: argument index: expected the index of a tensor passed at phase 1 of %s, got %zu, "
        "which was null there",
        api, executor.apiName, index);
    return nullptr;
  }
  return &binding;
}

bool executorPresent(const char* api, const aclOpExecutor* executor) {
  if (executor != nullptr) return true;
  aclcpu::recordErrorf("%s: argument executor: expected an executor from phase 1, got nullptr",
                       api);
  return false;
}

void recordNotLive(const char* api, const aclOpExecutor* executor) {
  aclcpu::recordErrorf(
      "%s: argument executor: expected a live executor, got %p, which was already run, "
      "destroyed or never created",
      api, static_cast<const void*>(executor));
}

// Under the registry lock: rebinds every binding of `tensor` on `side` (or,
// when none matches, the one `unmatched(live)` picks; it records why and
// returns nullptr when there is none) and writes `addr` into `tensor` too.
template <typename Unmatched>
aclnnStatus rebind(const char* api, Side side, aclOpExecutor* executor, aclTensor* tensor,
                   void* addr, Unmatched&& unmatched) {
  try {
    aclcpu::LockedExecutorRegistry registry;
    aclOpExecutor* live = registry.find(executor);
    if (live == nullptr) {
      recordNotLive(api, executor);
      return ACLNN_ERR_PARAM_INVALID;
    }
    std::vector<aclOpExecutor::Binding*> targets;
    collectMatches(*live, side, tensor, &targets);
    if (targets.empty()) {
      aclOpExecutor::Binding* fallback = unmatched(*live);
      if (fallback == nullptr) return ACLNN_ERR_PARAM_INVALID;
      targets.push_back(fallback);
    }
    for (aclOpExecutor::Binding* binding : targets) binding->tensor.data = addr;
    tensor->data = addr;
    return ACLNN_SUCCESS;
  } catch (const std::exception& error) {
    aclcpu::recordErrorf("%s: internal failure: %s", api, error.what());
    return ACLNN_ERR_INNER;
  }
}

aclnnStatus setTensorAddr(const char* api, Side side, aclOpExecutor* executor, size_t index,
                          aclTensor* tensor, void* addr) {
  if (!executorPresent(api, executor)) return ACLNN_ERR_INNER_NULLPTR;
  if (tensor == nullptr) {
    aclcpu::recordErrorf("%s: argument tensor: expected a non-null aclTensor, got nullptr", api);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  return rebind(api, side, executor, tensor, addr,
                [&](aclOpExecutor& live) { return bindingAtIndex(api, live, side, index); });
}

aclnnStatus setDynamicTensorAddr(const char* api, Side side, aclOpExecutor* executor,
                                 size_t irIndex, size_t relativeIndex, aclTensorList* tensors,
                                 void* addr) {
  if (!executorPresent(api, executor)) return ACLNN_ERR_INNER_NULLPTR;
  if (tensors == nullptr) {
    aclcpu::recordErrorf("%s: argument tensors: expected a non-null aclTensorList, got nullptr",
                         api);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  if (relativeIndex >= tensors->tensors.size()) {
    aclcpu::recordErrorf(
        "%s: argument relativeIndex: expected an index below the list size %zu, got %zu", api,
        tensors->tensors.size(), relativeIndex);
    return ACLNN_ERR_PARAM_INVALID;
  }
  aclTensor* tensor = tensors->tensors[relativeIndex];
  if (tensor == nullptr) {
    aclcpu::recordErrorf(
        "%s: argument tensors: expected a tensor at relativeIndex %zu, got a null element", api,
        relativeIndex);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  return rebind(api, side, executor, tensor, addr,
                [&](aclOpExecutor& live) -> aclOpExecutor::Binding* {
                  aclcpu::recordErrorf(
                      "%s: argument tensors: expected element %zu of dynamic %s %zu to be bound "
                      "by phase 1 of %s, got a tensor the executor does not use",
                      api, relativeIndex, sideName(side), irIndex, live.apiName);
                  return nullptr;
                });
}

}  // namespace

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return setTensorAddr("aclSetInputTensorAddr", Side::kInput, executor, index, tensor, addr);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return setTensorAddr("aclSetOutputTensorAddr", Side::kOutput, executor, index, tensor, addr);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  return setTensorAddr("aclSetTensorAddr", Side::kEither, executor, index, tensor, addr);
}

aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                         const size_t relativeIndex, aclTensorList* tensors,
                                         void* addr) {
  return setDynamicTensorAddr("aclSetDynamicInputTensorAddr", Side::kInput, executor, irIndex,
                              relativeIndex, tensors, addr);
}

aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                          const size_t relativeIndex, aclTensorList* tensors,
                                          void* addr) {
  return setDynamicTensorAddr("aclSetDynamicOutputTensorAddr", Side::kOutput, executor, irIndex,
                              relativeIndex, tensors, addr);
}

aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                    const size_t relativeIndex, aclTensorList* tensors,
                                    void* addr) {
  return setDynamicTensorAddr("aclSetDynamicTensorAddr", Side::kEither, executor, irIndex,
                              relativeIndex, tensors, addr);
}

// Legacy capital-A spellings.

aclnnStatus AclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return aclSetInputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return aclSetOutputTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  return aclSetTensorAddr(executor, index, tensor, addr);
}

aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                         const size_t relativeIndex, aclTensorList* tensors,
                                         void* addr) {
  return aclSetDynamicInputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                          const size_t relativeIndex, aclTensorList* tensors,
                                          void* addr) {
  return aclSetDynamicOutputTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor* executor, size_t irIndex,
                                    const size_t relativeIndex, aclTensorList* tensors,
                                    void* addr) {
  return aclSetDynamicTensorAddr(executor, irIndex, relativeIndex, tensors, addr);
}
