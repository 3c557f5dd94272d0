#pragma once
// Carving the caller's workspace into 64-byte aligned regions in phase 1
// (every operator's plan uses it), with 64-bit overflow reported instead of
// wrapping.

#include <cstdint>

#include "common/checked_math.h"

namespace aclcpu {
namespace ops {

constexpr uint64_t kNoBuffer = UINT64_MAX;

class WorkspaceAllocator {
 public:
  static constexpr uint64_t kAlignment = 64;

  // Reserves `count` elements of `elementBytes`; returns the offset.
  uint64_t reserve(int64_t count, uint64_t elementBytes) {
    uint64_t bytes = 0;
    if (count < 0 || !checkedMul(static_cast<uint64_t>(count), elementBytes, &bytes)) {
      ok_ = false;
      return kNoBuffer;
    }
    const uint64_t offset = next_;
    uint64_t end = 0;
    if (!checkedAdd(offset, bytes, &end) || !checkedAdd(end, kAlignment - 1, &end)) {
      ok_ = false;
      return kNoBuffer;
    }
    next_ = end / kAlignment * kAlignment;
    return offset;
  }
  bool ok() const { return ok_; }
  uint64_t total() const { return next_; }

 private:
  uint64_t next_ = 0;
  bool ok_ = true;
};

}  // namespace ops
}  // namespace aclcpu
