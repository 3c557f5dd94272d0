// Phase-1 validation of aclnnConvolution, step by step as
// convolution-forward.md section 3 orders it (first failure wins), with the
// project decisions applied.

#include <string>
#include <vector>

#include "ops/common/conv_rules.h"
#include "ops/common/cube_math.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_enums.h"
#include "ops/conv_forward/conv_forward_args.h"

namespace aclcpu {
namespace ops {
namespace {

const char* const kApi = kConvForwardPhase1;

using Dims = std::vector<int64_t>;
using WideDims = std::vector<__int128>;

int rank(const aclTensor* t) { return static_cast<int>(t->viewShape.size()); }

long long ll(int64_t v) { return static_cast<long long>(v); }

// The dim named by `letter` in the tensor's format name (section 2.1); a
// format without that letter reads 1.
int64_t letterDim(const aclTensor* t, char letter) {
  const char* name = "";
  switch (rawFormat(t)) {
    case ACL_FORMAT_ND:
      name = "ND";
      break;
    case ACL_FORMAT_NCL:
      name = "NCL";
      break;
    case ACL_FORMAT_NCHW:
      name = "NCHW";
      break;
    case ACL_FORMAT_NHWC:
      name = "NHWC";
      break;
    case ACL_FORMAT_NCDHW:
      name = "NCDHW";
      break;
    case ACL_FORMAT_NDHWC:
      name = "NDHWC";
      break;
    default:
      break;
  }
  for (int i = 0; name[i]; ++i)
    if (name[i] == letter) return i < rank(t) ? t->viewShape[i] : 1;
  return 1;
}

// Step 1.
aclnnStatus checkNulls(const ConvForwardArgs& a) {
  aclnnStatus s = checkNonNull(kApi, {{a.input, "input"},
                                      {a.weight, "weight"},
                                      {a.stride, "stride"},
                                      {a.padding, "padding"},
                                      {a.dilation, "dilation"},
                                      {a.output, "output"},
                                      {a.workspaceSize, "workspaceSize"},
                                      {a.executor, "executor"}});
  if (s != kSuccess || !a.transposed) return s;
  return checkNonNull(kApi, {{a.outputPadding, "outputPadding"}});
}

// Step 2: the bias first, then input, weight, output; no equality rule.
aclnnStatus checkDtypes(const ConvForwardArgs& a) {
  const NamedTensor order[] = {
      {a.bias, "bias"}, {a.input, "input"}, {a.weight, "weight"}, {a.output, "output"}};
  for (const NamedTensor& t : order) {
    const aclnnStatus s = checkConvDtype(kApi, t);
    if (s != kSuccess) return s;
  }
  return kSuccess;
}

// Step 3.
aclnnStatus checkDims(const ConvForwardArgs& a) {
  const NamedTensor ranked[] = {{a.input, "input"}, {a.weight, "weight"}, {a.output, "output"}};
  for (const NamedTensor& t : ranked) {
    const int r = rank(t.tensor);
    if (r < 3 || r > 5)
      return fail(kParamInvalid, kApi, "%s: expected a 3-D, 4-D or 5-D tensor, got %d-D shape %s",
                  t.name, r, shapeString(t.tensor->viewShape).c_str());
  }
  const int r = rank(a.input);
  if (rank(a.weight) != r)
    return fail(kParamInvalid, kApi, "weight: expected the rank of input (%d), got %d", r,
                rank(a.weight));
  if (rank(a.output) != r)
    return fail(kParamInvalid, kApi, "output: expected the rank of input (%d), got %d", r,
                rank(a.output));
  if (a.bias) {
    if (rank(a.bias) != 1)
      return fail(kParamInvalid, kApi, "bias: expected a 1-D tensor, got rank %d (shape %s)",
                  rank(a.bias), shapeString(a.bias->viewShape).c_str());
    const __int128 channels = a.transposed
                                  ? static_cast<__int128>(letterDim(a.weight, 'C')) * a.groups
                                  : letterDim(a.weight, 'N');
    if (a.bias->viewShape[0] != channels)
      return fail(kParamInvalid, kApi, "bias: expected shape %s (%s), got %s",
                  wideShapeString({channels}).c_str(),
                  a.transposed ? "weight C * groups" : "weight N",
                  shapeString(a.bias->viewShape).c_str());
  }
  const size_t d = static_cast<size_t>(r - 2);
  if (a.stride->values.size() != d)
    return fail(kParamInvalid, kApi,
                "stride: expected %zu elements for a %zuD convolution, got %zu", d, d,
                a.stride->values.size());
  if (a.dilation->values.size() != d)
    return fail(kParamInvalid, kApi,
                "dilation: expected %zu elements for a %zuD convolution, got %zu", d, d,
                a.dilation->values.size());
  const bool twoSided = d == 2 || (d == 1 && !a.transposed);
  const size_t n = a.padding->values.size();
  if (!(n == d || (twoSided && n == 2 * d)))
    return fail(
        kParamInvalid, kApi, "padding: expected %zu elements%s for a %zuD%s convolution, got %zu",
        d,
        twoSided ? (d == 1 ? " (or 2: [left, right])" : " (or 4: [top, bottom, left, right])") : "",
        d, a.transposed ? " transposed" : "", n);
  if (a.transposed && a.outputPadding->values.size() != d)
    return fail(kParamInvalid, kApi,
                "outputPadding: expected %zu elements for a %zuD transposed convolution, got %zu",
                d, d, a.outputPadding->values.size());
  return kSuccess;
}

aclnnStatus checkFormatIs(const NamedTensor& t, int expected) {
  if (rawFormat(t.tensor) == expected) return kSuccess;
  return fail(kParamInvalid, kApi, "%s: expected format %s, got %s", t.name,
              formatName(expected).c_str(), formatName(rawFormat(t.tensor)).c_str());
}

// Step 4 (decision 6: FRACTAL_Z and every other private format fail here).
aclnnStatus checkFormats(const ConvForwardArgs& a) {
  if (rawFormat(a.input) != rawFormat(a.output))
    return fail(kParamInvalid, kApi, "output: expected the format of input (%s), got %s",
                formatName(rawFormat(a.input)).c_str(), formatName(rawFormat(a.output)).c_str());
  if (a.bias) {
    const int f = rawFormat(a.bias);
    if (f != ACL_FORMAT_NCL && f != ACL_FORMAT_NCHW && f != ACL_FORMAT_NCDHW && f != ACL_FORMAT_ND)
      return fail(kParamInvalid, kApi, "bias: expected format ND, NCL, NCHW or NCDHW, got %s",
                  formatName(f).c_str());
  }
  const NamedTensor input{a.input, "input"}, weight{a.weight, "weight"}, output{a.output, "output"};
  aclnnStatus s = kSuccess;
  switch (rank(a.input)) {
    case 3:
      for (const NamedTensor& t : {input, weight, output})
        if ((s = checkFormatIs(t, ACL_FORMAT_NCL)) != kSuccess) return s;
      return kSuccess;
    case 4: {
      // Not transposed, upstream checks the weight first.
      const NamedTensor order[] = {a.transposed ? input : weight, a.transposed ? weight : input,
                                   output};
      for (const NamedTensor& t : order)
        if ((s = checkFormatIs(t, ACL_FORMAT_NCHW)) != kSuccess) return s;
      return kSuccess;
    }
    default:
      for (const NamedTensor& t : {input, weight, output}) {
        const int f = rawFormat(t.tensor);
        if (f != ACL_FORMAT_NCDHW && f != ACL_FORMAT_NDHWC)
          return fail(kParamInvalid, kApi, "%s: expected format NCDHW or NDHWC, got %s", t.name,
                      formatName(f).c_str());
      }
      return kSuccess;
  }
}

// Project decision 4: sizes must fit 64-bit arithmetic (negative extents are
// reported by their own rules, steps 5(a) and 6).
aclnnStatus checkFits(const NamedTensor& t) {
  for (int64_t extent : t.tensor->viewShape)
    if (extent < 0) return kSuccess;
  return checkFitsIn64Bits(kApi, t);
}

// Step 5.
aclnnStatus checkValues(const ConvForwardArgs& a) {
  const Dims in = logicalDims(a.input), w = logicalDims(a.weight);
  const int d = rank(a.input) - 2;
  // (a)
  const char* names[] = {"N", "C"};
  for (int i = 0; i < 2; ++i)
    if (in[i] < 0)
      return fail(kParamInvalid, kApi, "input: expected dim %s >= 0, got shape %s", names[i],
                  shapeString(a.input->viewShape).c_str());
  for (int i = 0; i < 2; ++i)
    if (w[i] < 0)
      return fail(kParamInvalid, kApi, "weight: expected dim %s >= 0, got shape %s", names[i],
                  shapeString(a.weight->viewShape).c_str());
  for (int s = 0; s < d; ++s)
    if (in[2 + s] < 0)
      return fail(kParamInvalid, kApi, "input: expected spatial dims >= 0, got shape %s",
                  shapeString(a.input->viewShape).c_str());
  for (int s = 0; s < d; ++s)
    if (w[2 + s] <= 0)
      return fail(kParamInvalid, kApi,
                  "weight: expected kernel extents > 0, got %lld in spatial dim %d (shape %s)",
                  ll(w[2 + s]), s, shapeString(a.weight->viewShape).c_str());
  aclnnStatus st;
  for (const NamedTensor& t : {NamedTensor{a.input, "input"}, NamedTensor{a.weight, "weight"},
                               NamedTensor{a.bias, "bias"}})
    if (t.tensor && (st = checkFits(t)) != kSuccess) return st;
  // (b), (c)
  const Dims& stride = a.stride->values;
  const Dims& dilation = a.dilation->values;
  const Dims& padding = a.padding->values;
  for (int s = 0; s < d; ++s)
    if (stride[s] <= 0)
      return fail(kParamInvalid, kApi, "stride[%d]: expected > 0, got %lld", s, ll(stride[s]));
  for (int s = 0; s < d; ++s)
    if (dilation[s] <= 0)
      return fail(kParamInvalid, kApi, "dilation[%d]: expected > 0, got %lld", s, ll(dilation[s]));
  // Not in upstream's list; a negative padding would be a crop, which PyTorch
  // rejects too (see the report of issue 8).
  for (size_t i = 0; i < padding.size(); ++i)
    if (padding[i] < 0)
      return fail(kParamInvalid, kApi, "padding[%zu]: expected >= 0, got %lld", i, ll(padding[i]));
  // (d)
  if (!a.transposed && elementCount(a.input) != 0) {
    for (int s = 0; s < d; ++s) {
      int64_t before = 0, after = 0;
      paddingOf(padding, d, s, &before, &after);
      const __int128 padded = static_cast<__int128>(in[2 + s]) + before + after;
      const __int128 span = static_cast<__int128>(dilation[s]) * (w[2 + s] - 1) + 1;
      if (padded < span)
        return fail(kParamInvalid, kApi,
                    "weight: expected the dilated kernel (%s) to fit in the padded input (%s) in "
                    "spatial dim %d",
                    wideShapeString({span}).c_str(), wideShapeString({padded}).c_str(), s);
    }
  }
  // (e)
  if (a.groups <= 0)
    return fail(kParamInvalid, kApi, "groups: expected > 0, got %lld", ll(a.groups));
  // (f)
  if (a.transposed) {
    if (w[0] != in[1])
      return fail(kParamInvalid, kApi,
                  "weight: expected dim N = the channels of input (%lld) for a transposed "
                  "convolution, got %lld",
                  ll(in[1]), ll(w[0]));
    const Dims& op = a.outputPadding->values;
    for (int s = 0; s < d; ++s) {
      if (op[s] >= stride[s] && op[s] >= dilation[s])
        return fail(kParamInvalid, kApi,
                    "outputPadding[%d]: expected < stride (%lld) or < dilation (%lld), got %lld", s,
                    ll(stride[s]), ll(dilation[s]), ll(op[s]));
      if (op[s] < 0)
        return fail(kParamInvalid, kApi, "outputPadding[%d]: expected >= 0, got %lld", s,
                    ll(op[s]));
    }
  } else if (static_cast<__int128>(w[1]) * a.groups != in[1]) {
    return fail(kParamInvalid, kApi,
                "input: expected weight C (%lld) * groups (%lld) channels, got %lld", ll(w[1]),
                ll(a.groups), ll(in[1]));
  }
  // (g)
  if (w[0] % a.groups != 0)
    return fail(kParamInvalid, kApi, "weight: expected dim N (%lld) divisible by groups (%lld)",
                ll(w[0]), ll(a.groups));
  // (h) is implied by step 3. (i)
  if (a.transposed && in[1] == 0)
    return fail(kParamInvalid, kApi,
                "input: expected a non-zero channel count for a transposed convolution, got "
                "shape %s",
                shapeString(a.input->viewShape).c_str());
  // (j), the chip's backprop-pad limit, is not enforced (decision 4).
  return kSuccess;
}

// Section 6.6 in [N, C, spatial...] order.
WideDims inferredOutput(const ConvForwardArgs& a) {
  const Dims in = logicalDims(a.input), w = logicalDims(a.weight);
  const int d = rank(a.input) - 2;
  WideDims out = {in[0], a.transposed ? static_cast<__int128>(w[1]) * a.groups : w[0]};
  for (int s = 0; s < d; ++s) {
    int64_t before = 0, after = 0;
    paddingOf(a.padding->values, d, s, &before, &after);
    out.push_back(a.transposed ? transposedOutputExtent(in[2 + s], before, after, w[2 + s],
                                                        a.stride->values[s], a.dilation->values[s],
                                                        a.outputPadding->values[s])
                               : normalOutputExtent(in[2 + s], before, after, w[2 + s],
                                                    a.stride->values[s], a.dilation->values[s]));
  }
  return out;
}

// Step 6 (with decisions 2 and 4).
aclnnStatus checkOutputShape(const ConvForwardArgs& a) {
  const WideDims expected = inferredOutput(a);
  const Dims got = logicalDims(a.output);
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!fitsInt64(expected[i]))
      return fail(kParamInvalid, kApi,
                  "output: the inferred shape %s does not fit 64-bit arithmetic (dim %zu)",
                  wideShapeString(expected).c_str(), i);
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (got[i] != expected[i])
      return fail(kParamInvalid, kApi,
                  "output: shape %s does not match the inferred shape %s (dim %zu, in [N, C, "
                  "spatial...] order)",
                  shapeString(a.output->viewShape).c_str(), wideShapeString(expected).c_str(), i);
  }
  if (elementCount(a.input) == 0 || elementCount(a.weight) == 0) {
    bool outputEmpty = false;
    for (int64_t extent : got) outputEmpty = outputEmpty || extent == 0;
    if (!outputEmpty)
      return fail(kParamInvalid, kApi,
                  "output: expected an empty tensor because input or weight is empty, got shape "
                  "%s",
                  shapeString(a.output->viewShape).c_str());
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] < 0)
      return fail(kParamInvalid, kApi, "output: expected non-negative dims, got shape %s",
                  shapeString(a.output->viewShape).c_str());
  return checkFits({a.output, "output"});
}

