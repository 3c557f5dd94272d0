#pragma once
// aclOpExecutor: the plan built by an operator's phase 1 and run by phase 2.
//
// Lifecycle: phase 1 creates a concrete executor and registers it; phase 2
// (launchExecutor) checks the handle against the registry, snapshots the
// tensor bindings and enqueues the run on a stream. A one-shot executor is
// unregistered at launch and freed after its run; a repeatable one lives until
// aclDestroyAclOpExecutor. Stale or foreign handles are rejected, never
// dereferenced.

#include <cstdint>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"
#include "meta/meta_types.h"

struct aclOpExecutor {
  virtual ~aclOpExecutor() = default;

  // Copies of the tensor descriptors captured in phase 1, so callers may
  // destroy theirs. aclSet{Input,Output}TensorAddr rebinds these by index.
  // A null operand is represented by a tensor with data == nullptr and an
  // empty view shape, and `present` tells which ones exist.
  struct Binding {
    bool present = false;
    aclTensor tensor;
    const aclTensor* original = nullptr;  // caller's handle at phase 1, for matching only
    const char* name = nullptr;           // the argument's name, for messages ("input 0" if null)
    // Whether the run reads (input) or writes (output) this tensor's memory.
    // The launch checks the address of every accessed binding; one that is
    // bound but never touched (a masked-off output, ConvTbc's bias) may be null.
    bool accessed = true;
  };
  std::vector<Binding> inputs;
  std::vector<Binding> outputs;

  uint64_t workspaceSize = 0;
  bool repeatable = false;
  const char* apiName = "aclOpExecutor";  // the phase-2 API name, for messages

  // Runs the plan on the calling thread with the given bindings (a snapshot
  // taken at launch). Must not throw.
  virtual aclnnStatus run(const std::vector<Binding>& inputs, const std::vector<Binding>& outputs,
                          void* workspace, uint64_t workspaceSize) const = 0;
};

namespace aclcpu {

// Registers a freshly built executor and returns the handle for the caller.
// Returns nullptr (executor freed, message recorded) only if memory runs out.
aclOpExecutor* registerExecutor(std::unique_ptr<aclOpExecutor> executor);

// True if `executor` is a live registered handle.
bool isLiveExecutor(const aclOpExecutor* executor);

// Phase 2 for every operator: validates the handle (null: 161001; stale,
// already-run one-shot, destroyed, or planned by another operator than
// `apiName`: 161002), the workspace (smaller than phase 1 asked, or null with
// a non-zero size: 161002) and the addresses of the bindings
// (executor/launch_checks.h), then enqueues the run
// on `stream` and returns. Records a message naming `apiName` on failure; a
// stream the runtime refuses gives 361001 and leaves the executor launchable.
// The run's status becomes the stream's asynchronous result.
aclnnStatus launchExecutor(const char* apiName, void* workspace, uint64_t workspaceSize,
                           aclOpExecutor* executor, aclrtStream stream);

}  // namespace aclcpu
