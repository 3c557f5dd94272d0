#pragma once
// Overflow-checked 64-bit arithmetic for sizes: a shape whose element count or
// byte size does not fit is an error, never undefined behaviour.

#include <cstdint>

namespace aclcpu {

// *out = a * b; returns false on overflow. Inputs must be non-negative.
inline bool checkedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checkedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
inline bool checkedMul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool checkedAdd(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// Product of dims[0..count); returns false if any dim is negative or the
// product overflows.
inline bool checkedProduct(const int64_t* dims, uint64_t count, int64_t* out) {
  int64_t product = 1;
  for (uint64_t i = 0; i < count; ++i) {
    if (dims[i] < 0 || !checkedMul(product, dims[i], &product)) return false;
  }
  *out = product;
  return true;
}

// Size arithmetic that remembers the first overflow: after a failed step
// every result is 0 and `ok` stays false, so a plan can be computed in one
// straight line and checked once.
struct CheckedSizes {
  bool ok = true;
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    if (!checkedMul(a, b, &r)) ok = false;
    return ok ? r : 0;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    if (!checkedAdd(a, b, &r)) ok = false;
    return ok ? r : 0;
  }
};

}  // namespace aclcpu
