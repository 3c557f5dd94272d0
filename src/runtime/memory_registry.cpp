#include "runtime/memory_registry.h"

#include "runtime/no_destructor.h"

namespace aclcpu {

AllocationRegistry& AllocationRegistry::instance() {
  static NoDestructor<AllocationRegistry> registry;
  return registry.get();
}

void AllocationRegistry::add(void* block, size_t size, MemoryKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  blocks_[reinterpret_cast<uintptr_t>(block)] = Block{size, kind};
}

std::map<uintptr_t, AllocationRegistry::Block>::iterator AllocationRegistry::findContaining(
    uintptr_t address) {
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return blocks_.end();
  --it;
  // A zero-size block cannot exist (aclrtMalloc rejects size 0).
  if (address - it->first < it->second.size) return it;
  return blocks_.end();
}

AllocationRegistry::Removal AllocationRegistry::remove(void* block, MemoryKind kind,
                                                       size_t* offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t address = reinterpret_cast<uintptr_t>(block);
  auto it = findContaining(address);
  if (it == blocks_.end()) return Removal::kUnknown;
  if (it->first != address) {
    *offset = address - it->first;
    return Removal::kInterior;
  }
  if (it->second.kind != kind) return Removal::kWrongKind;
  blocks_.erase(it);
  return Removal::kRemoved;
}

bool AllocationRegistry::overruns(const void* address, size_t count, size_t* available) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t start = reinterpret_cast<uintptr_t>(address);
  auto it = findContaining(start);
  if (it == blocks_.end()) return false;
  *available = it->second.size - (start - it->first);
  return count > *available;
}

size_t AllocationRegistry::liveCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

}  // namespace aclcpu
