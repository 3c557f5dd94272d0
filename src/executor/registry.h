#pragma once
// The set of live executor handles. A handle is looked up by address and only
// dereferenced once found, so stale, destroyed or foreign pointers are
// rejected safely. The same lock guards the mutable state of live executors
// (the repeatable flag and the bindings), which the public API may change from
// any thread.

#include <memory>
#include <mutex>

#include "executor/executor.h"

namespace aclcpu {

// Holds the registry lock for its lifetime; keep it short and never call out
// to the runtime or run an executor while holding it. Destroy shared_ptrs
// obtained from erase() after the lock is released.
class LockedExecutorRegistry {
 public:
  LockedExecutorRegistry();

  // The live executor behind `handle`, or nullptr. Never dereferences `handle`.
  aclOpExecutor* find(const aclOpExecutor* handle) const;

  // Shared ownership of a live executor (empty if not live).
  std::shared_ptr<aclOpExecutor> share(const aclOpExecutor* handle) const;

  // Removes `handle` and returns its ownership (empty if it was not live).
  std::shared_ptr<aclOpExecutor> erase(const aclOpExecutor* handle);

  // Adds an executor and returns its handle.
  aclOpExecutor* insert(std::shared_ptr<aclOpExecutor> executor);

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace aclcpu
