#pragma once
// Per-thread regions ("slots") of a pass's scratch for the chunks the pool
// runs: a chunk claims a free slot for as long as it runs, so the pool keeps
// handing out chunks first come first served (a static part per thread would
// wait on a thread the OS holds back). At most as many chunks run at once as
// the pool has threads, so that many slots always suffice; a chunk that finds
// none free (the pool grew after the scratch was sized) gets -1 and works
// without one. Which slot a chunk gets never changes a result.

#include <atomic>
#include <cstdint>

namespace aclcpu {
namespace kernels {

// Tests: the most slots any ScratchSlots hands out (negative: no limit), so
// that they can run the no-slot fallback.
inline std::atomic<int64_t>& scratchSlotLimitForTesting() {
  static std::atomic<int64_t> limit{-1};
  return limit;
}

class ScratchSlots {
 public:
  static constexpr int64_t kMaxSlots = 4096;

  explicit ScratchSlots(int64_t count) : count_(limited(count)) {
    for (auto& word : taken_) word.store(0, std::memory_order_relaxed);
  }
  ScratchSlots(const ScratchSlots&) = delete;
  ScratchSlots& operator=(const ScratchSlots&) = delete;

  // A free slot in [0, count), or -1.
  int64_t claim() {
    for (int64_t w = 0; w * 64 < count_; ++w) {
      uint64_t bits = taken_[w].load(std::memory_order_relaxed);
      for (;;) {
        const int64_t inWord = count_ - w * 64 < 64 ? count_ - w * 64 : 64;
        const uint64_t usable = inWord == 64 ? ~uint64_t{0} : (uint64_t{1} << inWord) - 1;
        const uint64_t free = ~bits & usable;
        if (free == 0) break;
        const uint64_t bit = free & (~free + 1);
        if (taken_[w].compare_exchange_weak(bits, bits | bit, std::memory_order_acquire))
          return w * 64 + __builtin_ctzll(bit);
      }
    }
    return -1;
  }
  void release(int64_t slot) {
    if (slot >= 0)
      taken_[slot / 64].fetch_and(~(uint64_t{1} << (slot % 64)), std::memory_order_release);
  }

  // A slot held for one scope.
  class Claim {
   public:
    explicit Claim(ScratchSlots& slots) : slots_(slots), slot_(slots.claim()) {}
    ~Claim() { slots_.release(slot_); }
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    int64_t slot() const { return slot_; }

   private:
    ScratchSlots& slots_;
    int64_t slot_;
  };

 private:
  static int64_t limited(int64_t count) {
    const int64_t limit = scratchSlotLimitForTesting().load(std::memory_order_relaxed);
    if (limit >= 0 && count > limit) count = limit;
    return count < kMaxSlots ? count : kMaxSlots;
  }

  std::atomic<uint64_t> taken_[kMaxSlots / 64];
  int64_t count_;
};

}  // namespace kernels
}  // namespace aclcpu
