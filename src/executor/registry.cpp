#include "executor/registry.h"

#include <new>
#include <unordered_map>
#include <utility>

#include "common/error_log.h"

namespace aclcpu {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<uintptr_t, std::shared_ptr<aclOpExecutor>> live;  // keyed by handle
  uint64_t issued = 0;                                                 // handles so far
};

// Bits 63..48 of 0x0E5E... are neither all zero nor all one: no such address
// is mapped on x86-64 (or AArch64 with 48-bit VAs). 2^44 handles fit below.
constexpr uintptr_t kHandleBase = 0x0E5E000000000000ull;
constexpr uintptr_t kHandleSpacing = 16;

uintptr_t keyOf(const aclOpExecutor* handle) { return reinterpret_cast<uintptr_t>(handle); }

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
  auto found = live.find(keyOf(handle));
  return found == live.end() ? nullptr : found->second.get();
}

std::shared_ptr<aclOpExecutor> LockedExecutorRegistry::share(const aclOpExecutor* handle) const {
  auto& live = registry().live;
  auto found = live.find(keyOf(handle));
  return found == live.end() ? nullptr : found->second;
}

std::shared_ptr<aclOpExecutor> LockedExecutorRegistry::erase(const aclOpExecutor* handle) {
  auto& live = registry().live;
  auto found = live.find(keyOf(handle));
  if (found == live.end()) return nullptr;
  std::shared_ptr<aclOpExecutor> owner = std::move(found->second);
  live.erase(found);
  return owner;
}

aclOpExecutor* LockedExecutorRegistry::insert(std::shared_ptr<aclOpExecutor> executor) {
  Registry& r = registry();
  const uintptr_t key = kHandleBase + (r.issued + 1) * kHandleSpacing;
  r.live.emplace(key, std::move(executor));  // may throw: nothing issued then
  ++r.issued;
  return reinterpret_cast<aclOpExecutor*>(key);
}

aclOpExecutor* LockedExecutorRegistry::reinsert(const aclOpExecutor* handle,
                                                std::shared_ptr<aclOpExecutor> executor) {
  registry().live.emplace(keyOf(handle), std::move(executor));
  return const_cast<aclOpExecutor*>(handle);
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
