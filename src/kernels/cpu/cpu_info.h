#pragma once
// The one CPU probe: which instruction sets the kernels may use. Detection
// (cpuid, xgetbv, the Linux AMX permission request) runs once; the result can
// only be lowered, by ACLNN_CPU_ISA at start-up or by tests, never raised above
// what the CPU and OS support. Algorithm choice depends on activeIsa() and the
// problem shape only, never on the thread count.

#include <cstdint>

namespace aclcpu {
namespace kernels {

// Ordered: each level includes everything below it.
//   Avx2       AVX2 + FMA + F16C
//   Avx512     AVX-512 F/BW/VL/DQ
//   Avx512Bf16 Avx512 + AVX512-BF16 (VDPBF16PS)
//   Amx        Avx512Bf16 + AMX-TILE/AMX-BF16 with the OS's tile-state permission
enum class Isa : uint8_t { Scalar = 0, Avx2 = 1, Avx512 = 2, Avx512Bf16 = 3, Amx = 4 };

// The best level this CPU and OS support.
Isa detectedIsa();

// The level kernels use now: detectedIsa() lowered by ACLNN_CPU_ISA
// (scalar|avx2|avx512|avx512_bf16|amx; a higher or unknown value is ignored)
// and by forceIsaForTesting().
Isa activeIsa();

// "scalar", "avx2", "avx512", "avx512_bf16", "amx".
const char* isaName(Isa isa);

// Parses one of the names above; false for anything else.
bool parseIsa(const char* name, Isa* isa);

// Lowers activeIsa() to `isa` for kernels chosen from now on; false (and no
// change) when the CPU cannot run it. Plan and run a problem under the same
// setting: the workspace size depends on the algorithm chosen.
bool forceIsaForTesting(Isa isa);
// Also ends forceBf16DotForTesting(), forceZmmFmaInHalvesForTesting(),
// forceBf16WordBroadcastForTesting() and forceRowTapSlicesForTesting().
void clearIsaForTesting();

// True when the CPU issues VDPBF16PS (zmm) at its fp32 FMA instruction rate,
// so that a bf16 dot product kernel computes at twice the fp32 kernels'
// rate: AMD CPUs with AVX512-BF16 (Zen 4: measured 228 against 115
// GFLOP/s per core). On the one Intel CPU with AVX512-BF16 and no AMX
// measured (a Xeon VM), it ran at a quarter of the FMA rate, and the fp32
// kernels stay faster there. Fixed by the CPU model, never by a timing.
bool bf16DotAtFmaRate();
// Makes bf16DotAtFmaRate() true on any CPU with AVX512-BF16, so that tests
// run the VDPBF16PS kernels there; false (and no change) without it.
bool forceBf16DotForTesting();

// True where the VDPBF16PS row kernels' tiles of two output blocks take each
// broadcast word from memory in every instruction (embedded broadcast),
// false where they broadcast it into a register once for both blocks. Memory on AMD Zen 4
// (~5% faster there: bf16 3x3 forward, 1 thread, 10.7 -> 10.2 ms); a
// register on the Zen 5 EPYC (6-12% faster there, medians of 3, 1 thread:
// 256ch 14x14 forward 5.04 -> 4.75 and 5.33 -> 5.04 ms in two runs, its data
// gradient 5.21 -> 4.63, 1D k3 512ch forward 66.7 -> 61.6). The same
// instruction either way, so the same bits. Fixed by the CPU's family.
bool bf16WordsBroadcastFromMemory();
// Makes bf16WordsBroadcastFromMemory() return `fromMemory` on any CPU, so
// that tests run both forms; ended by clearIsaForTesting().
void forceBf16WordBroadcastForTesting(bool fromMemory);

// True on CPUs that execute a 512-bit FMA as two 256-bit halves: AMD Zen 4
// (115 GFLOP/s per core measured, against 236-240 on an Intel Xeon and 261
// on a Zen 5 EPYC at similar clocks) and the mobile Zen 5 parts, which are
// reported to keep 256-bit units (not measured). There the blocked weight gradients and the stride
// phases' measured faster than the im2col GEMM on strided pointwise, wide 1D
// and image-stem layers; at full width the GEMM is faster (Zen 5 EPYC, 1
// thread: res5 1x1/2 1024->2048 25.7 -> 21.4 ms, RN50 stem 7x7/2 dW+dX 40.0
// -> 31.3). ACLNN_CPU_ZMM_FMA=halves|full overrides it. Fixed by the CPU's
// family and model, never by a timing.
bool zmmFmaInHalves();
// True on CPUs whose masked loads and broadcasts are cheap next to their
// FMAs, so that the dense NCHW plane kernels beat the blocked direct
// kernels and the GEMM on forward and data-gradient passes: AMD CPUs with
// AVX-512 (Zen 4; Zen 5 EPYC, 1 thread: RN50 3x3 64ch 56x56 forward 9.5 ->
// 8.1 ms, 1x1 256->64 4.8 -> 4.0, its data gradient + weight gradient 19.8
// -> 16.8), and any CPU where zmmFmaInHalves(). On the Intel Xeon (two
// full-width FMA ports) the blocked kernels and the GEMM were 10-25% faster.
bool densePlanesPreferred();
// True where the blocked fp32 row kernels run a row's taps in slices whose
// weights fit in L1, each slice over every register tile of the row before
// the next (the partial sums wait in the staged output; the weights are
// read from L2 once per row): AMD CPUs, where the slices were introduced.
// False on Intel, where every tile summing all its taps in registers
// measured level or faster on every layer tried (AMX Xeon VM, interleaved
// medians of 5-9, 1 thread: RN50 3x3 64ch 56x56 forward 12.11 -> 11.71 ms,
// 1D k3 512ch L4000 154.2 -> 146.5, dilated 3x3 256ch 28x28 46.1 -> 44.7,
// 3x3 64ch data gradient 11.49 -> 11.15; 2 threads and the AVX2 kernels
// level to 3% faster). Each output sums its taps in the same order either
// way: the same bits. Fixed by the CPU's vendor.
bool rowTapSlices();
// Makes rowTapSlices() return `slices` on any CPU, so that tests run both
// schedules; ended by clearIsaForTesting().
void forceRowTapSlicesForTesting(bool slices);
// Makes zmmFmaInHalves() and densePlanesPreferred() true on any CPU with
// AVX-512, so that tests run the plane kernels there; false (and no change)
// without it.
bool forceZmmFmaInHalvesForTesting();

}  // namespace kernels
}  // namespace aclcpu
