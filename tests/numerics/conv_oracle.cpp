#include "numerics/conv_oracle.h"

#include <cmath>
#include <sstream>

namespace numerics {
namespace {

using aclcpu::reference::OperandRounding;

constexpr double kFloatUnit = 0x1p-24;

double halfUlpRelative(DType t) {
  switch (t) {
    case DType::F16:
      return 0x1p-11;
    case DType::BF16:
      return 0x1p-8;
    default:
      return kFloatUnit;
  }
}

double halfSmallestSubnormal(DType t) { return t == DType::F16 ? 0x1p-25 : 0x1p-134; }

std::vector<double> absolute(std::vector<double> values) {
  for (double& v : values) v = std::fabs(v);
  return values;
}

ElementBounds bound(const std::vector<double>& value, const std::vector<double>& absSum,
                    int64_t terms, std::initializer_list<DType> roundings) {
  ElementBounds out;
  out.value = value;
  out.tolerance.resize(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    double e = accumulationBound(terms, absSum[i]);
    for (DType t : roundings) e = afterRounding(t, value[i], e);
    out.tolerance[i] = e;
  }
  return out;
}

// gradBias: per channel of gradOutput, the sum over batch and spatial dims.
void channelSums(const Shape& shape, const std::vector<double>& values, std::vector<double>* sums,
                 std::vector<double>* absSums) {
  const int64_t channels = shape[1];
  int64_t spatial = 1;
  for (size_t i = 2; i < shape.size(); ++i) spatial *= shape[i];
  sums->assign(channels, 0.0);
  absSums->assign(channels, 0.0);
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < spatial; ++s) {
        const double v = values[(n * channels + c) * spatial + s];
        (*sums)[c] += v;
        (*absSums)[c] += std::fabs(v);
      }
}

}  // namespace

OperandRounding operandRoundingOf(DType gradOutput, DType input, DType weight,
                                  int8_t cubeMathType) {
  if (cubeMathType == 2) return OperandRounding::F16;
  // A mixed promotion to fp32 is exact; a uniform fp16/bf16 stays itself.
  const bool hf32 = cubeMathType == 1 || cubeMathType == 3;
  return promotedType(gradOutput, input, weight) == DType::F32 && hf32 ? OperandRounding::HF32
                                                                       : OperandRounding::None;
}

DType dataGradDtypeOf(DType gradOutput, DType input, DType weight, int8_t cubeMathType) {
  return cubeMathType == 2 ? DType::F16 : promotedType(gradOutput, input, weight);
}

std::vector<double> roundOperands(const std::vector<double>& values, OperandRounding rounding) {
  std::vector<double> out(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = aclcpu::reference::roundOperand(static_cast<float>(values[i]), rounding);
  return out;
}

double accumulationBound(int64_t terms, double absSum) {
  return static_cast<double>(terms + 2) * kFloatUnit * absSum;
}

double afterRounding(DType target, double value, double bound) {
  return bound + halfUlpRelative(target) * (std::fabs(value) + bound) +
         halfSmallestSubnormal(target);
}

ConvExpectation expectConvolutionBackward(const ConvCase& c, const std::vector<double>& gradOutput,
                                          const std::vector<double>& input,
                                          const std::vector<double>& weight) {
  const OperandRounding rounding =
      operandRoundingOf(c.gradOutputType, c.inputType, c.weightType, c.cubeMathType);
  const auto params = c.referenceParams();
  const auto go = roundOperands(gradOutput, rounding);
  const auto in = roundOperands(input, rounding);
  const auto w = roundOperands(weight, rounding);
  const auto exact = aclcpu::reference::convolutionBackward(params, go, in, w);
  const auto magnitude =
      aclcpu::reference::convolutionBackward(params, absolute(go), absolute(in), absolute(w));

  ConvExpectation e;
  e.gradInput = bound(exact.gradInput, magnitude.gradInput, c.gradInputTerms(),
                      {dataGradDtypeOf(c.gradOutputType, c.inputType, c.weightType, c.cubeMathType),
                       c.gradInputType});
  e.gradWeight =
      bound(exact.gradWeight, magnitude.gradWeight, c.gradWeightTerms(), {c.gradWeightType});
  std::vector<double> sums, absSums;
  channelSums(c.gradOutputShape, gradOutput, &sums, &absSums);
  e.gradBias = bound(sums, absSums, c.gradBiasTerms(), {c.gradOutputType, c.gradBiasType});
  return e;
}

std::string compareOutput(const char* name, const HostTensor& got, const ElementBounds& expected) {
  std::ostringstream out;
  int64_t bad = 0;
  for (int64_t i = 0; i < got.count(); ++i) {
    const double value = got.get(i);
    const double want = expected.value[i];
    const double diff = std::fabs(value - want);
    if (diff <= expected.tolerance[i]) continue;
    if (++bad <= 3)
      out << "\n  " << name << "[" << i << "] = " << value << ", expected " << want << " +- "
          << expected.tolerance[i] << " (off by " << diff << ")";
  }
  if (bad == 0) return "";
  std::ostringstream head;
  head << bad << " of " << got.count() << " " << name << " elements out of bounds:" << out.str();
  return head.str();
}

}  // namespace numerics