// Step 9.2: the transposed kernels exist only for equal operand and result
// dtypes; an fp32 result of fp16/bf16 compute has none (decision 5).
aclnnStatus checkTransposedKernel(const ConvForwardArgs& a) {
  if (!a.transposed || a.cubeMathType == 2) return kSuccess;
  if (elementCount(a.input) == 0 || elementCount(a.weight) == 0 || elementCount(a.output) == 0)
    return kSuccess;
  const int promoted = promoteConvTypes(a.input->dataType, a.weight->dataType, a.weight->dataType);
  if (promoted == ACL_FLOAT || rawDataType(a.output) != ACL_FLOAT) return kSuccess;
  return fail(kRuntimeError, kApi,
              "output: no transposed convolution kernel computes in %s with an fp32 output; "
              "expected an output of dtype %s or cubeMathType 2",
              dataTypeName(promoted).c_str(), dataTypeName(promoted).c_str());
}

}  // namespace

std::vector<int64_t> logicalDims(const aclTensor* t) {
  std::vector<int64_t> dims(t->viewShape.size());
  for (size_t i = 0; i < dims.size(); ++i)
    dims[i] = t->viewShape[physicalAxis(t, static_cast<int>(i))];
  return dims;
}

int physicalAxis(const aclTensor* t, int logical) {
  if (rank(t) == 5 && rawFormat(t) == ACL_FORMAT_NDHWC) {
    static const int axes[5] = {0, 4, 1, 2, 3};
    return axes[logical];
  }
  return logical;
}

aclnnStatus checkConvForward(const ConvForwardArgs& a) {
  aclnnStatus s;
  if ((s = checkNulls(a)) != kSuccess) return s;
  if ((s = checkDtypes(a)) != kSuccess) return s;
  if ((s = checkDims(a)) != kSuccess) return s;
  if ((s = checkFormats(a)) != kSuccess) return s;
  if ((s = checkValues(a)) != kSuccess) return s;
  if ((s = checkOutputShape(a)) != kSuccess) return s;
  if ((s = checkCubeMathType(kApi, a.cubeMathType, 4)) != kSuccess) return s;  // step 7
  // Step 8 (SoC) always passes on the CPU.
  return checkTransposedKernel(a);
}

}  // namespace ops
}  // namespace aclcpu
