#include "reference_check.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

using aclcpu::reference::ConvParams;
using aclcpu::reference::OperandRounding;

std::vector<int64_t> samplePositions(int64_t n, int samples, std::mt19937& rng) {
  std::vector<int64_t> positions;
  if (n <= samples) {
    for (int64_t i = 0; i < n; ++i) positions.push_back(i);
    return positions;
  }
  std::uniform_int_distribution<int64_t> dist(0, n - 1);
  positions.push_back(0);
  positions.push_back(n - 1);
  while (static_cast<int>(positions.size()) < samples) positions.push_back(dist(rng));
  return positions;
}

ConvParams referenceParams(const ProblemSpec& spec) {
  ConvParams p;
  p.spatialDims = spec.spatialDims;
  p.transposed = spec.transposed;
  p.groups = spec.groups;
  p.inputShape = spec.inputShape();
  p.weightShape = spec.weightShape();
  p.gradOutputShape = spec.gradOutputShape();
  p.stride = spec.strideArray();
  p.dilation = spec.dilationArray();
  const auto padding = spec.paddingArray();
  if (spec.fourValuePadding) {
    p.padBefore = {padding[0], padding[2]};
    p.padAfter = {padding[1], padding[3]};
  } else {
    p.padBefore = p.padAfter = padding;
  }
  return p;
}

// The forward result y of a convolution is the gradInput of its adjoint:
// y = conv(x, w) is the dX of the transposed convolution whose gradOutput
// is x, and y = conv_transpose(x, w) the dX of the normal one. So the
// reference's gradInputAt, with the roles of input and gradOutput swapped
// and the transposed flag flipped, gives each element of y.
ConvParams forwardAsGradInput(const ProblemSpec& spec) {
  ConvParams p = referenceParams(spec);
  p.transposed = !p.transposed;
  std::swap(p.inputShape, p.gradOutputShape);
  return p;
}

// |got - ref| / bound, less `slack` (see absoluteSlack) in the numerator.
// NaN (a NaN or infinite result) counts as an infinite error: std::max
// would otherwise drop it.
double relative(double got, double ref, double bound, double slack) {
  const double error = std::max(std::fabs(got - ref) - slack, 0.0) / std::max(bound, 1e-30);
  return std::isnan(error) ? HUGE_VAL : error;
}

// The absolute error one rounding of a result to fp16 can make below fp16's
// normal range: half its subnormal spacing, 2^-25. A relative bound cannot
// cover it (a single product of 2.26e-7 comes out as 2.4e-7, 6% off), so it
// is allowed on top when the compute or output dtype is fp16. Every other
// dtype's subnormals lie far below any value the random operands produce.
double absoluteSlack(const RunOptions& options) {
  const bool fp16 = options.cubeMathType == 2 || options.dtype == ACL_FLOAT16;
  return fp16 ? std::ldexp(1.0, -25) : 0.0;
}

int64_t spatialCount(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (size_t i = 2; i < shape.size(); ++i) n *= shape[i];
  return n;
}

}  // namespace

OperandRounding operandRounding(aclDataType dtype, int8_t math) {
  if (math == 2) return OperandRounding::F16;
  if (dtype == ACL_FLOAT)
    return (math == 1 || math == 3) ? OperandRounding::HF32 : OperandRounding::None;
  return dtype == ACL_FLOAT16 ? OperandRounding::F16 : OperandRounding::BF16;
}

// Relative error bound for an output of `dtype`, measured against sum|terms|:
// fp32 accumulation, plus the final roundings (compute dtype, then the
// output dtype).
double toleranceFor(aclDataType dtype, int8_t math) {
  double tol = 2e-5;
  if (math == 2 || dtype == ACL_FLOAT16) tol = std::max(tol, 1e-3);
  if (dtype == ACL_BF16) tol = std::max(tol, 8e-3);
  return tol;
}

const char* dtypeName(aclDataType dtype) {
  return dtype == ACL_FLOAT16 ? "fp16" : dtype == ACL_BF16 ? "bf16" : "fp32";
}

