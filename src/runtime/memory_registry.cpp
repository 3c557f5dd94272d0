#include "runtime/memory_registry.h"

#include <cstdlib>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ACLCPU_POISON(address, size) ASAN_POISON_MEMORY_REGION(address, size)
#define ACLCPU_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION(address, size)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define ACLCPU_POISON(address, size) ASAN_POISON_MEMORY_REGION(address, size)
#define ACLCPU_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION(address, size)
#endif
#endif
#ifndef ACLCPU_POISON
#define ACLCPU_POISON(address, size) ((void)(address), (void)(size))
#define ACLCPU_UNPOISON(address, size) ((void)(address), (void)(size))
#endif

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

AllocationRegistry::BlockMap::iterator AllocationRegistry::findContaining(BlockMap& blocks,
                                                                          uintptr_t address) {
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin()) return blocks.end();
  --it;
  // A zero-size block cannot exist (aclrtMalloc rejects size 0).
  if (address - it->first < it->second.size) return it;
  return blocks.end();
}

void AllocationRegistry::quarantineLocked(uintptr_t start, const Block& block) {
  if (block.size > kQuarantineBytes) {
    std::free(reinterpret_cast<void*>(start));
    return;
  }
  // Under ASan a program's own use of quarantined memory still faults.
  ACLCPU_POISON(reinterpret_cast<void*>(start), block.size);
  freed_[start] = block;
  freedOrder_.push_back(start);
  freedBytes_ += block.size;
  while (freedOrder_.size() > kQuarantineBlocks || freedBytes_ > kQuarantineBytes) {
    const uintptr_t oldest = freedOrder_.front();
    freedOrder_.pop_front();
    auto it = freed_.find(oldest);
    freedBytes_ -= it->second.size;
    ACLCPU_UNPOISON(reinterpret_cast<void*>(oldest), it->second.size);
    freed_.erase(it);
    std::free(reinterpret_cast<void*>(oldest));
  }
}

AllocationRegistry::Removal AllocationRegistry::remove(void* block, MemoryKind kind,
                                                       size_t* offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t address = reinterpret_cast<uintptr_t>(block);
  auto it = findContaining(blocks_, address);
  if (it == blocks_.end())
    return findContaining(freed_, address) != freed_.end() ? Removal::kAlreadyFreed
                                                           : Removal::kUnknown;
  if (it->first != address) {
    *offset = address - it->first;
    return Removal::kInterior;
  }
  if (it->second.kind != kind) return Removal::kWrongKind;
  const Block removed = it->second;
  blocks_.erase(it);
  quarantineLocked(address, removed);
  return Removal::kRemoved;
}

bool AllocationRegistry::overruns(const void* address, size_t count, size_t* available) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t start = reinterpret_cast<uintptr_t>(address);
  auto it = findContaining(blocks_, start);
  if (it == blocks_.end()) return false;
  *available = it->second.size - (start - it->first);
  return count > *available;
}

AllocationRegistry::Lookup AllocationRegistry::lookup(const void* address) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  Lookup result;
  auto live = findContaining(blocks_, at);
  if (live != blocks_.end()) {
    result.state = Lookup::kLive;
    result.start = live->first;
    result.size = live->second.size;
    return result;
  }
  auto freed = findContaining(freed_, at);
  if (freed != freed_.end()) {
    result.state = Lookup::kFreed;
    result.start = freed->first;
    result.size = freed->second.size;
  }
  return result;
}

size_t AllocationRegistry::liveCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

}  // namespace aclcpu
