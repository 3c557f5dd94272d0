// AVX-512 run loops for gathers and scatters (see convert_runs.h), sixteen
// fp32 lanes at a time with a masked tail. The rounding rules are integer
// operations on the bit patterns, written to match scalar_convert_inl.h lane
// for lane; the fp16 conversions use VCVTPH2PS / VCVTPS2PH with explicit
// nearest-even; the bf16 rounding is simd::bf16Words. Only called after a
// cpuid check. Keep this file free of library templates and of non-static
// inline functions from shared headers: anything emitted here with external
// linkage is compiled with AVX-512 and could be picked by the linker for
// generic callers.

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/convert/convert_runs.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/hf32_rounding_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"

namespace aclcpu {
namespace kernels {
namespace detail {
namespace {

constexpr int kLanes = 16;
constexpr int kF16Nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

__m512i splat(uint32_t value) { return _mm512_set1_epi32(static_cast<int>(value)); }

using simd::firstLanes;

template <Rounding R>
__m512 applyRounding(__m512 value) {
  if constexpr (R == Rounding::None) {
    return value;
  } else if constexpr (R == Rounding::HF32) {
    return simd::roundHf32(value);
  } else if constexpr (R == Rounding::F16) {
    return _mm512_cvtph_ps(_mm512_cvtps_ph(value, kF16Nearest));
  } else {
    return _mm512_castsi512_ps(_mm512_slli_epi32(simd::bf16Words(value), 16));
  }
}

template <ElementType T>
struct Lanes;
template <>
struct Lanes<ElementType::F32> {
  using Element = float;
  static __m512 load(const float* in, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, in); }
  static void store(__m512 value, float* out, __mmask16 mask) {
    _mm512_mask_storeu_ps(out, mask, value);
  }
};
template <>
struct Lanes<ElementType::F16> {
  using Element = uint16_t;
  static __m512 load(const uint16_t* in, __mmask16 mask) {
    const __m256i halves = _mm256_maskz_loadu_epi16(mask, in);
    // VCVTPH2PS quiets signalling NaNs; halfToFloatInline keeps the payload
    // as it is, so clear the quiet bit again where the half had it clear.
    const __m512i words = _mm512_cvtepu16_epi32(halves);
    const __mmask16 isNan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(words, splat(0x7fffu)), splat(0x7c00u));
    const __mmask16 signalling = _mm512_mask_testn_epi32_mask(isNan, words, splat(0x0200u));
    const __m512i bits = _mm512_castps_si512(_mm512_cvtph_ps(halves));
    return _mm512_castsi512_ps(_mm512_mask_andnot_epi32(bits, signalling, splat(0x400000u), bits));
  }
  static void store(__m512 value, uint16_t* out, __mmask16 mask) {
    _mm256_mask_storeu_epi16(out, mask, _mm512_cvtps_ph(value, kF16Nearest));
  }
};
template <>
struct Lanes<ElementType::BF16> {
  using Element = uint16_t;
  static __m512 load(const uint16_t* in, __mmask16 mask) {
    const __m512i words = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, in));
    return _mm512_castsi512_ps(_mm512_slli_epi32(words, 16));
  }
  static void store(__m512 value, uint16_t* out, __mmask16 mask) {
    simd::storeBf16(out, mask, value);
  }
};

template <ElementType T, Rounding R>
void gatherRun(const void* source, int64_t length, float* out) {
  using L = Lanes<T>;
  const auto* in = static_cast<const typename L::Element*>(source);
  const __mmask16 all = firstLanes(kLanes);
  int64_t i = 0;
  for (; i + kLanes <= length; i += kLanes) {
    _mm512_storeu_ps(out + i, applyRounding<R>(L::load(in + i, all)));
  }
  if (i == length) return;
  const __mmask16 tail = firstLanes(length - i);
  _mm512_mask_storeu_ps(out + i, tail, applyRounding<R>(L::load(in + i, tail)));
}

template <ElementType T, Rounding R>
void scatterRun(const float* in, int64_t length, void* destination) {
  using L = Lanes<T>;
  auto* out = static_cast<typename L::Element*>(destination);
  const __mmask16 all = firstLanes(kLanes);
  int64_t i = 0;
  for (; i + kLanes <= length; i += kLanes) {
    L::store(applyRounding<R>(_mm512_loadu_ps(in + i)), out + i, all);
  }
  if (i == length) return;
  const __mmask16 tail = firstLanes(length - i);
  L::store(applyRounding<R>(_mm512_maskz_loadu_ps(tail, in + i)), out + i, tail);
}

template <ElementType T>
GatherRunFn gatherFor(Rounding rounding) {
  switch (rounding) {
    case Rounding::None:
      return &gatherRun<T, Rounding::None>;
    case Rounding::HF32:
      return &gatherRun<T, Rounding::HF32>;
    case Rounding::F16:
      return &gatherRun<T, Rounding::F16>;
    case Rounding::BF16:
      return &gatherRun<T, Rounding::BF16>;
  }
  return nullptr;
}

template <ElementType T>
ScatterRunFn scatterFor(Rounding rounding) {
  switch (rounding) {
    case Rounding::None:
      return &scatterRun<T, Rounding::None>;
    case Rounding::HF32:
      return &scatterRun<T, Rounding::HF32>;
    case Rounding::F16:
      return &scatterRun<T, Rounding::F16>;
    case Rounding::BF16:
      return &scatterRun<T, Rounding::BF16>;
  }
  return nullptr;
}

}  // namespace

GatherRunFn gatherRunAvx512(ElementType type, Rounding rounding) {
  switch (type) {
    case ElementType::F32:
      return gatherFor<ElementType::F32>(rounding);
    case ElementType::F16:
      return gatherFor<ElementType::F16>(rounding);
    case ElementType::BF16:
      return gatherFor<ElementType::BF16>(rounding);
  }
  return nullptr;
}

ScatterRunFn scatterRunAvx512(ElementType type, Rounding rounding) {
  switch (type) {
    case ElementType::F32:
      return scatterFor<ElementType::F32>(rounding);
    case ElementType::F16:
      return scatterFor<ElementType::F16>(rounding);
    case ElementType::BF16:
      return scatterFor<ElementType::BF16>(rounding);
  }
  return nullptr;
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
