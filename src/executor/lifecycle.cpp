// aclSetAclOpExecutorRepeatable and aclDestroyAclOpExecutor.

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "executor/executor.h"
#include "executor/registry.h"

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  static constexpr const char* kApi = "aclSetAclOpExecutorRepeatable";
  if (executor == nullptr) {
    aclcpu::recordErrorf("%s: argument executor: expected an executor from phase 1, got nullptr",
                         kApi);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  aclcpu::LockedExecutorRegistry registry;
  aclOpExecutor* live = registry.find(executor);
  if (live == nullptr) {
    // Upstream: an executor of a kind it does not recognise is an inner error.
    aclcpu::recordErrorf(
        "%s: argument executor: expected a live executor from phase 1, got %p, which was "
        "already run, destroyed or never created",
        kApi, static_cast<void*>(executor));
    return ACLNN_ERR_INNER;
  }
  live->repeatable = true;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  static constexpr const char* kApi = "aclDestroyAclOpExecutor";
  if (executor == nullptr) {
    aclcpu::recordErrorf("%s: argument executor: expected an executor from phase 1, got nullptr",
                         kApi);
    return ACLNN_ERR_INNER_NULLPTR;
  }
  // Taken out under the lock, freed after it; if a queued run still shares
  // the executor, that run frees it when it finishes.
  std::shared_ptr<aclOpExecutor> owner;
  {
    aclcpu::LockedExecutorRegistry registry;
    owner = registry.erase(executor);
  }
  if (!owner) {
    aclcpu::recordErrorf(
        "%s: argument executor: expected a live executor, got %p, which was already run, "
        "destroyed or never created",
        kApi, static_cast<void*>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}
