#pragma once
// Test support shared by the forward suites: reading a tensor whose dims are
// stored in another order (NDHWC, ConvTbc's time-major [T, B, C] and
// kernel-major [K, C_in, C_out]) in the reference's logical
// [N, C, spatial...] order. Logical dim i is physical dim axes[i].

#include <cstdint>
#include <vector>

namespace test_support {

using Dims = std::vector<int64_t>;
using Axes = std::vector<int>;

inline const Axes& ndhwcAxes() {
  static const Axes axes = {0, 4, 1, 2, 3};
  return axes;
}
inline const Axes& timeMajorAxes() {  // [T, B, C] -> [B, C, T]
  static const Axes axes = {1, 2, 0};
  return axes;
}
inline const Axes& kernelMajorAxes() {  // [K, C_in, C_out] -> [C_out, C_in, K]
  static const Axes axes = {2, 1, 0};
  return axes;
}

inline Axes identityAxes(size_t rank) {
  Axes axes(rank);
  for (size_t i = 0; i < rank; ++i) axes[i] = static_cast<int>(i);
  return axes;
}

inline Dims logicalShape(const Dims& physical, const Axes& axes) {
  Dims shape(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) shape[i] = physical[axes[i]];
  return shape;
}

inline Dims physicalShape(const Dims& logical, const Axes& axes) {
  Dims shape(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) shape[axes[i]] = logical[i];
  return shape;
}

// For every physical row-major index, the logical row-major index.
inline std::vector<int64_t> logicalIndexOf(const Dims& physical, const Axes& axes) {
  const Dims logical = logicalShape(physical, axes);
  int64_t count = 1;
  for (int64_t d : physical) count *= d;
  std::vector<int64_t> map(static_cast<size_t>(count));
  std::vector<int64_t> position(physical.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    for (size_t d = physical.size(); d-- > 0;) {
      position[d] = rest % physical[d];
      rest /= physical[d];
    }
    int64_t index = 0;
    for (size_t i = 0; i < axes.size(); ++i) index = index * logical[i] + position[axes[i]];
    map[static_cast<size_t>(flat)] = index;
  }
  return map;
}

// Row-major values of the physical view, reordered row-major over the logical shape.
inline std::vector<double> toLogical(const std::vector<double>& values, const Dims& physical,
                                     const Axes& axes) {
  const std::vector<int64_t> map = logicalIndexOf(physical, axes);
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[static_cast<size_t>(map[i])] = values[i];
  return out;
}

}  // namespace test_support
