#pragma once
// Per-tensor phase-1 checks shared by the convolution operators. Each records
// a message naming `api` and the argument when it fails.

#include <cstdint>

#include "meta/meta_types.h"

namespace aclcpu {
namespace ops {

struct NamedTensor {
  const aclTensor* tensor;  // may be null: skipped
  const char* name;
};

// 161002 unless the dtype is FLOAT, FLOAT16 or BF16.
aclnnStatus checkConvDtype(const char* api, const NamedTensor& t);

// 161002 unless every dim is non-negative and the element count and fp32 byte
// size fit in 64 bits (project decision 5).
aclnnStatus checkFitsIn64Bits(const char* api, const NamedTensor& t);

// Elements in the view; only after checkFitsIn64Bits passed.
int64_t elementCount(const aclTensor* t);

}  // namespace ops
}  // namespace aclcpu
