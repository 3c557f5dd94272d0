// The channel sums' lane accumulation (convert_runs.h, LaneSumRunFn) with
// 16 lanes as two vectors of doubles: each 16 floats of a run are widened
// and added lane for lane, the ragged head and tail lanes by masked adds,
// which leave the other lanes untouched (an add of +0 would turn a -0 sum
// into +0). Only called after a cpuid check; free of library templates
// (see convert_runs_avx512.cpp).

// GCC 12 reports its own undefined vectors inside the masked and extract
// intrinsics as uninitialised; every lane used is defined.
#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include <cstdint>

#include "kernels/convert/convert_runs.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace detail {
namespace {

static_assert(kSumLanes == 16, "two vectors of 8 doubles");

// Adds in[0, count) to lanes [lane, lane + count) (lane + count <= 16).
inline void addLanes(const float* in, int64_t lane, int64_t count, __m512d* low, __m512d* high) {
  const __mmask16 m = static_cast<__mmask16>(simd::firstLanes(count) << lane);
  // An address, not a pointer: before `in` it may lie outside the run's
  // object; the masked-off lanes are never read.
  const auto* from = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(in) -
                                                    static_cast<uintptr_t>(lane) * sizeof(float));
  const __m512 v = _mm512_maskz_loadu_ps(m, from);
  *low = _mm512_mask_add_pd(*low, static_cast<__mmask8>(m), *low,
                            _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
  *high = _mm512_mask_add_pd(
      *high, static_cast<__mmask8>(m >> 8), *high,
      _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
}

}  // namespace

void laneSumRunAvx512(const float* in, int64_t length, int64_t firstLane, double* lanes) {
  if (length <= 0) return;
  __m512d low = _mm512_loadu_pd(lanes), high = _mm512_loadu_pd(lanes + 8);
  int64_t i = 0;
  const int64_t lane = firstLane % kSumLanes;
  if (lane != 0) {
    const int64_t head = length < kSumLanes - lane ? length : kSumLanes - lane;
    addLanes(in, lane, head, &low, &high);
    i = head;
  }
  for (; i + kSumLanes <= length; i += kSumLanes) {
    const __m512 v = _mm512_loadu_ps(in + i);
    low = _mm512_add_pd(low, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    high = _mm512_add_pd(
        high, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
  }
  if (i < length) addLanes(in + i, 0, length - i, &low, &high);
  _mm512_storeu_pd(lanes, low);
  _mm512_storeu_pd(lanes + 8, high);
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
