#include "ops/common/view_checks.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/checked_math.h"
#include "ops/common/op_status.h"

namespace aclcpu {
namespace ops {
namespace {

// Exact overlap search enumerates at most this many addresses (sorted), or
// marks a bitmap of at most kMaxBitmapSpan elements; beyond both, a view whose
// strides do not nest is rejected as unprovable rather than accepted blind.
constexpr int64_t kMaxSortedAddresses = int64_t{1} << 22;
constexpr int64_t kMaxBitmapSpan = int64_t{1} << 28;

std::string viewString(const aclTensor& t) {
  return "shape " + shapeString(t.viewShape) + ", strides " + shapeString(t.strides) + ", offset " +
         std::to_string(t.offset);
}

struct Axis {
  int64_t extent;
  int64_t stride;  // signed
};

// The dims that move the address (extent > 1).
std::vector<Axis> movingAxes(const aclTensor& t) {
  std::vector<Axis> axes;
  for (size_t d = 0; d < t.viewShape.size(); ++d)
    if (t.viewShape[d] > 1) axes.push_back({t.viewShape[d], t.strides[d]});
  return axes;
}

// Strides that nest (each |stride| exceeds the reach of all smaller ones)
// cannot produce one address twice.
bool stridesNest(std::vector<Axis> axes) {
  std::sort(axes.begin(), axes.end(), [](const Axis& a, const Axis& b) {
    return (a.stride < 0 ? -a.stride : a.stride) < (b.stride < 0 ? -b.stride : b.stride);
  });
  int64_t reach = 0;  // bounded by the checked range, so no overflow
  for (const Axis& axis : axes) {
    const int64_t step = axis.stride < 0 ? -axis.stride : axis.stride;
    if (step <= reach) return false;
    reach += (axis.extent - 1) * step;
  }
  return true;
}

// Calls visit(relative element offset) for every index of the view; stops
// (returning false) as soon as visit returns false.
template <typename Visit>
bool forEachOffset(const std::vector<Axis>& axes, Visit&& visit) {
  std::vector<int64_t> index(axes.size(), 0);
  int64_t offset = 0;
  for (;;) {
    if (!visit(offset)) return false;
    size_t d = axes.size();
    for (;;) {
      if (d == 0) return true;
      --d;
      if (++index[d] < axes[d].extent) {
        offset += axes[d].stride;
        break;
      }
      offset -= (axes[d].extent - 1) * axes[d].stride;
      index[d] = 0;
    }
  }
}

enum class Overlap { kNone, kFound, kUnknown };

Overlap findSelfOverlap(const aclTensor& t, const ElementRange& range) {
  const std::vector<Axis> axes = movingAxes(t);
  int64_t count = 1;
  for (const Axis& axis : axes) {
    if (axis.stride == 0) return Overlap::kFound;
    count *= axis.extent;  // <= the view's element count, which fits
  }
  if (stridesNest(axes)) return Overlap::kNone;
  const int64_t span = range.high - range.low + 1;
  if (count > span) return Overlap::kFound;   // more indices than addresses
  const int64_t base = range.low - t.offset;  // the smallest relative offset
  if (count <= kMaxSortedAddresses) {
    std::vector<int64_t> offsets;
    offsets.reserve(static_cast<size_t>(count));
    forEachOffset(axes, [&](int64_t offset) {
      offsets.push_back(offset);
      return true;
    });
    std::sort(offsets.begin(), offsets.end());
    return std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end() ? Overlap::kNone
                                                                               : Overlap::kFound;
  }
  if (span <= kMaxBitmapSpan) {
    std::vector<uint64_t> seen(static_cast<size_t>(span / 64 + 1), 0);
    const bool distinct = forEachOffset(axes, [&](int64_t offset) {
      const uint64_t bit = static_cast<uint64_t>(offset - base);
      uint64_t& word = seen[bit / 64];
      const uint64_t mask = uint64_t{1} << (bit % 64);
      if (word & mask) return false;
      word |= mask;
      return true;
    });
    return distinct ? Overlap::kNone : Overlap::kFound;
  }
  return Overlap::kUnknown;
}

// [begin, end) in bytes of a non-empty checked view, or false when its
// address arithmetic would wrap.
bool byteHull(const aclTensor& t, const ElementRange& range, uintptr_t* begin, uintptr_t* end) {
  const auto bytes = static_cast<uintptr_t>(elementBytesOf(rawDataType(t)));
  const auto base = reinterpret_cast<uintptr_t>(t.data);
  // low and (high + 1) * bytes fit in int64 (checkViewBounds).
  return !__builtin_add_overflow(base, static_cast<uintptr_t>(range.low) * bytes, begin) &&
         !__builtin_add_overflow(base, static_cast<uintptr_t>(range.high + 1) * bytes, end);
}

}  // namespace

aclnnStatus checkViewBounds(const char* api, const NamedTensor& named, ElementRange* range) {
  *range = ElementRange();
  if (!named.tensor) return kSuccess;
  const aclTensor& t = *named.tensor;
  if (t.offset < 0)
    return fail(kParamInvalid, api, "%s: expected a non-negative view offset, got %s", named.name,
                viewString(t).c_str());
  if (t.strides.size() != t.viewShape.size())
    return fail(kParamInvalid, api, "%s: expected one stride per view dim, got %s", named.name,
                viewString(t).c_str());
  bool empty = false;
  int64_t low = t.offset, high = t.offset;
  bool fits = true;
  for (size_t d = 0; d < t.viewShape.size(); ++d) {
    if (t.viewShape[d] < 0)
      return fail(kParamInvalid, api, "%s: expected non-negative view dims, got %s", named.name,
                  viewString(t).c_str());
    if (t.viewShape[d] == 0) {
      empty = true;
      continue;
    }
    int64_t reach = 0;
    if (!checkedMul(t.viewShape[d] - 1, t.strides[d], &reach) ||
        !checkedAdd(reach < 0 ? low : high, reach, reach < 0 ? &low : &high))
      fits = false;
  }
  if (empty) return kSuccess;  // an empty view touches no memory
  if (!fits)
    return fail(kParamInvalid, api,
                "%s: expected a view whose reachable element range fits in 64-bit arithmetic, "
                "got %s",
                named.name, viewString(t).c_str());
  if (low < 0)
    return fail(kParamInvalid, api,
                "%s: expected the view's reachable elements [%lld, %lld] to start at or after "
                "element 0 of its storage, got %s",
                named.name, static_cast<long long>(low), static_cast<long long>(high),
                viewString(t).c_str());
  if (!t.storageShape.empty()) {
    int64_t storage = 0;
    if (!checkedProduct(t.storageShape.data(), t.storageShape.size(), &storage))
      return fail(kParamInvalid, api,
                  "%s: expected storage dims that are non-negative and whose element count fits "
                  "in 64 bits, got storage %s",
                  named.name, shapeString(t.storageShape).c_str());
    if (high >= storage)
      return fail(kParamInvalid, api,
                  "%s: expected the view's reachable elements [%lld, %lld] to lie inside its "
                  "storage %s of %lld elements, got %s",
                  named.name, static_cast<long long>(low), static_cast<long long>(high),
                  shapeString(t.storageShape).c_str(), static_cast<long long>(storage),
                  viewString(t).c_str());
  }
  const int64_t bytes = static_cast<int64_t>(elementBytesOf(rawDataType(t)));
  int64_t endByte = 0;
  if (!checkedAdd(high, int64_t{1}, &endByte) || !checkedMul(endByte, bytes, &endByte))
    return fail(kParamInvalid, api,
                "%s: expected a view whose byte range fits in 64 bits, got elements [%lld, %lld] "
                "of %lld bytes (%s)",
                named.name, static_cast<long long>(low), static_cast<long long>(high),
                static_cast<long long>(bytes), viewString(t).c_str());
  range->empty = false;
  range->low = low;
  range->high = high;
  return kSuccess;
}

aclnnStatus checkNoSelfOverlap(const char* api, const NamedTensor& named,
                               const ElementRange& range) {
  if (!named.tensor || range.empty) return kSuccess;
  switch (findSelfOverlap(*named.tensor, range)) {
    case Overlap::kNone:
      return kSuccess;
    case Overlap::kFound:
      return fail(kParamInvalid, api,
                  "%s: expected an output view in which every element has its own address, got "
                  "%s, which writes some address more than once",
                  named.name, viewString(*named.tensor).c_str());
    case Overlap::kUnknown:
      break;
  }
  return fail(kParamInvalid, api,
              "%s: expected an output view that can be shown not to overlap itself, got %s, "
              "whose strides do not nest and whose range is too large to enumerate",
              named.name, viewString(*named.tensor).c_str());
}

aclnnStatus checkOperandViews(const char* api, const std::vector<NamedTensor>& reads,
                              const std::vector<NamedTensor>& writes) {
  aclnnStatus s;
  ElementRange range;
  for (const NamedTensor& t : reads)
    if ((s = checkViewBounds(api, t, &range)) != kSuccess) return s;
  std::vector<std::pair<const NamedTensor*, ElementRange>> outputs;
  for (const NamedTensor& t : writes) {
    if ((s = checkViewBounds(api, t, &range)) != kSuccess) return s;
    if ((s = checkNoSelfOverlap(api, t, range)) != kSuccess) return s;
    if (t.tensor && !range.empty) outputs.emplace_back(&t, range);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const aclTensor& a = *outputs[i].first->tensor;
      const aclTensor& b = *outputs[j].first->tensor;
      if (!a.data || !b.data) continue;  // bound later; the launch checks again
      uintptr_t aBegin, aEnd, bBegin, bEnd;
      if (!byteHull(a, outputs[i].second, &aBegin, &aEnd) ||
          !byteHull(b, outputs[j].second, &bBegin, &bEnd))
        continue;  // the launch rejects the address
      if (aBegin < bEnd && bBegin < aEnd)
        return fail(kParamInvalid, api,
                    "%s and %s: expected outputs that share no memory, got byte ranges "
                    "[%p, %p) and [%p, %p)",
                    outputs[i].first->name, outputs[j].first->name, reinterpret_cast<void*>(aBegin),
                    reinterpret_cast<void*>(aEnd), reinterpret_cast<void*>(bBegin),
                    reinterpret_cast<void*>(bEnd));
    }
  }
  return kSuccess;
}

}  // namespace ops
}  // namespace aclcpu
