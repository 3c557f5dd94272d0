#pragma once
// The strided inner loops of im2col and col2im (one output row of a tap reads,
// or adds into, every stride-th input column) and of the few-channel pass's
// stride-phase copies. Scalar loops here are the
// reference; the AVX-512 loops compute the same values bit for bit (copies,
// and one fp32 add per element in the same order) and never touch memory
// outside the elements named below.

#include <cstdint>

namespace aclcpu {
namespace kernels {
namespace conv_detail {

// out[i] = in[i * stride] for i < count. The caller vouches that in[0,
// readable) may be read (readable >= (count - 1) * stride + 1, the elements
// named): a row inside a plane lets the loops load whole vectors past its last
// element, which is faster than masking on some CPUs (Zen 5: a masked load
// whose lanes cross a cache line).
using StridedCopyFn = void (*)(const float* in, int64_t readable, int64_t stride, int64_t count,
                               float* out);
// out[i * stride] += in[i] for i < count; the elements between are untouched.
using StridedAddFn = void (*)(const float* in, int64_t count, int64_t stride, float* out);
// out[i * stride] = in[i] for i < count and +0 in the elements between: the
// (count - 1) * stride + 1 elements from out[0] are all written.
using StridedSpreadFn = void (*)(const float* in, int64_t count, int64_t stride, float* out);

struct StridedRowLoops {
  StridedCopyFn copy;
  StridedAddFn add;
  StridedSpreadFn spread;
};

// The loops for the active ISA (scalar below AVX-512), for strides >= 2.
StridedRowLoops stridedRowLoops();

StridedRowLoops scalarStridedRowLoops();
// Call only when the CPU runs AVX-512.
StridedRowLoops stridedRowLoopsAvx512();

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
