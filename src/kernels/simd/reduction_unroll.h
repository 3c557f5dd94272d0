#pragma once
// Unroll factor of the micro-kernels' innermost reduction loops: 16 (fully
// unrolled) in normal builds, 4 under AddressSanitizer, whose
// instrumentation of the fully unrolled instantiations takes most of an
// hour.

namespace aclcpu {
namespace kernels {
namespace simd {

#if defined(__SANITIZE_ADDRESS__)  // GCC
constexpr int kReductionUnroll = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang
constexpr int kReductionUnroll = 4;
#else
constexpr int kReductionUnroll = 16;
#endif
#else
constexpr int kReductionUnroll = 16;
#endif

}  // namespace simd
}  // namespace kernels
}  // namespace aclcpu
