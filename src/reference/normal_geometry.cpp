#include "reference/normal_geometry.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace aclcpu {
namespace reference {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument("reference convolution: " + message);
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::ostringstream text;
  text << '[';
  for (size_t i = 0; i < shape.size(); ++i) text << (i ? "," : "") << shape[i];
  text << ']';
  return text.str();
}

void requireRank(const char* what, const std::vector<int64_t>& shape, size_t rank) {
  if (shape.size() != rank) {
    fail(std::string(what) + " must have rank " + std::to_string(rank) + ", got " +
         shapeText(shape));
  }
}

void requireLength(const char* what, const std::vector<int64_t>& values, size_t length) {
  if (values.size() != length) {
    fail(std::string(what) + " must have " + std::to_string(length) + " values, got " +
         std::to_string(values.size()));
  }
}

void requireAtLeastOne(const char* what, const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v < 1) fail(std::string(what) + " values must be >= 1, got " + shapeText(values));
  }
}

// Copies the spatial part of `values` (starting at `first`) into the lifted
// array, right-aligned, with `fill` in the prepended unit dims.
Spatial lift(const std::vector<int64_t>& values, size_t first, int spatialDims, int64_t fill) {
  Spatial lifted;
  lifted.fill(fill);
  for (int i = 0; i < spatialDims; ++i) {
    lifted[kLiftedDims - spatialDims + i] = values[first + i];
  }
  return lifted;
}

}  // namespace

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) fail("negative dimension in shape " + shapeText(shape));
    if (__builtin_mul_overflow(count, dim, &count)) {
      fail("element count of shape " + shapeText(shape) + " overflows 64 bits");
    }
  }
  return count;
}

void requireSize(const char* what, int64_t size, int64_t expected) {
  if (size != expected) {
    fail(std::string(what) + " has " + std::to_string(size) + " elements, its shape needs " +
         std::to_string(expected));
  }
}

NormalGeometry makeNormalGeometry(const ConvParams& params) {
  const int d = params.spatialDims;
  if (d < 1 || d > 3) fail("spatialDims must be 1, 2 or 3, got " + std::to_string(d));
  const size_t rank = static_cast<size_t>(d) + 2;
  requireRank("inputShape", params.inputShape, rank);
  requireRank("weightShape", params.weightShape, rank);
  requireRank("gradOutputShape", params.gradOutputShape, rank);
  requireLength("stride", params.stride, d);
  requireLength("dilation", params.dilation, d);
  requireLength("padBefore", params.padBefore, d);
  requireLength("padAfter", params.padAfter, d);
  requireAtLeastOne("stride", params.stride);
  requireAtLeastOne("dilation", params.dilation);
  if (params.groups < 1) fail("groups must be >= 1, got " + std::to_string(params.groups));
  // Validates every dim >= 0 and that each tensor's size fits in 64 bits.
  elementCount(params.inputShape);
  elementCount(params.weightShape);
  elementCount(params.gradOutputShape);

  const std::vector<int64_t>& x = params.transposed ? params.gradOutputShape : params.inputShape;
  const std::vector<int64_t>& y = params.transposed ? params.inputShape : params.gradOutputShape;
  const char* xName = params.transposed ? "gradOutput" : "input";
  const char* yName = params.transposed ? "input" : "gradOutput";
  const std::vector<int64_t>& w = params.weightShape;

  NormalGeometry g;
  g.transposed = params.transposed;
  g.groups = params.groups;
  g.batch = x[0];
  g.yChannels = w[0];
  g.xChannelsPerGroup = w[1];
  if (__builtin_mul_overflow(w[1], params.groups, &g.xChannels))
    fail("weight[1] * groups overflows");
  if (w[0] % params.groups != 0) {
    fail("weight[0] = " + std::to_string(w[0]) +
         " is not divisible by groups = " + std::to_string(params.groups));
  }
  g.yChannelsPerGroup = w[0] / params.groups;
  if (x[1] != g.xChannels) {
    fail(std::string(xName) + " channels must be weight[1] * groups = " +
         std::to_string(g.xChannels) + ", got shape " + shapeText(x));
  }
  if (y[1] != g.yChannels) {
    fail(std::string(yName) + " channels must be weight[0] = " + std::to_string(g.yChannels) +
         ", got shape " + shapeText(y));
  }
  if (y[0] != x[0]) {
    fail("batch of input " + shapeText(params.inputShape) + " and gradOutput " +
         shapeText(params.gradOutputShape) + " differ");
  }
  g.xSize = lift(x, 2, d, 1);
  g.ySize = lift(y, 2, d, 1);
  g.kernel = lift(w, 2, d, 1);
  g.stride = lift(params.stride, 0, d, 1);
  g.dilation = lift(params.dilation, 0, d, 1);
  g.padBefore = lift(params.padBefore, 0, d, 0);
  return g;
}

SplitIndex splitIndex(int64_t index, int64_t dim1, const Spatial& spatial) {
  SplitIndex split;
  for (int i = kLiftedDims - 1; i >= 0; --i) {
    split.position[i] = index % spatial[i];
    index /= spatial[i];
  }
  split.second = index % dim1;
  split.first = index / dim1;
  return split;
}

}  // namespace reference
}  // namespace aclcpu
