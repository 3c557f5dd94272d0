#include "numerics_forward/forward_case.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "numerics/random_problem.h"
#include "reference/reference_conv.h"
#include "support/axis_permutation.h"

namespace numerics {
namespace {

using aclcpu::reference::ConvParams;
using aclcpu::reference::OperandRounding;

int64_t uniform(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
bool chance(Rng& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }
DType randomDtype(Rng& rng) { return static_cast<DType>(uniform(rng, 0, 2)); }

using test_support::Axes;
using test_support::identityAxes;
using test_support::logicalIndexOf;
using test_support::logicalShape;
using test_support::physicalShape;
using test_support::toLogical;
const Axes& kNdhwc = test_support::ndhwcAxes();
const Axes& kTimeMajor = test_support::timeMajorAxes();
const Axes& kKernelMajor = test_support::kernelMajorAxes();

Axes inputAxes(const ForwardCase& c) {
  if (c.op == ForwardOp::ConvTbc) return kTimeMajor;
  return c.inputChannelsLast ? kNdhwc : identityAxes(c.inputShape.size());
}
Axes weightAxes(const ForwardCase& c) {
  if (c.op == ForwardOp::ConvTbc) return kKernelMajor;
  return c.weightChannelsLast ? kNdhwc : identityAxes(c.weightShape.size());
}
Axes outputAxes(const ForwardCase& c) { return inputAxes(c); }

DType promote(DType a, DType b) { return a == b ? a : DType::F32; }

aclFormat formatOf(size_t rank, bool channelsLast) {
  if (rank == 3) return ACL_FORMAT_NCL;
  if (rank == 4) return ACL_FORMAT_NCHW;
  return channelsLast ? ACL_FORMAT_NDHWC : ACL_FORMAT_NCDHW;
}

int64_t truncatedExtent(int64_t in, int64_t before, int64_t after, int64_t k, int64_t stride,
                        int64_t dilation) {
  return (in + before + after - dilation * (k - 1) - 1) / stride + 1;
}

std::string list(const std::vector<int64_t>& v) { return shapeString(v); }

}  // namespace

int64_t ForwardCase::outputChannels() const {
  const Shape logical =
      logicalShape(outputShape, op == ForwardOp::ConvTbc ? kTimeMajor
                                : inputChannelsLast      ? kNdhwc
                                                         : identityAxes(outputShape.size()));
  return logical[1];
}

std::string ForwardCase::describe() const {
  std::ostringstream out;
  out << (op == ForwardOp::Convolution   ? (transposed ? "conv_transposed" : "conv")
          : op == ForwardOp::Depthwise2d ? "depthwise2d"
                                         : "conv_tbc")
      << " input" << shapeString(inputShape) << (inputChannelsLast ? "ndhwc" : "") << " weight"
      << shapeString(weightShape) << (weightChannelsLast ? "ndhwc" : "") << " output"
      << shapeString(outputShape) << " g" << groups;
  if (op == ForwardOp::ConvTbc) {
    out << " pad" << pad;
  } else {
    out << " s" << list(stride) << " p" << list(padding) << " dl" << list(dilation);
    if (transposed) out << " op" << list(outputPadding);
  }
  out << " bias=" << (hasBias ? dtypeName(biasType) : "none") << " in=" << dtypeName(inputType)
      << " w=" << dtypeName(weightType) << " out=" << dtypeName(outputType)
      << " cmt=" << int(cubeMathType);
  return out.str();
}

ForwardCase randomConvolutionCase(Rng& rng, bool medium) {
  RandomCaseOptions options;
  options.medium = medium;
  options.randomDtypes = false;
  options.randomCubeMath = false;
  const ConvCase base = randomConvCase(rng, options);
  ForwardCase c;
  c.op = ForwardOp::Convolution;
  c.transposed = base.transposed;
  c.groups = base.groups;
  c.inputShape = base.inputShape;
  c.weightShape = base.weightShape;
  c.outputShape = base.gradOutputShape;
  c.stride = base.stride;
  c.padding = base.padding;
  c.dilation = base.dilation;
  c.outputPadding = base.outputPadding;
  const int d = c.spatialDims();
  // 1D [left, right] padding (not transposed only).
  if (d == 1 && !c.transposed && chance(rng, 0.4)) {
    const int64_t left = uniform(rng, 0, 2), right = uniform(rng, 0, 2);
    const int64_t span = c.dilation[0] * (c.weightShape[2] - 1) + 1;
    c.inputShape[2] = std::max(c.inputShape[2], span - left - right);
    c.padding = {left, right};
    c.outputShape[2] =
        truncatedExtent(c.inputShape[2], left, right, c.weightShape[2], c.stride[0], c.dilation[0]);
  }
  if (d == 3) {
    c.inputChannelsLast = chance(rng, 0.4);
    c.weightChannelsLast = chance(rng, 0.4);
    if (c.inputChannelsLast) {
      c.inputShape = physicalShape(c.inputShape, kNdhwc);
      c.outputShape = physicalShape(c.outputShape, kNdhwc);
    }
    if (c.weightChannelsLast) c.weightShape = physicalShape(c.weightShape, kNdhwc);
  }
  c.hasBias = chance(rng, 0.7);
  if (chance(rng, 0.5)) {
    c.inputType = c.weightType = c.biasType = c.outputType = randomDtype(rng);
  } else {
    c.inputType = randomDtype(rng);
    c.weightType = randomDtype(rng);
    c.biasType = randomDtype(rng);
    c.outputType = randomDtype(rng);
  }
  c.cubeMathType = static_cast<int8_t>(uniform(rng, 0, 4));
  // Decision 5 rejects this combination (361001); keep the sweep on success paths.
  const DType promoted = promote(c.inputType, c.weightType);
  if (c.transposed && c.cubeMathType != 2 && promoted != DType::F32 && c.outputType == DType::F32)
    c.outputType = promoted;
  return c;
}

ForwardCase randomDepthwiseCase(Rng& rng) {
  ForwardCase c;
  c.op = ForwardOp::Depthwise2d;
  const int64_t batch = uniform(rng, 1, 3), channels = uniform(rng, 1, 5),
                multiplier = uniform(rng, 1, 3);
  c.groups = channels;
  Shape in = {batch, channels}, w = {channels * multiplier, 1},
        out = {batch, channels * multiplier};
  for (int s = 0; s < 2; ++s) {
    const int64_t k = uniform(rng, 1, 3);
    c.stride.push_back(uniform(rng, 1, 3));
    c.dilation.push_back(uniform(rng, 1, 2));
    c.padding.push_back(uniform(rng, 0, 2));
    const int64_t span = c.dilation[s] * (k - 1) + 1;
    const int64_t extent = std::max<int64_t>(1, span - 2 * c.padding[s]) + uniform(rng, 0, 6);
    in.push_back(extent);
    w.push_back(k);
    out.push_back(
        truncatedExtent(extent, c.padding[s], c.padding[s], k, c.stride[s], c.dilation[s]));
  }
  c.inputShape = in;
  c.weightShape = w;
  c.outputShape = out;
  c.hasBias = chance(rng, 0.6);
  c.inputType = c.weightType = c.biasType = c.outputType = randomDtype(rng);
  c.cubeMathType = static_cast<int8_t>(uniform(rng, 0, 4));
  return c;
}

ForwardCase randomConvTbcCase(Rng& rng) {
  ForwardCase c;
  c.op = ForwardOp::ConvTbc;
  const int64_t k = uniform(rng, 1, 4), pad = uniform(rng, 0, 2);
  const int64_t t = std::max<int64_t>(1, k - pad) + uniform(rng, 0, 6);  // T + pad >= K
  const int64_t b = uniform(rng, 1, 3), cin = uniform(rng, 1, 5), cout = uniform(rng, 1, 5);
  c.pad = pad;
  c.inputShape = {t, b, cin};
  c.weightShape = {k, cin, cout};
  c.outputShape = {t + 2 * pad - k + 1, b, cout};
  c.hasBias = true;
  c.inputType = c.weightType = c.outputType = randomDtype(rng);
  c.biasType = randomDtype(rng);
  c.cubeMathType = static_cast<int8_t>(uniform(rng, 0, 4));
  return c;
}

DType computeDtypeOf(const ForwardCase& c) {
  return c.cubeMathType == 2 ? DType::F16 : promote(c.inputType, c.weightType);
}

ElementBounds expectForward(const ForwardCase& c, const std::vector<double>& input,
                            const std::vector<double>& weight, const std::vector<double>& bias) {
  const DType compute = computeDtypeOf(c);
  const OperandRounding rounding =
      operandRoundingOf(c.inputType, c.inputType, c.weightType, c.cubeMathType);
  const Axes inAxes = inputAxes(c), wAxes = weightAxes(c), outAxes = outputAxes(c);
  ConvParams p;
  p.spatialDims = c.op == ForwardOp::ConvTbc ? 1 : c.spatialDims();
  p.transposed = c.transposed;
  p.groups = c.groups;
  p.inputShape = logicalShape(c.inputShape, inAxes);
  p.weightShape = logicalShape(c.weightShape, wAxes);
  p.gradOutputShape = logicalShape(c.outputShape, outAxes);
  const int d = p.spatialDims;
  for (int s = 0; s < d; ++s) {
    if (c.op == ForwardOp::ConvTbc) {
      p.stride.push_back(1);
      p.dilation.push_back(1);
      p.padBefore.push_back(c.pad);
      p.padAfter.push_back(c.pad);
      continue;
    }
    p.stride.push_back(c.stride[s]);
    p.dilation.push_back(c.dilation[s]);
    const bool twoPerDim = c.padding.size() == static_cast<size_t>(2 * d);
    p.padBefore.push_back(twoPerDim ? c.padding[2 * s] : c.padding[s]);
    p.padAfter.push_back(twoPerDim ? c.padding[2 * s + 1] : c.padding[s]);
  }
  const auto x = roundOperands(toLogical(input, c.inputShape, inAxes), rounding);
  const auto w = roundOperands(toLogical(weight, c.weightShape, wAxes), rounding);
  std::vector<double> xAbs(x.size()), wAbs(w.size());
  std::transform(x.begin(), x.end(), xAbs.begin(), [](double v) { return std::fabs(v); });
  std::transform(w.begin(), w.end(), wAbs.begin(), [](double v) { return std::fabs(v); });
  const auto sum = aclcpu::reference::convolutionForward(p, x, w);
  const auto magnitude = aclcpu::reference::convolutionForward(p, xAbs, wAbs);

  const Shape& outLogical = p.gradOutputShape;
  const int64_t channels = outLogical[1];
  int64_t spatial = 1;
  for (size_t i = 2; i < outLogical.size(); ++i) spatial *= outLogical[i];
  int64_t kernel = 1;
  for (size_t i = 2; i < p.weightShape.size(); ++i) kernel *= p.weightShape[i];
  const int64_t channelsPerTerm =
      c.transposed ? p.weightShape[0] / std::max<int64_t>(1, c.groups) : p.weightShape[1];
  const int64_t terms = channelsPerTerm * kernel + 1;  // + the bias add

  const std::vector<int64_t> map = logicalIndexOf(c.outputShape, outAxes);
  ElementBounds e;
  e.value.resize(map.size());
  e.tolerance.resize(map.size());
  for (size_t physical = 0; physical < map.size(); ++physical) {
    const int64_t i = map[physical];
    const int64_t channel = (i / spatial) % channels;
    double b = 0.0;
    if (c.hasBias) b = compute == DType::F16 ? roundToHalf(bias[channel]) : bias[channel];
    const double value = sum[i] + b;
    double bound = accumulationBound(terms, magnitude[i] + std::fabs(b));
    bound = afterRounding(compute, value, bound);
    bound = afterRounding(c.outputType, value, bound);
    e.value[physical] = value;
    e.tolerance[physical] = bound;
  }
  return e;
}

ForwardTensors makeForwardTensors(const ForwardCase& c, Rng& rng, bool randomLayouts) {
  auto layout = [&](const Shape& shape, bool isInput) {
    if (!randomLayouts) return contiguousLayout(shape);
    return makeLayout(shape, isInput ? randomInputLayoutKind(rng) : randomLayoutKind(rng), rng);
  };
  ForwardTensors t{HostTensor(c.inputType, layout(c.inputShape, true)),
                   HostTensor(c.weightType, layout(c.weightShape, true)),
                   HostTensor(c.biasType, layout({c.outputChannels()}, true)),
                   HostTensor(c.outputType, layout(c.outputShape, false))};
  fillRandom(&t.input, rng);
  fillRandom(&t.weight, rng);
  fillRandom(&t.bias, rng);
  return t;
}

OpOutcome runForward(const ForwardCase& c, ForwardTensors* t, const RunOptions& options) {
  const HostTensor* bias = c.hasBias ? &t->bias : nullptr;
  switch (c.op) {
    case ForwardOp::Depthwise2d: {
      DepthwiseAttrs a;
      a.kernelSize = {c.weightShape[2], c.weightShape[3]};
      a.stride = c.stride;
      a.padding = c.padding;
      a.dilation = c.dilation;
      a.cubeMathType = c.cubeMathType;
      return runConvDepthwise2d(a, t->input, t->weight, bias, &t->output, options);
    }
    case ForwardOp::ConvTbc:
      return runConvTbc(t->input, t->weight, t->bias, c.pad, c.cubeMathType, &t->output, options);
    default: {
      ForwardConvAttrs a;
      a.stride = c.stride;
      a.padding = c.padding;
      a.dilation = c.dilation;
      a.outputPadding = c.outputPadding;
      a.transposed = c.transposed;
      a.groups = c.groups;
      a.cubeMathType = c.cubeMathType;
      a.inputFormat = a.outputFormat = formatOf(c.inputShape.size(), c.inputChannelsLast);
      a.weightFormat = formatOf(c.weightShape.size(), c.weightChannelsLast);
      return runConvolution(a, t->input, t->weight, bias, &t->output, options);
    }
  }
}

std::string checkForwardCase(const ForwardCase& c, Rng& rng, bool randomLayouts) {
  ForwardTensors t = makeForwardTensors(c, rng, randomLayouts);
  const OpOutcome outcome = runForward(c, &t);
  if (!outcome.succeeded()) return c.describe() + ": " + outcome.describe();
  const ElementBounds expected =
      expectForward(c, t.input.dense(), t.weight.dense(), t.bias.dense());
  std::string problem = compareOutput("output", t.output, expected);
  if (problem.empty()) problem = t.output.outOfViewDamage();
  return problem.empty() ? "" : c.describe() + ": " + problem;
}

}  // namespace numerics
