#pragma once
// Every live aclrtMalloc / aclrtMallocHost block, so that frees of unknown,
// interior or already-freed pointers are reported instead of corrupting the
// heap, and copies that would run past the end of a block are refused.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace aclcpu {

enum class MemoryKind { kDevice, kHost };

class AllocationRegistry {
 public:
  static AllocationRegistry& instance();

  void add(void* block, size_t size, MemoryKind kind);

  enum class Removal { kRemoved, kUnknown, kInterior, kWrongKind };
  // Unregisters the block that starts at `block` if it is of `kind`. For
  // kInterior, *offset is the distance from the block's start.
  Removal remove(void* block, MemoryKind kind, size_t* offset);

  // True when `address` lies inside a live block and [address, address +
  // count) runs past its end; *available is then what remains of the block.
  bool overruns(const void* address, size_t count, size_t* available);

  // Number of live blocks (for tests).
  size_t liveCount();

 private:
  struct Block {
    size_t size;
    MemoryKind kind;
  };
  // The block containing `address`, or end().
  std::map<uintptr_t, Block>::iterator findContaining(uintptr_t address);

  std::mutex mutex_;
  std::map<uintptr_t, Block> blocks_;  // keyed by start address
};

}  // namespace aclcpu
