#pragma once
// Reads a fuzzer's input as a stream of choices. Past the end every read
// returns zero, so any input (the empty one included) is a valid call.

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fuzz {

class FuzzBytes {
 public:
  FuzzBytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return used_ < size_ ? data_[used_++] : 0; }
  uint32_t u32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | byte();
    return v;
  }
  uint64_t u64() { return (static_cast<uint64_t>(u32()) << 32) | u32(); }
  bool flag() { return (byte() & 1) != 0; }
  // Uniform-ish in [lo, hi] (hi - lo < 2^32).
  int64_t range(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(span <= 256 ? byte() % span : u32() % span);
  }
  // An int64 that is small most of the time and sometimes an extreme.
  int64_t hostile() {
    static const int64_t kValues[] = {-1,
                                      0,
                                      1,
                                      2,
                                      3,
                                      -2,
                                      7,
                                      64,
                                      -1000,
                                      1 << 20,
                                      int64_t{1} << 31,
                                      int64_t{1} << 40,
                                      INT64_MAX / 2,
                                      INT64_MAX,
                                      INT64_MIN,
                                      -(int64_t{1} << 40)};
    const uint8_t b = byte();
    if (b < 160) return static_cast<int64_t>(b % 8);
    if (b < 240) return kValues[b % 16];
    return static_cast<int64_t>(u64());
  }
  bool exhausted() const { return used_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace fuzz
