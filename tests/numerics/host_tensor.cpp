#include "numerics/host_tensor.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace numerics {
namespace {

int64_t uniform(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// Strides for dims stored innermost-first in `order`, each dim's extent
// padded by pad[dim], the innermost step `step` elements apart.
std::vector<int64_t> stridesFor(const Shape& shape, const std::vector<int>& order,
                                const std::vector<int64_t>& pad, int64_t step) {
  std::vector<int64_t> strides(shape.size(), 1);
  int64_t next = step;
  for (int dim : order) {
    strides[dim] = next;
    next *= std::max<int64_t>(shape[dim], 1) + pad[dim];
  }
  return strides;
}

int64_t lastReachable(const Layout& l) {
  int64_t last = l.offset;
  for (size_t i = 0; i < l.shape.size(); ++i) last += (l.shape[i] - 1) * l.strides[i];
  return last;
}

}  // namespace

int64_t elementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeString(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << ']';
  return out.str();
}

Layout contiguousLayout(const Shape& shape) {
  Layout l;
  l.shape = shape;
  std::vector<int> order(shape.size());
  std::iota(order.rbegin(), order.rend(), 0);  // last dim innermost
  l.strides = stridesFor(shape, order, std::vector<int64_t>(shape.size(), 0), 1);
  l.storageElements = std::max<int64_t>(elementCount(shape), 1);
  return l;
}

LayoutKind randomLayoutKind(Rng& rng) {
  switch (uniform(rng, 0, 3)) {
    case 0:
      return LayoutKind::Contiguous;
    case 1:
      return LayoutKind::OffsetPadded;
    case 2:
      return LayoutKind::Permuted;
    default:
      return LayoutKind::Gapped;
  }
}

LayoutKind randomInputLayoutKind(Rng& rng) {
  return uniform(rng, 0, 7) == 0 ? LayoutKind::Broadcast : randomLayoutKind(rng);
}

const char* layoutKindName(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::Contiguous:
      return "contig";
    case LayoutKind::OffsetPadded:
      return "padded";
    case LayoutKind::Permuted:
      return "permuted";
    case LayoutKind::Broadcast:
      return "broadcast";
    default:
      return "gapped";
  }
}

Layout makeLayout(const Shape& shape, LayoutKind kind, Rng& rng) {
  if (kind == LayoutKind::Contiguous) return contiguousLayout(shape);
  const size_t rank = shape.size();
  std::vector<int> order(rank);
  std::iota(order.rbegin(), order.rend(), 0);
  std::vector<int64_t> pad(rank, 0);
  int64_t step = 1;
  if (kind != LayoutKind::OffsetPadded) std::shuffle(order.begin(), order.end(), rng);
  for (auto& p : pad) p = uniform(rng, 0, 2);
  if (kind == LayoutKind::Gapped) step = uniform(rng, 2, 3);
  Layout l;
  l.shape = shape;
  l.strides = stridesFor(shape, order, pad, step);
  if (kind == LayoutKind::Broadcast && rank > 0)
    l.strides[static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(rank) - 1))] = 0;
  l.offset = uniform(rng, 1, 9);
  const int64_t tail = uniform(rng, 1, 4);
  l.storageElements = (elementCount(shape) == 0 ? l.offset : lastReachable(l) + 1) + tail;
  return l;
}

HostTensor::HostTensor(DType dtype, Layout layout)
    : dtype_(dtype),
      layout_(std::move(layout)),
      storage_(static_cast<size_t>(layout_.storageElements) * elementBytes(dtype), kSentinelByte) {}

int64_t HostTensor::storageIndexOf(int64_t flat) const {
  int64_t index = layout_.offset;
  for (size_t i = layout_.shape.size(); i-- > 0;) {
    const int64_t extent = layout_.shape[i];
    index += (flat % extent) * layout_.strides[i];
    flat /= extent;
  }
  return index;
}

double HostTensor::get(int64_t flat) const {
  return loadElement(dtype_, &storage_[storageIndexOf(flat) * elementBytes(dtype_)]);
}

void HostTensor::set(int64_t flat, double value) {
  storeElement(dtype_, &storage_[storageIndexOf(flat) * elementBytes(dtype_)], value);
}

uint32_t HostTensor::bitsAt(int64_t flat) const {
  return loadBits(dtype_, &storage_[storageIndexOf(flat) * elementBytes(dtype_)]);
}

std::vector<double> HostTensor::dense() const {
  std::vector<double> values(static_cast<size_t>(count()));
  for (int64_t i = 0; i < count(); ++i) values[i] = get(i);
  return values;
}

void HostTensor::setDense(const std::vector<double>& values) {
  for (int64_t i = 0; i < count(); ++i) set(i, values[i]);
}

std::string HostTensor::outOfViewDamage() const {
  std::vector<bool> covered(static_cast<size_t>(layout_.storageElements), false);
  for (int64_t i = 0; i < count(); ++i) covered[storageIndexOf(i)] = true;
  const size_t bytes = elementBytes(dtype_);
  for (size_t e = 0; e < covered.size(); ++e) {
    if (covered[e]) continue;
    for (size_t b = 0; b < bytes; ++b) {
      if (storage_[e * bytes + b] != kSentinelByte) {
        std::ostringstream out;
        out << "storage element " << e << " (outside the view " << shapeString(layout_.shape)
            << " strides " << shapeString(layout_.strides) << " offset " << layout_.offset
            << ") was written";
        return out.str();
      }
    }
  }
  return "";
}

std::string HostTensor::changedSince(const std::vector<uint8_t>& before) const {
  for (size_t b = 0; b < storage_.size(); ++b) {
    if (storage_[b] != before[b]) {
      std::ostringstream out;
      out << "storage element " << b / elementBytes(dtype_) << " of a tensor that must stay "
          << "untouched was written";
      return out.str();
    }
  }
  return "";
}

}  // namespace numerics
