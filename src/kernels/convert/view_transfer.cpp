// gatherToFloat / scatterFromFloat / fillZero: element-wise moves between a
// strided view of any dtype and a dense fp32 buffer. Contiguous runs go
// through the active ISA's vector loops (convert_runs.h); strided runs and
// CPUs without them use the scalar loops here, which are the reference.

#include <cstring>

#include "kernels/convert/convert.h"
#include "kernels/convert/convert_runs.h"
#include "kernels/convert/scalar_convert_inl.h"
#include "kernels/convert/view_walk.h"

namespace aclcpu {
namespace kernels {
namespace {

using detail::applyRounding;
using detail::ViewWalk;

template <ElementType T>
struct Storage;
template <>
struct Storage<ElementType::F32> {
  using type = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
};
template <>
struct Storage<ElementType::F16> {
  using type = uint16_t;
  static float load(uint16_t v) { return detail::halfToFloatInline(v); }
  static uint16_t store(float v) { return detail::floatToHalfInline(v); }
};
template <>
struct Storage<ElementType::BF16> {
  using type = uint16_t;
  static float load(uint16_t v) { return detail::bf16ToFloatInline(v); }
  static uint16_t store(float v) { return detail::floatToBf16Inline(v); }
};

template <ElementType T, Rounding R>
void gatherRuns(const View5& src, const ViewWalk& walk, float* dst) {
  using S = Storage<T>;
  const auto* base = static_cast<const typename S::type*>(src.data);
  const detail::GatherRunFn vectorRun = detail::vectorGatherRun(T, R);
  detail::parallelOverElements(walk.total, true, [&](int64_t begin, int64_t end) {
    detail::forEachRun(walk, begin, end,
                       [&](int64_t flat, int64_t offset, int64_t stride, int64_t length) {
                         const typename S::type* in = base + offset;
                         float* out = dst + flat;
                         if constexpr (T == ElementType::F32 && R == Rounding::None) {
                           if (stride == 1) {
                             std::memcpy(out, in, static_cast<size_t>(length) * sizeof(float));
                             return;
                           }
                         }
                         if (stride == 1 && vectorRun) {
                           vectorRun(in, length, out);
                         } else if (stride == 1) {
                           for (int64_t i = 0; i < length; ++i)
                             out[i] = applyRounding<R>(S::load(in[i]));
                         } else {
                           for (int64_t i = 0; i < length; ++i)
                             out[i] = applyRounding<R>(S::load(in[i * stride]));
                         }
                       });
  });
}

template <ElementType T, Rounding R>
void scatterRuns(const float* src, const View5& dst, const ViewWalk& walk) {
  using S = Storage<T>;
  auto* base = static_cast<typename S::type*>(dst.data);
  // Overlapping destinations are written in element order by one thread, so
  // the last element written wins deterministically.
  const bool parallel = detail::walkIsNonOverlapping(walk);
  const detail::ScatterRunFn vectorRun = detail::vectorScatterRun(T, R);
  detail::parallelOverElements(walk.total, parallel, [&](int64_t begin, int64_t end) {
    detail::forEachRun(walk, begin, end,
                       [&](int64_t flat, int64_t offset, int64_t stride, int64_t length) {
                         typename S::type* out = base + offset;
                         const float* in = src + flat;
                         if constexpr (T == ElementType::F32 && R == Rounding::None) {
                           if (stride == 1) {
                             std::memcpy(out, in, static_cast<size_t>(length) * sizeof(float));
                             return;
                           }
                         }
                         if (stride == 1 && vectorRun) {
                           vectorRun(in, length, out);
                         } else if (stride == 1) {
                           for (int64_t i = 0; i < length; ++i)
                             out[i] = S::store(applyRounding<R>(in[i]));
                         } else {
                           for (int64_t i = 0; i < length; ++i)
                             out[i * stride] = S::store(applyRounding<R>(in[i]));
                         }
                       });
  });
}

template <ElementType T, template <ElementType, Rounding> class Op, typename... Args>
void dispatchRounding(Rounding rounding, Args&&... args) {
  switch (rounding) {
    case Rounding::None:
      return Op<T, Rounding::None>::run(args...);
    case Rounding::HF32:
      return Op<T, Rounding::HF32>::run(args...);
    case Rounding::F16:
      return Op<T, Rounding::F16>::run(args...);
    case Rounding::BF16:
      return Op<T, Rounding::BF16>::run(args...);
  }
}

template <template <ElementType, Rounding> class Op, typename... Args>
void dispatch(ElementType type, Rounding rounding, Args&&... args) {
  switch (type) {
    case ElementType::F32:
      return dispatchRounding<ElementType::F32, Op>(rounding, args...);
    case ElementType::F16:
      return dispatchRounding<ElementType::F16, Op>(rounding, args...);
    case ElementType::BF16:
      return dispatchRounding<ElementType::BF16, Op>(rounding, args...);
  }
}

template <ElementType T, Rounding R>
struct GatherOp {
  static void run(const View5& src, const ViewWalk& walk, float* dst) {
    gatherRuns<T, R>(src, walk, dst);
  }
};

template <ElementType T, Rounding R>
struct ScatterOp {
  static void run(const float* src, const View5& dst, const ViewWalk& walk) {
    scatterRuns<T, R>(src, dst, walk);
  }
};

size_t elementBytes(ElementType type) { return type == ElementType::F32 ? 4 : 2; }

}  // namespace

void gatherToFloat(const View5& src, Rounding rounding, float* dst) {
  const ViewWalk walk = detail::makeWalk(src);
  if (walk.total == 0) return;
  dispatch<GatherOp>(src.type, rounding, src, walk, dst);
}

void scatterFromFloat(const float* src, Rounding rounding, const View5& dst) {
  const ViewWalk walk = detail::makeWalk(dst);
  if (walk.total == 0) return;
  dispatch<ScatterOp>(dst.type, rounding, src, dst, walk);
}

void fillZero(const View5& dst) {
  const ViewWalk walk = detail::makeWalk(dst);
  if (walk.total == 0) return;
  // +0.0 is all-zero bits in every supported dtype.
  const size_t bytes = elementBytes(dst.type);
  auto* base = static_cast<unsigned char*>(dst.data);
  const bool parallel = detail::walkIsNonOverlapping(walk);
  detail::parallelOverElements(walk.total, parallel, [&](int64_t begin, int64_t end) {
    detail::forEachRun(walk, begin, end,
                       [&](int64_t, int64_t offset, int64_t stride, int64_t length) {
                         unsigned char* out = base + offset * static_cast<int64_t>(bytes);
                         if (stride == 1) {
                           std::memset(out, 0, static_cast<size_t>(length) * bytes);
                           return;
                         }
                         for (int64_t i = 0; i < length; ++i)
                           std::memset(out + i * stride * static_cast<int64_t>(bytes), 0, bytes);
                       });
  });
}

}  // namespace kernels
}  // namespace aclcpu
