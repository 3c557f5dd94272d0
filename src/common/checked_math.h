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

}  // namespace aclcpu
