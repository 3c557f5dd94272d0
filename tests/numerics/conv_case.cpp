#include "numerics/conv_case.h"

#include <sstream>

namespace numerics {
namespace {

int64_t product(const Shape& shape, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < shape.size(); ++i) n *= shape[i];
  return n;
}

void padOf(const ConvCase& c, int spatialDims, int s, int64_t* before, int64_t* after) {
  if (spatialDims == 2 && c.padding.size() == 4) {
    *before = c.padding[2 * s];
    *after = c.padding[2 * s + 1];
  } else {
    *before = *after = c.padding[s];
  }
}

std::string list(const std::vector<int64_t>& v) {
  std::ostringstream out;
  for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  return out.str();
}

}  // namespace

DType promotedType(DType a, DType b, DType c) {
  const DType ab = a == b ? a : DType::F32;
  return ab == c ? ab : DType::F32;
}

ConvAttrs ConvCase::attrs() const {
  ConvAttrs a;
  a.biasSizes = {biasChannels()};
  a.stride = stride;
  a.padding = padding;
  a.dilation = dilation;
  a.outputPadding = outputPadding;
  a.transposed = transposed;
  a.groups = groups;
  a.mask = mask;
  a.cubeMathType = cubeMathType;
  return a;
}

aclcpu::reference::ConvParams ConvCase::referenceParams() const {
  aclcpu::reference::ConvParams p;
  p.spatialDims = spatialDims();
  p.transposed = transposed;
  p.groups = groups;
  p.inputShape = inputShape;
  p.weightShape = weightShape;
  p.gradOutputShape = gradOutputShape;
  p.stride = stride;
  p.dilation = dilation;
  for (int s = 0; s < spatialDims(); ++s) {
    int64_t before = 0, after = 0;
    padOf(*this, spatialDims(), s, &before, &after);
    p.padBefore.push_back(before);
    p.padAfter.push_back(after);
  }
  return p;
}

int64_t ConvCase::gradInputTerms() const {
  // Normal orientation: weight [Cout, Cin/G, k...]. dX sums Cout/G * taps
  // terms; a transposed gradInput is a forward conv summing Cin/G * taps.
  const int64_t taps = product(weightShape, 2);
  return transposed ? weightShape[1] * taps : weightShape[0] / groups * taps;
}

int64_t ConvCase::gradWeightTerms() const {
  const Shape& y = transposed ? inputShape : gradOutputShape;
  return y[0] * product(y, 2);
}

int64_t ConvCase::gradBiasTerms() const { return gradOutputShape[0] * product(gradOutputShape, 2); }

std::string ConvCase::describe() const {
  std::ostringstream out;
  out << spatialDims() << "d" << (transposed ? " transposed" : "") << " g" << groups << " input"
      << shapeString(inputShape) << " weight" << shapeString(weightShape) << " gradOutput"
      << shapeString(gradOutputShape) << " stride[" << list(stride) << "] pad[" << list(padding)
      << "] dil[" << list(dilation) << "] outpad[" << list(outputPadding) << "] mask=" << mask[0]
      << mask[1] << mask[2] << " cube=" << int(cubeMathType)
      << " dtypes go/in/w=" << dtypeName(gradOutputType) << "/" << dtypeName(inputType) << "/"
      << dtypeName(weightType) << " gi/gw/gb=" << dtypeName(gradInputType) << "/"
      << dtypeName(gradWeightType) << "/" << dtypeName(gradBiasType);
  return out.str();
}

void completeShapes(ConvCase* c, int64_t batch, int64_t xChannels, int64_t yChannels,
                    const std::vector<int64_t>& kernel, const std::vector<int64_t>& xSpatial) {
  const int d = static_cast<int>(kernel.size());
  Shape x = {batch, xChannels}, y = {batch, yChannels};
  c->outputPadding.assign(d, 0);
  for (int s = 0; s < d; ++s) {
    int64_t before = 0, after = 0;
    padOf(*c, d, s, &before, &after);
    const int64_t reach = xSpatial[s] + before + after - (c->dilation[s] * (kernel[s] - 1) + 1);
    x.push_back(xSpatial[s]);
    y.push_back(reach / c->stride[s] + 1);
    // Transposed: x = (y - 1) * stride - before - after + dil * (k - 1) + outpad + 1.
    if (c->transposed) c->outputPadding[s] = reach % c->stride[s];
  }
  c->inputShape = c->transposed ? y : x;
  c->gradOutputShape = c->transposed ? x : y;
}

}  // namespace numerics
