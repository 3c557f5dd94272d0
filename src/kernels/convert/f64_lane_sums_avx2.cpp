// The channel sums' lane accumulation (convert_runs.h, LaneSumRunFn) with
// 16 lanes as four vectors of 4 doubles; the ragged head and tail lanes are
// added one by one, as the portable loop adds them. Only called after a
// cpuid check; free of library templates (see convert_runs_avx2.cpp).

#include <immintrin.h>

#include <cstdint>

#include "kernels/convert/convert_runs.h"

namespace aclcpu {
namespace kernels {
namespace detail {

static_assert(kSumLanes == 16, "four vectors of 4 doubles");

void laneSumRunAvx2(const float* in, int64_t length, int64_t firstLane, double* lanes) {
  int64_t i = 0;
  for (; i < length && (firstLane + i) % kSumLanes != 0; ++i)
    lanes[(firstLane + i) % kSumLanes] += in[i];
  if (i + kSumLanes <= length) {
    __m256d acc[4];
    for (int v = 0; v < 4; ++v) acc[v] = _mm256_loadu_pd(lanes + 4 * v);
    for (; i + kSumLanes <= length; i += kSumLanes) {
      for (int v = 0; v < 4; ++v)
        acc[v] = _mm256_add_pd(acc[v], _mm256_cvtps_pd(_mm_loadu_ps(in + i + 4 * v)));
    }
    for (int v = 0; v < 4; ++v) _mm256_storeu_pd(lanes + 4 * v, acc[v]);
  }
  for (; i < length; ++i) lanes[(firstLane + i) % kSumLanes] += in[i];
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
