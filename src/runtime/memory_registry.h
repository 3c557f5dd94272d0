#pragma once
// Every live aclrtMalloc / aclrtMallocHost block, so that frees of unknown,
// interior or already-freed pointers are reported instead of corrupting the
// heap, and copies that would run past the end of a block are refused.
//
// Freed blocks go through a bounded quarantine before their memory returns to
// the C heap: while a block is quarantined nobody else can be handed its
// addresses, so any use of them is certainly a use after free, and memcpy,
// memset and operator launches reject it. Blocks larger than the quarantine
// go back at once (and are then no longer recognised).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>

namespace aclcpu {

enum class MemoryKind { kDevice, kHost };

class AllocationRegistry {
 public:
  static AllocationRegistry& instance();

  // Quarantine bounds: the most recently freed blocks up to this many blocks
  // and bytes are remembered.
  static constexpr size_t kQuarantineBlocks = 256;
  static constexpr size_t kQuarantineBytes = size_t{32} << 20;

  void add(void* block, size_t size, MemoryKind kind);

  enum class Removal { kRemoved, kUnknown, kInterior, kWrongKind, kAlreadyFreed };
  // Unregisters the block that starts at `block` if it is of `kind` and
  // quarantines it (the registry frees its memory later). For kInterior,
  // *offset is the distance from the block's start.
  Removal remove(void* block, MemoryKind kind, size_t* offset);

  // True when `address` lies inside a live block and [address, address +
  // count) runs past its end; *available is then what remains of the block.
  bool overruns(const void* address, size_t count, size_t* available);

  // What `address` points into.
  struct Lookup {
    enum State { kUnknown, kLive, kFreed } state = kUnknown;
    uintptr_t start = 0;  // the block's first byte (kLive, kFreed)
    size_t size = 0;      // its size as requested
  };
  Lookup lookup(const void* address);

  // Number of live blocks (for tests).
  size_t liveCount();

 private:
  struct Block {
    size_t size;
    MemoryKind kind;
  };
  using BlockMap = std::map<uintptr_t, Block>;
  // The block of `blocks` containing `address`, or end().
  static BlockMap::iterator findContaining(BlockMap& blocks, uintptr_t address);
  void quarantineLocked(uintptr_t start, const Block& block);

  std::mutex mutex_;
  BlockMap blocks_;                   // live, keyed by start address
  BlockMap freed_;                    // quarantined, memory still held
  std::deque<uintptr_t> freedOrder_;  // oldest first
  size_t freedBytes_ = 0;
};

}  // namespace aclcpu
