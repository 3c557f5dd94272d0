#pragma once
// Small helpers shared by the reference tests: building params, filling
// operands, random problems.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "reference/reference_conv.h"

namespace aclcpu {
namespace reference {
namespace testing {

// A convolution with symmetric padding (the 2- or 3-value API form).
inline ConvParams makeParams(std::vector<int64_t> inputShape, std::vector<int64_t> weightShape,
                             std::vector<int64_t> gradOutputShape, std::vector<int64_t> stride,
                             std::vector<int64_t> padding, std::vector<int64_t> dilation,
                             int64_t groups = 1, bool transposed = false) {
  ConvParams p;
  p.spatialDims = static_cast<int>(inputShape.size()) - 2;
  p.transposed = transposed;
  p.groups = groups;
  p.inputShape = std::move(inputShape);
  p.weightShape = std::move(weightShape);
  p.gradOutputShape = std::move(gradOutputShape);
  p.stride = std::move(stride);
  p.dilation = std::move(dilation);
  p.padBefore = padding;
  p.padAfter = std::move(padding);
  return p;
}

inline std::vector<double> filled(const std::vector<int64_t>& shape, double value) {
  return std::vector<double>(static_cast<size_t>(elementCount(shape)), value);
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

inline std::vector<double> absolute(std::vector<double> values) {
  for (double& v : values) v = std::fabs(v);
  return values;
}

struct Problem {
  ConvParams params;
  std::vector<double> gradOutput, input, weight;
};

// A random, consistent convolution: groups (including depthwise with a
// channel multiplier), stride, dilation, asymmetric padding, and a gradOutput
// extent that is sometimes one off the inferred one (any extent is legal for
// the gradients). Every dim has at least one tap inside x, so no problem is
// identically zero. Values are uniform in [-1, 1].
inline Problem makeRandomProblem(std::mt19937_64& rng, int spatialDims, bool transposed) {
  auto pick = [&rng](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const bool is3d = spatialDims == 3;
  const int64_t groups = pick(1, 3);
  const bool depthwise = pick(0, 3) == 0;
  const int64_t xPerGroup = depthwise ? 1 : pick(1, 3);  // normal-orientation x channels
  const int64_t yPerGroup = depthwise ? pick(1, 2) : pick(1, 3);
  const int64_t batch = pick(1, 2);

  Problem problem;
  ConvParams& p = problem.params;
  p.spatialDims = spatialDims;
  p.transposed = transposed;
  p.groups = groups;
  std::vector<int64_t> xShape{batch, xPerGroup * groups};
  std::vector<int64_t> yShape{batch, yPerGroup * groups};
  std::vector<int64_t> weightShape{yPerGroup * groups, xPerGroup};
  // True when some window tap along one dim lands inside x; otherwise the
  // whole problem would be identically zero, which tests nothing.
  auto touchesX = [](int64_t xSize, int64_t ySize, int64_t kernel, int64_t stride, int64_t dilation,
                     int64_t padBefore) {
    for (int64_t o = 0; o < ySize; ++o) {
      for (int64_t k = 0; k < kernel; ++k) {
        const int64_t i = o * stride - padBefore + k * dilation;
        if (i >= 0 && i < xSize) return true;
      }
    }
    return false;
  };
  for (int dim = 0; dim < spatialDims; ++dim) {
    const int64_t kernel = pick(1, is3d ? 2 : 3);
    const int64_t stride = pick(1, 3);
    const int64_t dilation = pick(1, 2);
    const int64_t padBefore = pick(0, 2);
    const int64_t padAfter = pick(0, 2);
    const int64_t span = dilation * (kernel - 1) + 1;
    int64_t xSize, ySize;
    if (!transposed) {
      xSize = pick(1, is3d ? 4 : 7);
      if (xSize + padBefore + padAfter < span) xSize = span;
      ySize = (xSize + padBefore + padAfter - span) / stride + 1;
    } else {
      // The transposed conv maps input (y-sized) to gradOutput (x-sized).
      ySize = pick(1, is3d ? 3 : 5);
      const int64_t outputPadding = pick(0, stride - 1);
      xSize = (ySize - 1) * stride - padBefore - padAfter + span + outputPadding;
      if (xSize < 1) xSize = 1;
    }
    const int64_t extentChange = pick(-1, 3) == -1 ? -1 : (pick(0, 4) == 0 ? 1 : 0);
    if (transposed) {
      xSize = std::max<int64_t>(1, xSize + extentChange);
    } else {
      ySize = std::max<int64_t>(1, ySize + extentChange);
    }
    if (!touchesX(xSize, ySize, kernel, stride, dilation, padBefore)) {
      --dim;  // draw this dim again
      continue;
    }
    xShape.push_back(xSize);
    yShape.push_back(ySize);
    weightShape.push_back(kernel);
    p.stride.push_back(stride);
    p.dilation.push_back(dilation);
    p.padBefore.push_back(padBefore);
    p.padAfter.push_back(padAfter);
  }
  p.weightShape = weightShape;
  p.inputShape = transposed ? yShape : xShape;
  p.gradOutputShape = transposed ? xShape : yShape;

  std::uniform_real_distribution<double> value(-1.0, 1.0);
  auto randomTensor = [&](const std::vector<int64_t>& shape) {
    std::vector<double> t(static_cast<size_t>(elementCount(shape)));
    for (double& v : t) v = value(rng);
    return t;
  };
  problem.gradOutput = randomTensor(p.gradOutputShape);
  problem.input = randomTensor(p.inputShape);
  problem.weight = randomTensor(p.weightShape);
  return problem;
}

}  // namespace testing
}  // namespace reference
}  // namespace aclcpu
