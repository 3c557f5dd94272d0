#pragma once
// Vector loops for one contiguous run of a gather or scatter, one per
// (dtype, rounding) pair and ISA. They compute exactly what the scalar
// reference in scalar_convert_inl.h computes, bit for bit, for every input
// bit pattern; the scalar loops in view_transfer.cpp stay as the fallback
// and as the reference the tests compare them against.

#include <cstdint>

#include "kernels/kernel_types.h"

namespace aclcpu {
namespace kernels {
namespace detail {

// out[i] = round(load(in[i])) for i < length; `in` points at elements of the
// source dtype (float or 16-bit words), any alignment.
using GatherRunFn = void (*)(const void* in, int64_t length, float* out);

// out[i] = store(round(in[i])) for i < length, converted to the destination
// dtype with nearest even; `out` may have any alignment.
using ScatterRunFn = void (*)(const float* in, int64_t length, void* out);

// The loop for the active ISA (kernels::activeIsa()), or nullptr when it has
// none: scalar ISA, or an fp32 -> fp32 copy without rounding (memcpy).
GatherRunFn vectorGatherRun(ElementType type, Rounding rounding);
ScatterRunFn vectorScatterRun(ElementType type, Rounding rounding);

// The channel sums' accumulation (channel_sums.cpp): for i < length in
// order, lanes[(firstLane + i) % kSumLanes] += double(in[i]). Each lane is
// its own chain of additions, so the vector loop gives the bits of the
// scalar one.
constexpr int64_t kSumLanes = 16;
using LaneSumRunFn = void (*)(const float* in, int64_t length, int64_t firstLane, double* lanes);
// The active ISA's loop, or nullptr (then the portable loop).
LaneSumRunFn vectorLaneSumRun();
void laneSumRunAvx2(const float* in, int64_t length, int64_t firstLane, double* lanes);
void laneSumRunAvx512(const float* in, int64_t length, int64_t firstLane, double* lanes);
// The same for `planes` runs of `length` dense elements of `type`, run p at
// first + p * planeStride elements into lanes + p * kSumLanes, several runs
// at a time (addChannelRuns, convert.h).
void laneSumPlanesAvx512(ElementType type, const void* first, int64_t planeStride, int planes,
                         int64_t length, int64_t firstLane, double* lanes);
// channelSums' final step: the lanes' sum in a fixed pairwise tree.
double laneTreeSum(const double* lanes);

// Per-ISA tables; call only when the CPU runs that ISA.
GatherRunFn gatherRunAvx2(ElementType type, Rounding rounding);
ScatterRunFn scatterRunAvx2(ElementType type, Rounding rounding);
GatherRunFn gatherRunAvx512(ElementType type, Rounding rounding);
ScatterRunFn scatterRunAvx512(ElementType type, Rounding rounding);

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
