#pragma once
// Scalar forms of the bf16 operand words the AMX kernels read (the vector
// staging must produce the same words). A word is two bf16 values, the
// element of the even reduction index in its low half (AMX's pair order).
// Static inline: every including file, whatever its ISA flags, keeps its
// own copy.

#include <cstdint>
#include <cstring>

namespace aclcpu {
namespace kernels {
namespace blocked {

// How reduction channels become words.
//   Pairs: the operands are bf16 values; word u holds channels 2u and 2u + 1.
//   HiLo:  the operands have at most 12 significant bits (fp16, HF32) and
//          are split exactly as hi + lo, each a bf16 value. In the row passes
//          channel c is one activation word (hi, lo) met by two weight words,
//          (hi, lo) and then (lo, hi), so that the two dot products add up
//          all four partial products of a * b; the weight gradient gives each
//          position four entries (blocked_bf16_kernels.h).
enum class PairKind : uint8_t { Pairs, HiLo };

static inline uint32_t bitsOf(float v) {
  uint32_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
static inline float floatOf(uint32_t b) {
  float v = 0.0f;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Values the bf16 hardware does not take exactly: non-finite ones (hi/lo
// would turn inf * 0 into NaN) and nonzero magnitudes below 2^-40. Above
// that bound every product of two operand parts is a multiple of 2^-102, so
// no partial sum is ever a subnormal that the hardware would flush to zero,
// and no input is a bf16 subnormal it would treat as zero.
static inline bool bf16Unsafe(float v) {
  const uint32_t b = bitsOf(v);
  const uint32_t e = (b >> 23) & 0xFFu;
  return e == 0xFFu || (e < 127u - 40u && (b & 0x7FFFFFFFu) != 0);
}

// Whether values[0, count) hold a subnormal (nonzero below FLT_MIN): a bias
// that would make a subnormal result, which VCVTNE2PS2BF16 flushes.
static inline bool holdsSubnormal(const float* values, int64_t count) {
  for (int64_t i = 0; values && i < count; ++i) {
    const uint32_t magnitude = bitsOf(values[i]) & 0x7FFFFFFFu;
    if (magnitude != 0 && magnitude < 0x00800000u) return true;
  }
  return false;
}

// The top 16 bits: exact for a value that is a bf16 value.
static inline uint32_t bf16Of(float v) { return bitsOf(v) >> 16; }

static inline uint32_t pairWord(float even, float odd) {
  return bf16Of(even) | (bitsOf(odd) & 0xFFFF0000u);
}

// hi = v truncated to bf16, lo = v - hi (exact, and itself a bf16 value).
static inline uint32_t hiLoWord(float v) {
  const float hi = floatOf(bitsOf(v) & 0xFFFF0000u);
  return pairWord(hi, v - hi);
}
static inline uint32_t loHiWord(float v) {
  const float hi = floatOf(bitsOf(v) & 0xFFFF0000u);
  return pairWord(v - hi, hi);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
