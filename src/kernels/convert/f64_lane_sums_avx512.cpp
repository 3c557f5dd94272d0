// The channel sums' lane accumulation (convert_runs.h, LaneSumRunFn) with
// 16 lanes as two vectors of doubles: each 16 floats of a run are widened
// and added lane for lane, the ragged head and tail lanes by masked adds,
// which leave the other lanes untouched (an add of +0 would turn a -0 sum
// into +0). Only called after a cpuid check; free of library templates
// (see convert_runs_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/convert/convert_runs.h"
#include "kernels/simd/half_words_avx512.h"
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

namespace {

// Widens 16 elements (the masked-off lanes zero) of each element kind.
struct F32Elements {
  static constexpr int64_t kBytes = 4;
  static __m512 load(const unsigned char* at, __mmask16 m) { return _mm512_maskz_loadu_ps(m, at); }
};
struct Bf16Elements {
  static constexpr int64_t kBytes = 2;
  static __m512 load(const unsigned char* at, __mmask16 m) {
    return simd::loadBf16(reinterpret_cast<const uint16_t*>(at), m);
  }
};
struct F16Elements {
  static constexpr int64_t kBytes = 2;
  static __m512 load(const unsigned char* at, __mmask16 m) {
    return simd::loadF16(reinterpret_cast<const uint16_t*>(at), m);
  }
};

inline void addVector(__m512 v, __mmask16 m, __m512d* low, __m512d* high) {
  *low = _mm512_mask_add_pd(*low, static_cast<__mmask8>(m), *low,
                            _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
  *high = _mm512_mask_add_pd(
      *high, static_cast<__mmask8>(m >> 8), *high,
      _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
}

// kPlanes runs side by side: each lane is one chain of additions, so one
// run alone waits on the add latency; several runs' chains overlap.
template <typename E, int kPlanes>
void addPlaneGroup(const unsigned char* first, int64_t planeBytes, int64_t length, int64_t lane,
                   double* lanes) {
  __m512d low[kPlanes], high[kPlanes];
  for (int p = 0; p < kPlanes; ++p) {
    low[p] = _mm512_loadu_pd(lanes + p * kSumLanes);
    high[p] = _mm512_loadu_pd(lanes + p * kSumLanes + 8);
  }
  // One step: `count` elements from element i on into lanes [at, at + count).
  auto step = [&](int64_t i, int64_t at, int64_t count) __attribute__((always_inline)) {
    simd::withFirstLanes(
        count, [&](__mmask16 m) __attribute__((always_inline)) {
          const __mmask16 shifted = static_cast<__mmask16>(m << at);
          for (int p = 0; p < kPlanes; ++p) {
            // An address, not a pointer: before the run it may lie outside its
            // object; the masked-off lanes are never read.
            const auto* from = reinterpret_cast<const unsigned char*>(
                reinterpret_cast<uintptr_t>(first + p * planeBytes + i * E::kBytes) -
                static_cast<uintptr_t>(at * E::kBytes));
            addVector(E::load(from, shifted), shifted, &low[p], &high[p]);
          }
        });
  };
  int64_t i = 0;
  if (lane != 0) {
    const int64_t head = length < kSumLanes - lane ? length : kSumLanes - lane;
    step(0, lane, head);
    i = head;
  }
  for (; i + kSumLanes <= length; i += kSumLanes) step(i, 0, kSumLanes);
  if (i < length) step(i, 0, length - i);
  for (int p = 0; p < kPlanes; ++p) {
    _mm512_storeu_pd(lanes + p * kSumLanes, low[p]);
    _mm512_storeu_pd(lanes + p * kSumLanes + 8, high[p]);
  }
}

template <typename E>
void addPlanes(const void* first, int64_t planeStride, int planes, int64_t length,
               int64_t firstLane, double* lanes) {
  const auto* base = static_cast<const unsigned char*>(first);
  const int64_t planeBytes = planeStride * E::kBytes;
  const int64_t lane = firstLane % kSumLanes;
  int p = 0;
  for (; p + 4 <= planes; p += 4)
    addPlaneGroup<E, 4>(base + p * planeBytes, planeBytes, length, lane, lanes + p * kSumLanes);
  for (; p < planes; ++p)
    addPlaneGroup<E, 1>(base + p * planeBytes, planeBytes, length, lane, lanes + p * kSumLanes);
}

}  // namespace

void laneSumPlanesAvx512(ElementType type, const void* first, int64_t planeStride, int planes,
                         int64_t length, int64_t firstLane, double* lanes) {
  if (length <= 0) return;
  switch (type) {
    case ElementType::F32:
      return addPlanes<F32Elements>(first, planeStride, planes, length, firstLane, lanes);
    case ElementType::BF16:
      return addPlanes<Bf16Elements>(first, planeStride, planes, length, firstLane, lanes);
    case ElementType::F16:
      return addPlanes<F16Elements>(first, planeStride, planes, length, firstLane, lanes);
  }
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
