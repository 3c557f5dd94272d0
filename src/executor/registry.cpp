#include "executor/registry.h"

#include <new>
#include <unordered_map>
#include <utility>

#include "common/error_log.h"

namespace aclcpu {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const aclOpExecutor*, std::shared_ptr<aclOpExecutor>> live;
};

// Never destroyed: executors still registered at exit (repeatable ones the
// program did not free) must not be torn down while stream workers may still
// reference the registry during static destruction.
Registry& registry() {
  static Registry* instance = new Registry;
  return *instance;
}

}  // namespace

LockedExecutorRegistry::LockedExecutorRegistry() : lock_(registry().mutex) {}

aclOpExecutor* LockedExecutorRegistry::find(const aclOpExecutor* handle) const {
  auto& live = registry().live;
  auto found = live.find(handle);
  return found == live.end() ? nullptr : found->second.get();
}

std::shared_ptr<aclOpExecutor> LockedExecutorRegistry::share(const aclOpExecutor* handle) const {
  auto& live = registry().live;
  auto found = live.find(handle);
  return found == live.end() ? nullptr : found->second;
}

std::shared_ptr<aclOpExecutor> LockedExecutorRegistry::erase(const aclOpExecutor* handle) {
  auto& live = registry().live;
  auto found = live.find(handle);
  if (found == live.end()) return nullptr;
  std::shared_ptr<aclOpExecutor> owner = std::move(found->second);
  live.erase(found);
  return owner;
}

aclOpExecutor* LockedExecutorRegistry::insert(std::shared_ptr<aclOpExecutor> executor) {
  aclOpExecutor* handle = executor.get();
  registry().live[handle] = std::move(executor);
  return handle;
}

aclOpExecutor* registerExecutor(std::unique_ptr<aclOpExecutor> executor) {
  if (!executor) return nullptr;
  try {
    std::shared_ptr<aclOpExecutor> owner(std::move(executor));
    return LockedExecutorRegistry().insert(std::move(owner));
  } catch (const std::bad_alloc&) {
    // The executor was freed on the way out; phase 1 reports the failure.
    recordError("registerExecutor: out of memory while registering an executor");
    return nullptr;
  }
}

bool isLiveExecutor(const aclOpExecutor* executor) {
  return executor != nullptr && LockedExecutorRegistry().find(executor) != nullptr;
}

}  // namespace aclcpu
