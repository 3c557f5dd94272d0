#pragma once
// Test-only control over which micro-kernel sgemm uses, so every ISA path the
// CPU supports can be checked on one machine.

#include <cstdint>

namespace aclcpu {
namespace kernels {

enum class GemmIsa { Auto, Scalar, Avx2, Avx512 };

// True when this CPU can run `isa` (Auto and Scalar always can).
bool gemmIsaSupported(GemmIsa isa);

// Makes later sgemm calls use `isa` (Auto: the cpuid choice). Returns false,
// changing nothing, when the CPU cannot run it. Not for use while another
// thread is inside sgemm. gemmScratchBytes() already covers every kernel.
bool forceGemmIsaForTesting(GemmIsa isa);

// Overrides the cache blocks of every kernel (0 keeps a kernel's default;
// mc and nc are rounded up to whole register tiles). Returns false, changing
// nothing, when the blocks would not fit in gemmScratchBytes(). Lets tests
// cross many block boundaries with small shapes. Same threading caveat.
bool overrideGemmBlockingForTesting(int64_t kc, int64_t mc, int64_t nc);

}  // namespace kernels
}  // namespace aclcpu
