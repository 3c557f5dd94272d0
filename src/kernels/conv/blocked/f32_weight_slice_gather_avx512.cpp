// The fp32 row passes' weight packing, its gather step: one reduction
// block's weights for a slice of taps, 16 output lanes per vector gather
// (the scalar loop did one element per iteration with a group test each:
// 14% of a 7x7 512ch forward pass). Only called after a cpuid check. Keep
// this file free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include "kernels/conv/blocked/blocked_kernels.h"

namespace aclcpu {
namespace kernels {
namespace blocked {

void gatherWeightSlice_avx512(const WeightSliceJob& job) {
  for (int64_t c = 0; c < kLanes; ++c) {
    float* rows = job.buffer + c * job.sliceTaps * job.width;
    for (int o0 = 0; o0 < job.width; o0 += kLanes) {
      const __m512i index = _mm512_loadu_si512(job.outOffset + o0);
      // Lanes whose output channel is in reduction channel c's group.
      const __mmask16 inGroup =
          job.redGroup[c] < 0
              ? 0
              : _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(job.outGroup + o0),
                                        _mm512_set1_epi32(static_cast<int32_t>(job.redGroup[c])));
      const float* base = job.w + job.redOffset[c];
      for (int64_t t = 0; t < job.taps; ++t) {
        const __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), inGroup, index, base + t, 4);
        _mm512_storeu_ps(rows + t * job.width + o0, v);
      }
    }
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
