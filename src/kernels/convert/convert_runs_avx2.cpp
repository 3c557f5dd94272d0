// AVX2 + F16C run loops for gathers and scatters (see convert_runs.h), eight
// fp32 lanes at a time. The rounding rules are integer operations on the bit
// patterns, written to match scalar_convert_inl.h lane for lane; the fp16
// conversions use F16C with explicit nearest-even. Only called after a cpuid
// check. Keep this file free of library templates and of inline functions
// from shared headers: anything emitted here with external linkage is compiled
// with AVX2 and could be picked by the linker for generic callers.

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/convert/convert_runs.h"

namespace aclcpu {
namespace kernels {
namespace detail {
namespace {

constexpr int kLanes = 8;
constexpr int kF16Nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

__m256i splat(uint32_t value) { return _mm256_set1_epi32(static_cast<int>(value)); }

// fp32 -> bf16 bit pattern in the low half of each lane: nearest even, and a
// NaN keeps its top bits with the quiet bit forced (floatToBf16Inline).
__m256i bf16Words(__m256 value) {
  const __m256i bits = _mm256_castps_si256(value);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), splat(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(bits, splat(0x7fffu)), lsb), 16);
  const __m256i quieted = _mm256_or_si256(_mm256_srli_epi32(bits, 16), splat(0x0040u));
  // Magnitudes are at most 0x7fffffff, so the signed compare is exact.
  const __m256i isNan =
      _mm256_cmpgt_epi32(_mm256_and_si256(bits, splat(0x7fffffffu)), splat(0x7f800000u));
  return _mm256_blendv_epi8(rounded, quieted, isNan);
}

template <Rounding R>
__m256 applyRounding(__m256 value) {
  if constexpr (R == Rounding::None) {
    return value;
  } else if constexpr (R == Rounding::HF32) {
    // 11 explicit mantissa bits, ties away from zero; Inf and NaN unchanged.
    const __m256i bits = _mm256_castps_si256(value);
    const __m256i rounded =
        _mm256_and_si256(_mm256_add_epi32(bits, splat(0x800u)), splat(0xfffff000u));
    const __m256i special =
        _mm256_cmpeq_epi32(_mm256_and_si256(bits, splat(0x7f800000u)), splat(0x7f800000u));
    return _mm256_castsi256_ps(_mm256_blendv_epi8(rounded, bits, special));
  } else if constexpr (R == Rounding::F16) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(value, kF16Nearest));
  } else {
    return _mm256_castsi256_ps(_mm256_slli_epi32(bf16Words(value), 16));
  }
}

template <ElementType T>
struct Lanes;
template <>
struct Lanes<ElementType::F32> {
  using Element = float;
  static __m256 load(const float* in) { return _mm256_loadu_ps(in); }
  static void store(__m256 value, float* out) { _mm256_storeu_ps(out, value); }
};
template <>
struct Lanes<ElementType::F16> {
  using Element = uint16_t;
  static __m256 load(const uint16_t* in) {
    const __m128i halves = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    // VCVTPH2PS quiets signalling NaNs; halfToFloatInline keeps the payload
    // as it is, so clear the quiet bit again where the half had it clear.
    const __m256i words = _mm256_cvtepu16_epi32(halves);
    const __m256i isNan =
        _mm256_cmpgt_epi32(_mm256_and_si256(words, splat(0x7fffu)), splat(0x7c00u));
    const __m256i wasSignalling =
        _mm256_cmpeq_epi32(_mm256_and_si256(words, splat(0x0200u)), _mm256_setzero_si256());
    const __m256i clear =
        _mm256_and_si256(_mm256_and_si256(isNan, wasSignalling), splat(0x400000u));
    return _mm256_castsi256_ps(
        _mm256_andnot_si256(clear, _mm256_castps_si256(_mm256_cvtph_ps(halves))));
  }
  static void store(__m256 value, uint16_t* out) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(value, kF16Nearest));
  }
};
template <>
struct Lanes<ElementType::BF16> {
  using Element = uint16_t;
  static __m256 load(const uint16_t* in) {
    const __m256i words =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(words, 16));
  }
  static void store(__m256 value, uint16_t* out) {
    const __m256i words = bf16Words(value);  // each lane <= 0xffff: packus is exact
    const __m128i packed =
        _mm_packus_epi32(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), packed);
  }
};

template <ElementType T, Rounding R>
void gatherRun(const void* source, int64_t length, float* out) {
  using L = Lanes<T>;
  using Element = typename L::Element;
  const auto* in = static_cast<const Element*>(source);
  int64_t i = 0;
  for (; i + kLanes <= length; i += kLanes) {
    _mm256_storeu_ps(out + i, applyRounding<R>(L::load(in + i)));
  }
  if (i == length) return;
  // Tail: through zero-padded stack copies, so nothing past the run is read.
  const size_t rest = static_cast<size_t>(length - i);
  Element padded[kLanes] = {};
  float result[kLanes];
  std::memcpy(padded, in + i, rest * sizeof(Element));
  _mm256_storeu_ps(result, applyRounding<R>(L::load(padded)));
  std::memcpy(out + i, result, rest * sizeof(float));
}

template <ElementType T, Rounding R>
void scatterRun(const float* in, int64_t length, void* destination) {
  using L = Lanes<T>;
  using Element = typename L::Element;
  auto* out = static_cast<Element*>(destination);
  int64_t i = 0;
  for (; i + kLanes <= length; i += kLanes) {
    L::store(applyRounding<R>(_mm256_loadu_ps(in + i)), out + i);
  }
  if (i == length) return;
  const size_t rest = static_cast<size_t>(length - i);
  float padded[kLanes] = {};
  Element result[kLanes];
  std::memcpy(padded, in + i, rest * sizeof(float));
  L::store(applyRounding<R>(_mm256_loadu_ps(padded)), result);
  std::memcpy(out + i, result, rest * sizeof(Element));
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

GatherRunFn gatherRunAvx2(ElementType type, Rounding rounding) {
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

ScatterRunFn scatterRunAvx2(ElementType type, Rounding rounding) {
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
