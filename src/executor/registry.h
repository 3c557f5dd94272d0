#pragma once
// The set of live executor handles. A handle is not the executor's address
// but a number issued once per process (a 64-bit counter, spaced and placed in
// the non-canonical x86-64 address range so that a caller who dereferences it
// faults at once instead of corrupting memory). It is looked up, never
// dereferenced, so stale, destroyed or foreign handles are rejected safely,
// and a handle can never come to name a newer executor. The same lock guards the mutable state of live executors
// (the repeatable flag and the bindings), which the public API may change from
// any thread.

#include <memory>
#include <mutex>

#include "executor/executor.h"

namespace aclcpu {

// Holds the registry lock for its lifetime; keep it short and never call out
// to the runtime or run an executor while holding it (the allocation
// registry's lookup, a leaf lock, is the one exception). Destroy shared_ptrs
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

  // Adds an executor under a handle never issued before and returns it.
  aclOpExecutor* insert(std::shared_ptr<aclOpExecutor> executor);

  // Puts an executor taken out by erase() back under its old handle (a launch
  // that could not enqueue gives its one-shot executor back).
  aclOpExecutor* reinsert(const aclOpExecutor* handle, std::shared_ptr<aclOpExecutor> executor);

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace aclcpu