CheckResult checkOutputs(const ProblemSpec& spec, const RunOptions& options, const LayerTensors& t,
                         const CheckRequest& request, std::mt19937& rng) {
  CheckResult result;
  const double slack = absoluteSlack(options);
  auto relative = [slack](double got, double ref, double bound) {
    return ::relative(got, ref, bound, slack);
  };
  const OperandRounding rounding = operandRounding(options.dtype, options.cubeMathType);
  const auto x = t.reader(Role::kX, rounding, false), xAbs = t.reader(Role::kX, rounding, true);
  const auto w = t.reader(Role::kW, rounding, false), wAbs = t.reader(Role::kW, rounding, true);

  if (request.outputs[kOutY]) {
    const ConvParams params = forwardAsGradInput(spec);
    // The bias enters the fp32 accumulator exactly, except that an fp16
    // compute dtype rounds it to fp16 first (spec decision 8; never HF32).
    const bool fp16Compute = options.cubeMathType == 2 || options.dtype == ACL_FLOAT16;
    const auto b =
        t.reader(Role::kB, fp16Compute ? OperandRounding::F16 : OperandRounding::None, false);
    const std::vector<int64_t>& shape = t.referenceShape(Role::kY);
    const int64_t plane = spatialCount(shape);
    const auto got = t.download(Role::kY);
    for (int64_t i : samplePositions(t.count(Role::kY), options.samples, rng)) {
      double ref = aclcpu::reference::gradInputAt(params, x, x, w, i);
      double bound = aclcpu::reference::gradInputAt(params, xAbs, xAbs, wAbs, i);
      if (request.forwardBias) {
        const double bias = b((i / plane) % shape[1]);
        ref += bias;
        bound += std::fabs(bias);
      }
      const double value = got[static_cast<size_t>(t.deviceIndex(Role::kY, i))];
      result.maxError[kOutY] = std::max(result.maxError[kOutY], relative(value, ref, bound));
    }
    result.checked[kOutY] = true;
  }

  if (!request.outputs[kOutDX] && !request.outputs[kOutDW] && !request.outputs[kOutDB])
    return result;
  const ConvParams params = referenceParams(spec);
  const auto dy = t.reader(Role::kDY, rounding, false), dyAbs = t.reader(Role::kDY, rounding, true);
  if (request.outputs[kOutDX]) {
    const auto got = t.download(Role::kDX);
    for (int64_t i : samplePositions(t.count(Role::kDX), options.samples, rng)) {
      const double ref = aclcpu::reference::gradInputAt(params, dy, x, w, i);
      const double bound = aclcpu::reference::gradInputAt(params, dyAbs, xAbs, wAbs, i);
      const double value = got[static_cast<size_t>(t.deviceIndex(Role::kDX, i))];
      result.maxError[kOutDX] = std::max(result.maxError[kOutDX], relative(value, ref, bound));
    }
    result.checked[kOutDX] = true;
  }
  if (request.outputs[kOutDW]) {
    const auto got = t.download(Role::kDW);
    for (int64_t i : samplePositions(t.count(Role::kDW), options.samples, rng)) {
      const double ref = aclcpu::reference::gradWeightAt(params, dy, x, w, i);
      const double bound = aclcpu::reference::gradWeightAt(params, dyAbs, xAbs, wAbs, i);
      const double value = got[static_cast<size_t>(t.deviceIndex(Role::kDW, i))];
      result.maxError[kOutDW] = std::max(result.maxError[kOutDW], relative(value, ref, bound));
    }
    result.checked[kOutDW] = true;
  }
  if (request.outputs[kOutDB]) {
    const auto got = t.download(Role::kDB);
    // gradBias is summed from the original gradOutput, never rounded by cubeMathType.
    const auto dyPlain = t.reader(Role::kDY, OperandRounding::None, false),
               dyPlainAbs = t.reader(Role::kDY, OperandRounding::None, true);
    for (int64_t c = 0; c < t.count(Role::kDB); ++c) {
      const double ref = aclcpu::reference::gradBiasAt(params, dyPlain, c);
      const double bound = aclcpu::reference::gradBiasAt(params, dyPlainAbs, c);
      result.maxError[kOutDB] =
          std::max(result.maxError[kOutDB], relative(got[static_cast<size_t>(c)], ref, bound));
    }
    result.checked[kOutDB] = true;
  }
  return result;
}
