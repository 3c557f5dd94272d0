// Phase 2 of every operator: validate the handle and the workspace, snapshot
// the bindings, enqueue the run on the stream and return.

#include <cstring>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "executor/executor.h"
#include "executor/launch_checks.h"
#include "executor/registry.h"
#include "runtime/stream_queue.h"

namespace aclcpu {
namespace {

// Everything a queued run needs. It shares ownership of the executor, so a
// repeatable executor destroyed while the run is queued stays alive until the
// run ends, and a one-shot executor is freed with the task.
struct QueuedRun {
  std::shared_ptr<aclOpExecutor> executor;
  std::vector<aclOpExecutor::Binding> inputs;
  std::vector<aclOpExecutor::Binding> outputs;
  void* workspace = nullptr;
  uint64_t workspaceSize = 0;
  bool oneShot = true;  // read under the registry lock, like every mutable field
};

// Validates under the registry lock and takes the snapshot. A one-shot
// executor leaves the registry here, so a second launch of it is rejected.
aclnnStatus prepareRun(const char* apiName, void* workspace, uint64_t workspaceSize,
                       aclOpExecutor* executor, QueuedRun* run) {
  LockedExecutorRegistry registry;
  aclOpExecutor* live = registry.find(executor);
  if (live == nullptr) {
    recordErrorf(
        "%s: argument executor: expected a live executor from phase 1, got %p, which was "
        "already run (one-shot), destroyed or never created",
        apiName, static_cast<void*>(executor));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (std::strcmp(live->apiName, apiName) != 0) {
    recordErrorf(
        "%s: argument executor: expected an executor from this operator's phase 1, got %p, "
        "which was planned for %s",
        apiName, static_cast<void*>(executor), live->apiName);
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (workspaceSize < live->workspaceSize) {
    recordErrorf(
        "%s: argument workspaceSize: expected at least %llu bytes (as phase 1 returned), got "
        "%llu",
        apiName, static_cast<unsigned long long>(live->workspaceSize),
        static_cast<unsigned long long>(workspaceSize));
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (workspace == nullptr && workspaceSize != 0) {
    recordErrorf(
        "%s: argument workspace: expected a buffer of %llu bytes, got nullptr with "
        "workspaceSize %llu",
        apiName, static_cast<unsigned long long>(live->workspaceSize),
        static_cast<unsigned long long>(workspaceSize));
    return ACLNN_ERR_PARAM_INVALID;
  }
  // The allocation registry's lock is a leaf: taking it here cannot deadlock.
  const aclnnStatus addresses =
      checkLaunchAddresses(apiName, live->inputs, live->outputs, workspace, workspaceSize);
  if (addresses != ACLNN_SUCCESS) return addresses;
  run->inputs = live->inputs;
  run->outputs = live->outputs;
  run->workspace = workspace;
  run->workspaceSize = workspaceSize;
  run->oneShot = !live->repeatable;
  run->executor = run->oneShot ? registry.erase(executor) : registry.share(executor);
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus launchExecutor(const char* apiName, void* workspace, uint64_t workspaceSize,
                           aclOpExecutor* executor, aclrtStream stream) {
  if (apiName == nullptr) apiName = "aclnn operator";
  if (executor == nullptr) {
    recordErrorf("%s: argument executor: expected the executor from phase 1, got nullptr", apiName);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  try {
    auto run = std::make_shared<QueuedRun>();
    const aclnnStatus status = prepareRun(apiName, workspace, workspaceSize, executor, run.get());
    if (status != ACLNN_SUCCESS) return status;

    const bool oneShot = run->oneShot;
    std::shared_ptr<aclOpExecutor> keep = run->executor;
    aclError queued = ACL_ERROR_BAD_ALLOC;
    try {
      queued = enqueueOnStream(stream, [run]() -> aclError {
        try {
          return run->executor->run(run->inputs, run->outputs, run->workspace, run->workspaceSize);
        } catch (...) {
          recordErrorf("%s: the executor threw while running", run->executor->apiName);
          return ACLNN_ERR_INNER;
        }
      });
    } catch (const std::exception& error) {
      recordErrorf("%s: internal failure while enqueueing: %s", apiName, error.what());
    }
    if (queued != ACL_SUCCESS) {
      // Nothing ran: give a one-shot executor back so that the caller can
      // launch it again on a valid stream, or destroy it.
      if (oneShot) LockedExecutorRegistry().reinsert(executor, std::move(keep));
      recordErrorf("%s: argument stream: could not enqueue the work (runtime status %d)", apiName,
                   static_cast<int>(queued));
      return ACLNN_ERR_RUNTIME_ERROR;
    }
    return ACLNN_SUCCESS;
  } catch (const std::exception& error) {
    recordErrorf("%s: internal failure while launching: %s", apiName, error.what());
    return ACLNN_ERR_INNER;
  }
}

}  // namespace aclcpu
