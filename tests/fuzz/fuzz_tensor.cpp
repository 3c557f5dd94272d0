#include "fuzz_tensor.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "robustness/raw_tensor.h"

namespace fuzz {
namespace {

constexpr size_t kMaxBufferBytes = size_t{1} << 20;

// The largest element offset a layout reaches (-1 when empty or on overflow).
int64_t highestOffset(const ViewLayout& l) {
  int64_t high = l.offset;
  for (size_t d = 0; d < l.shape.size(); ++d) {
    if (l.shape[d] <= 0) return -1;
    const int64_t s = d < l.strides.size() ? l.strides[d] : 0;
    int64_t reach = 0;
    if (__builtin_mul_overflow(l.shape[d] - 1, s, &reach)) return -1;
    if (reach > 0 && __builtin_add_overflow(high, reach, &high)) return -1;
  }
  return high;
}

}  // namespace

int32_t convFormat(size_t rank) {
  return rank == 3   ? ACL_FORMAT_NCL
         : rank == 4 ? ACL_FORMAT_NCHW
         : rank == 5 ? ACL_FORMAT_NCDHW
                     : ACL_FORMAT_ND;
}

ViewLayout validLayout(FuzzBytes& in, const std::vector<int64_t>& shape) {
  ViewLayout l;
  l.shape = shape;
  const size_t rank = shape.size();
  l.strides.assign(rank, 1);
  const uint8_t style = in.byte();
  std::vector<size_t> order(rank);  // outermost first
  std::iota(order.begin(), order.end(), size_t{0});
  if ((style & 3) == 1 && rank > 1) {  // permuted
    for (size_t i = rank; i-- > 1;)
      std::swap(order[i], order[in.range(0, static_cast<int64_t>(i))]);
  }
  std::vector<int64_t> extents(shape);
  if ((style & 12) == 4)  // padded: gaps between rows
    for (int64_t& e : extents)
      if (e >= 0 && e < (int64_t{1} << 20)) e += in.range(0, 2);
  int64_t running = 1;  // saturates: hostile dims make unaddressable views
  for (size_t i = rank; i-- > 0;) {
    const size_t d = order[i];
    l.strides[d] = running;
    if (__builtin_mul_overflow(running, std::max<int64_t>(extents[d], 1), &running))
      running = INT64_MAX;
  }
  l.offset = (style & 16) ? in.range(0, 5) : 0;
  if ((style & 32) && rank > 0) {  // one reversed dim
    const size_t d = static_cast<size_t>(in.range(0, static_cast<int64_t>(rank) - 1));
    int64_t reach = 0;
    if (shape[d] > 1 && !__builtin_mul_overflow(shape[d] - 1, l.strides[d], &reach) &&
        !__builtin_add_overflow(l.offset, reach, &l.offset))
      l.strides[d] = -l.strides[d];
  }
  if ((style & 64) && rank > 0) {  // a broadcast-free unit dim with any stride
    for (size_t d = 0; d < rank; ++d)
      if (shape[d] == 1) l.strides[d] = in.range(-3, 100);
  }
  const int64_t high = highestOffset(l);
  const int64_t slack = (style & 128) ? in.range(0, 3) : 0;
  l.hasStorage = in.byte() % 8 != 0;
  l.storage = {high < 0 || high > INT64_MAX - 8 ? int64_t{1} : high + 1 + slack};
  return l;
}

void damageLayout(FuzzBytes& in, ViewLayout* l) {
  switch (in.byte() % 6) {
    case 0:
      if (!l->strides.empty())
        l->strides[static_cast<size_t>(in.range(0, static_cast<int64_t>(l->strides.size()) - 1))] =
            in.hostile();
      break;
    case 1:
      l->offset = in.hostile();
      break;
    case 2:
      l->storage = {in.hostile()};
      break;
    case 3:
      if (!l->storage.empty() && l->storage[0] > 0) l->storage[0] -= in.range(1, 4);
      break;
    case 4:
      l->hasStorage = !l->hasStorage;
      break;
    default:
      for (int64_t& s : l->strides) s = 0;
      break;
  }
}

std::vector<int64_t> elementOffsets(const ViewLayout& l, int64_t limit) {
  int64_t count = 1;
  for (int64_t e : l.shape) {
    if (e <= 0) return {};
    if (count > limit / e) return {};
    count *= e;
  }
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(l.shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t at = l.offset, step = 0;
    for (size_t d = 0; d < index.size(); ++d)
      if (__builtin_mul_overflow(index[d], l.strides[d], &step) ||
          __builtin_add_overflow(at, step, &at))
        return {};  // unaddressable: a damaged layout phase 1 did not have to check
    offsets.push_back(at);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < l.shape[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

FuzzTensor::FuzzTensor(const ViewLayout& layout, int32_t rawDtype, int32_t rawFormat, bool nullData,
                       uint8_t fill)
    : layout_(layout) {
  elementBytes_ = rawDtype == ACL_FLOAT16 || rawDtype == ACL_BF16 ? 2 : 4;
  int64_t elements = -1;
  if (layout.hasStorage) {
    elements = 1;
    for (int64_t d : layout.storage) {
      if (d < 0 || (d != 0 && elements > (int64_t{1} << 40) / d)) {
        elements = -1;
        break;
      }
      elements *= d;
    }
  } else {
    const int64_t high = highestOffset(layout);
    elements = high >= 0 && high < INT64_MAX ? high + 1 : -1;
  }
  if (!nullData && elements > 0 &&
      static_cast<uint64_t>(elements) <= kMaxBufferBytes / elementBytes_) {
    bytes_ = static_cast<size_t>(elements) * elementBytes_;
    if (aclrtMalloc(&data_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      data_ = nullptr;
      bytes_ = 0;
    } else {
      std::memset(data_, fill, bytes_);
    }
  }
  tensor_ = robustness::createTensorRaw(
      layout.shape.data(), layout.shape.size(), rawDtype, layout.strides.data(), layout.offset,
      rawFormat, layout.hasStorage ? layout.storage.data() : nullptr,
      layout.hasStorage ? layout.storage.size() : 0, data_);
}

bool onlyViewWritten(const FuzzTensor& tensor, uint8_t fill) {
  if (!tensor.data()) return true;
  const size_t elementBytes = tensor.elementBytes();
  std::vector<bool> inView(tensor.bytes() / elementBytes, false);
  for (int64_t at : elementOffsets(tensor.layout(), int64_t{1} << 20))
    if (at >= 0 && static_cast<size_t>(at) < inView.size()) inView[static_cast<size_t>(at)] = true;
  const auto* bytes = static_cast<const uint8_t*>(tensor.data());
  for (size_t e = 0; e < inView.size(); ++e) {
    if (inView[e]) continue;
    for (size_t b = 0; b < elementBytes; ++b)
      if (bytes[e * elementBytes + b] != fill) return false;
  }
  return true;
}

FuzzTensor::~FuzzTensor() {
  if (tensor_) aclDestroyTensor(tensor_);
  if (data_) aclrtFree(data_);
}

}  // namespace fuzz
