// Phase-1 validation of aclnnConvolutionBackward, step by step as
// convolution-backward.md section 3 orders it (first failure wins), with the
// project decisions applied.

#include <string>
#include <vector>

#include "common/checked_math.h"
#include "ops/common/conv_rules.h"
#include "ops/common/cube_math.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/conv_backward/conv_backward_args.h"

namespace aclcpu {
namespace ops {
namespace {

const char* const kApi = kConvBackwardPhase1;

using Dims = std::vector<int64_t>;

int rank(const aclTensor* t) { return static_cast<int>(t->viewShape.size()); }

// Step 1.
aclnnStatus checkNulls(const ConvBackwardArgs& a) {
  aclnnStatus s = checkNonNull(kApi, {{a.gradOutput, "gradOutput"},
                                      {a.input, "input"},
                                      {a.weight, "weight"},
                                      {a.stride, "stride"},
                                      {a.padding, "padding"},
                                      {a.dilation, "dilation"},
                                      {a.outputPadding, "outputPadding"},
                                      {a.outputMask, "outputMask"}});
  if (s != kSuccess) return s;
  if (a.outputMask->values.size() != 3)
    return fail(kParamNullptr, kApi, "outputMask: expected 3 elements, got %zu",
                a.outputMask->values.size());
  const aclTensor* outputs[] = {a.gradInput, a.gradWeight, a.gradBias};
  const char* names[] = {"gradInput", "gradWeight", "gradBias"};
  for (int i = 0; i < 3; ++i) {
    if (a.outputMask->values[i] && !outputs[i])
      return fail(kParamNullptr, kApi,
                  "%s: expected a non-null tensor because outputMask[%d] is true, got nullptr",
                  names[i], i);
  }
  return checkNonNull(kApi, {{a.workspaceSize, "workspaceSize"}, {a.executor, "executor"}});
}

// The six tensors in the order the spec checks them; outputs may be null.
struct AllTensors {
  NamedTensor list[6];
  explicit AllTensors(const ConvBackwardArgs& a)
      : list{{a.gradOutput, "gradOutput"}, {a.input, "input"},           {a.weight, "weight"},
             {a.gradInput, "gradInput"},   {a.gradWeight, "gradWeight"}, {a.gradBias, "gradBias"}} {
  }
};

// Step 2.
aclnnStatus checkDtypes(const ConvBackwardArgs& a) {
  for (const NamedTensor& t : AllTensors(a).list) {
    const aclnnStatus s = checkConvDtype(kApi, t);
    if (s != kSuccess) return s;
  }
  return kSuccess;
}

// Section 2: the accepted storage format depends on the tensor's view rank.
aclnnStatus checkConvFormat(const aclTensor* t, const char* name) {
  const int r = rank(t);
  const int32_t f = rawFormat(*t);
  bool ok = false;
  const char* expected = "";
  switch (r) {
    case 3:
      ok = f == ACL_FORMAT_ND || f == ACL_FORMAT_NCL;
      expected = "ND or NCL for a 3-D tensor";
      break;
    case 4:
      ok = f == ACL_FORMAT_NCHW;
      expected = "NCHW for a 4-D tensor";
      break;
    case 5:
      ok = f == ACL_FORMAT_NCDHW;
      expected = "NCDHW for a 5-D tensor";
      break;
    default:
      return fail(kParamInvalid, kApi, "%s: expected a 3-D, 4-D or 5-D tensor, got %d-D shape %s",
                  name, r, shapeString(t->viewShape).c_str());
  }
  if (!ok)
    return fail(kParamInvalid, kApi, "%s: expected format %s, got %s", name, expected,
                formatName(f).c_str());
  return kSuccess;
}

// Step 4.
aclnnStatus checkFormats(const ConvBackwardArgs& a) {
  aclnnStatus s;
  if ((s = checkConvFormat(a.gradOutput, "gradOutput")) != kSuccess) return s;
  if ((s = checkConvFormat(a.input, "input")) != kSuccess) return s;
  if ((s = checkConvFormat(a.weight, "weight")) != kSuccess) return s;
  if (a.gradInput && (s = checkConvFormat(a.gradInput, "gradInput")) != kSuccess) return s;
  if (a.gradWeight && (s = checkConvFormat(a.gradWeight, "gradWeight")) != kSuccess) return s;
  if (!a.transposed && a.gradBias && rawFormat(*a.gradBias) != ACL_FORMAT_ND)
    return fail(kParamInvalid, kApi, "gradBias: expected format ND, got %s",
                formatName(rawFormat(*a.gradBias)).c_str());
  return kSuccess;
}

// Project decision 5: sizes must fit 64-bit arithmetic.
aclnnStatus checkSizes(const ConvBackwardArgs& a) {
  for (const NamedTensor& t : AllTensors(a).list) {
    const aclnnStatus s = checkFitsIn64Bits(kApi, t);
    if (s != kSuccess) return s;
  }
  return kSuccess;
}

// Step 5.
aclnnStatus checkParameterValues(const ConvBackwardArgs& a) {
  const Dims& stride = a.stride->values;
  const Dims& padding = a.padding->values;
  const Dims& dilation = a.dilation->values;
  const Dims& outputPadding = a.outputPadding->values;
  for (size_t i = 0; i < stride.size(); ++i)
    if (stride[i] < 1)
      return fail(kParamInvalid, kApi, "stride[%zu]: expected >= 1, got %lld", i,
                  static_cast<long long>(stride[i]));
  for (size_t i = 0; i < padding.size(); ++i)
    if (padding[i] < 0)
      return fail(kParamInvalid, kApi, "padding[%zu]: expected >= 0, got %lld", i,
                  static_cast<long long>(padding[i]));
  for (size_t i = 0; i < dilation.size(); ++i)
    if (dilation[i] < 1)
      return fail(kParamInvalid, kApi, "dilation[%zu]: expected >= 1, got %lld", i,
                  static_cast<long long>(dilation[i]));
  if (a.transposed) {
    for (size_t i = 0; i < outputPadding.size(); ++i) {
      if (outputPadding[i] < 0)
        return fail(kParamInvalid, kApi, "outputPadding[%zu]: expected >= 0, got %lld", i,
                    static_cast<long long>(outputPadding[i]));
      if (rank(a.input) == 5 && i < stride.size() && outputPadding[i] >= stride[i])
        return fail(kParamInvalid, kApi,
                    "outputPadding[%zu]: expected < stride[%zu] = %lld for a 3D transposed "
                    "convolution, got %lld",
                    i, i, static_cast<long long>(stride[i]),
                    static_cast<long long>(outputPadding[i]));
    }
  } else {
    for (size_t i = 0; i < outputPadding.size(); ++i)
      if (outputPadding[i] != 0)
        return fail(kParamInvalid, kApi,
                    "outputPadding[%zu]: expected 0 when transposed is false, got %lld", i,
                    static_cast<long long>(outputPadding[i]));
  }
  if (a.groups < 1) return fail(kParamInvalid, kApi, "groups: expected >= 1, got %d", a.groups);
  return kSuccess;
}

// Array lengths (step 8.7, also step 11.3): d for stride and dilation; d, or 4
// in 2D, for padding and outputPadding.
aclnnStatus checkArrayLengths(const ConvBackwardArgs& a) {
  const size_t d = static_cast<size_t>(rank(a.input) - 2);
  const struct {
    const aclIntArray* array;
    const char* name;
    bool fourAllowed;
  } arrays[] = {{a.stride, "stride", false},
                {a.padding, "padding", true},
                {a.dilation, "dilation", false},
                {a.outputPadding, "outputPadding", true}};
  for (const auto& arr : arrays) {
    const size_t n = arr.array->values.size();
    if (n == d || (arr.fourAllowed && d == 2 && n == 4)) continue;
    return fail(kParamInvalid, kApi, "%s: expected %zu elements%s for a %zuD convolution, got %zu",
                arr.name, d, arr.fourAllowed && d == 2 ? " (or 4)" : "", d, n);
  }
  return kSuccess;
}

// Step 8.
aclnnStatus checkStructure(const ConvBackwardArgs& a) {
  if (rank(a.gradOutput) != rank(a.input))
    return fail(kParamInvalid, kApi, "gradOutput: expected the rank of input (%d), got %d",
                rank(a.input), rank(a.gradOutput));
  if (rank(a.input) != rank(a.weight))
    return fail(kParamInvalid, kApi, "weight: expected the rank of input (%d), got %d",
                rank(a.input), rank(a.weight));
  if (elementCount(a.gradOutput) == 0)
    return fail(kParamInvalid, kApi,
                "gradOutput: expected a non-empty tensor when input and weight are non-empty, got "
                "shape %s",
                shapeString(a.gradOutput->viewShape).c_str());
  if (a.gradInput && a.gradInput->viewShape != a.input->viewShape)
    return fail(kParamInvalid, kApi, "gradInput: expected the shape of input %s, got %s",
                shapeString(a.input->viewShape).c_str(),
                shapeString(a.gradInput->viewShape).c_str());
  if (a.gradWeight && a.gradWeight->viewShape != a.weight->viewShape)
    return fail(kParamInvalid, kApi, "gradWeight: expected the shape of weight %s, got %s",
                shapeString(a.weight->viewShape).c_str(),
                shapeString(a.gradWeight->viewShape).c_str());
  if (a.gradBias) {
    if (rank(a.gradBias) != 1)
      return fail(kParamInvalid, kApi, "gradBias: expected a 1-D tensor, got shape %s",
                  shapeString(a.gradBias->viewShape).c_str());
    if (a.gradBias->viewShape[0] != a.gradOutput->viewShape[1])
      return fail(kParamInvalid, kApi,
                  "gradBias: expected shape [%lld] (the channels of gradOutput), got %s",
                  static_cast<long long>(a.gradOutput->viewShape[1]),
                  shapeString(a.gradBias->viewShape).c_str());
  }
  return checkArrayLengths(a);
}

// Step 9.
aclnnStatus checkChannels(const ConvBackwardArgs& a) {
  const aclTensor* x = a.transposed ? a.gradOutput : a.input;
  const aclTensor* y = a.transposed ? a.input : a.gradOutput;
  const char* xName = a.transposed ? "gradOutput" : "input";
  const char* yName = a.transposed ? "input" : "gradOutput";
  const int64_t xc = x->viewShape[1], yc = y->viewShape[1];
  const int64_t w0 = a.weight->viewShape[0], w1 = a.weight->viewShape[1];
  if (yc != w0)
    return fail(kParamInvalid, kApi, "%s: expected %lld channels (weight.shape[0]), got %lld",
                yName, static_cast<long long>(w0), static_cast<long long>(yc));
  if (w1 == 0 || xc % w1 != 0)
    return fail(kParamInvalid, kApi,
                "weight: expected shape[1] to be non-zero and to divide the %lld channels of %s, "
                "got %lld",
                static_cast<long long>(xc), xName, static_cast<long long>(w1));
  if (xc / w1 != a.groups)
    return fail(kParamInvalid, kApi,
                "groups: expected %s channels / weight.shape[1] = %lld / %lld = %lld, got %d",
                xName, static_cast<long long>(xc), static_cast<long long>(w1),
                static_cast<long long>(xc / w1), a.groups);
  if (xc == a.groups && (yc < a.groups || yc % a.groups != 0))
    return fail(kParamInvalid, kApi,
                "%s: expected a channel count that is a multiple of groups (%d) for a depthwise "
                "convolution, got %lld",
                yName, a.groups, static_cast<long long>(yc));
  return kSuccess;
}

// Step 10, extended by project decision 2 to every rank and to the batch: the
// forward relation between X (input, or gradOutput when transposed) and Y.
aclnnStatus checkSpatialShapes(const ConvBackwardArgs& a) {
  const aclTensor* x = a.transposed ? a.gradOutput : a.input;
  const aclTensor* y = a.transposed ? a.input : a.gradOutput;
  const int d = rank(a.input) - 2;
  Dims expected = {x->viewShape[0], y->viewShape[1]};
  bool valid = true;
  for (int s = 0; s < d; ++s) {
    int64_t before = 0, after = 0;
    paddingOf(a.padding->values, d, s, &before, &after);
    const int64_t k = a.weight->viewShape[2 + s];
    // Overflow is excluded: dims fit with room (checkSizes) and the attributes
    // are bounded by these checked additions.
    int64_t span = 0, padded = 0, reach = 0;
    if (!checkedMul(a.dilation->values[s], k - 1, &span) || !checkedAdd(span, 1, &span) ||
        !checkedAdd(x->viewShape[2 + s], before, &padded) || !checkedAdd(padded, after, &padded) ||
        !checkedAdd(padded, -span, &reach)) {
      return fail(kParamInvalid, kApi, "padding/dilation: values too large for 64-bit arithmetic");
    }
    if (reach < 0) {
      return fail(kParamInvalid, kApi,
                  "weight: expected the dilated kernel (%lld) to fit in the padded %s (%lld) in "
                  "spatial dim %d, got a larger kernel",
                  static_cast<long long>(span), a.transposed ? "gradOutput" : "input",
                  static_cast<long long>(padded), s);
    }
    // reach >= 0 here, so the shared (truncating) relation is the floor one.
    expected.push_back(static_cast<int64_t>(normalOutputExtent(
        x->viewShape[2 + s], before, after, k, a.stride->values[s], a.dilation->values[s])));
  }
  for (size_t i = 0; i < expected.size(); ++i)
    if (y->viewShape[i] != expected[i]) valid = false;
  if (!valid)
    return fail(kParamInvalid, kApi,
                "%s: expected shape %s from %s, weight, stride, padding and "
                "dilation, got %s",
                a.transposed ? "input" : "gradOutput", shapeString(expected).c_str(),
                a.transposed ? "gradOutput" : "input", shapeString(y->viewShape).c_str());
  return kSuccess;
}

// Step 11: the empty-tensor path.
aclnnStatus checkEmptyPath(const ConvBackwardArgs& a) {
  const auto& mask = a.outputMask->values;
  const Dims& in = a.input->viewShape;
  const Dims& w = a.weight->viewShape;
  if (mask[2]) {
    if (!a.biasSizes)
      return fail(kParamInvalid, kApi,
                  "biasSizes: expected a non-null array when outputMask[2] is true and a tensor "
                  "is empty, got nullptr");
    const Dims& sizes = a.biasSizes->values;
    if (sizes.size() != 1)
      return fail(kParamInvalid, kApi, "biasSizes: expected 1 element, got %zu", sizes.size());
    // gradOutput's rank is 3..5 here (step 4); 128-bit for weight[1] * groups.
    const __int128 channels =
        a.transposed ? static_cast<__int128>(w[1]) * a.groups : a.gradOutput->viewShape[1];
    if (sizes[0] != channels)
      return fail(kParamInvalid, kApi, "biasSizes: expected [%.0f], got [%lld]",
                  static_cast<double>(channels), static_cast<long long>(sizes[0]));
  }
  if (mask[0]) {
    if (in.size() <= 2 || (in[0] != 0 && in[1] != 0))
      return fail(kParamInvalid, kApi,
                  "input: expected batch or channels to be 0 when gradInput is requested for an "
                  "empty problem, got shape %s",
                  shapeString(in).c_str());
  }
  aclnnStatus s = checkArrayLengths(a);
  if (s != kSuccess) return s;

  const aclTensor* x = a.transposed ? a.gradOutput : a.input;
  if (w[0] % a.groups != 0)
    return fail(kParamInvalid, kApi, "weight: expected shape[0] divisible by groups (%d), got %lld",
                a.groups, static_cast<long long>(w[0]));
  if (!(a.transposed && in[0] == 0)) {
    const int64_t xc = x->viewShape.size() > 1 ? x->viewShape[1] : 0;
    if (xc != 0 || w[1] != 0) {
      if (w[1] == 0 || xc % w[1] != 0 || xc / w[1] != a.groups)
        return fail(kParamInvalid, kApi,
                    "groups: expected %s channels (%lld) = groups (%d) * weight.shape[1] (%lld)",
                    a.transposed ? "gradOutput" : "input", static_cast<long long>(xc), a.groups,
                    static_cast<long long>(w[1]));
    }
  }
  if (a.transposed) {
    if (w[0] <= 0 || w[0] != in[1])
      return fail(kParamInvalid, kApi,
                  "weight: expected shape[0] > 0 and equal to the channels of input (%lld), got "
                  "%lld",
                  static_cast<long long>(in[1]), static_cast<long long>(w[0]));
  } else {
    // Upstream checks the kernel fit with padding[0] and padding[1] even for a
    // 4-value padding (section 9, quirk 7); reproduced for identical statuses.
    const size_t d = in.size() - 2;
    for (size_t s = 0; s < d && s + 2 < w.size(); ++s) {
      // 128-bit: the attributes are unbounded (project decision 5).
      const __int128 span = static_cast<__int128>(a.dilation->values[s]) * (w[2 + s] - 1) + 1;
      const __int128 padded =
          static_cast<__int128>(in[2 + s]) + 2 * static_cast<__int128>(a.padding->values[s]);
      if (padded - span < 0)
        return fail(kParamInvalid, kApi,
                    "weight: expected the dilated kernel (%.0f) to fit in the padded input (%.0f) "
                    "in spatial dim %zu",
                    static_cast<double>(span), static_cast<double>(padded), s);
    }
  }
  // Project decision 4 computes the true gradBias, which needs gradBias to
  // hold one value per gradOutput channel. When gradOutput has no elements
  // every channel's sum is zero, so a zero-filled 1-D gradBias of any length
  // is the true result and upstream's status (success) stands.
  if (mask[2] && !(elementCount(a.gradOutput) == 0 && a.gradBias->viewShape.size() == 1)) {
    const int64_t channels = a.gradOutput->viewShape[1];
    if (a.gradBias->viewShape.size() != 1 || a.gradBias->viewShape[0] != channels)
      return fail(kParamInvalid, kApi,
                  "gradBias: expected shape [%lld] (the channels of gradOutput), got %s",
                  static_cast<long long>(channels), shapeString(a.gradBias->viewShape).c_str());
  }
  return kSuccess;
}

// Step 12: 3D grouped fp32 gradWeight with reduced-precision operands.
aclnnStatus checkComputePath(const ConvBackwardArgs& a) {
  if (rank(a.input) != 5 || !a.outputMask->values[1] || a.groups <= 1 ||
      rawDataType(*a.gradWeight) != ACL_FLOAT)
    return kSuccess;
  if (a.cubeMathType == 2)
    return fail(kParamInvalid, kApi,
                "cubeMathType: USE_FP16 (2) is not supported for a grouped 3D convolution with "
                "an fp32 gradWeight");
  const aclDataType promoted =
      promoteConvTypes(a.gradOutput->dataType, a.input->dataType, a.weight->dataType);
  if (promoted != ACL_FLOAT)
    return fail(kParamInvalid, kApi,
                "gradWeight: an fp32 gradWeight is not supported for a grouped 3D convolution "
                "with %s operands",
                dataTypeName(promoted).c_str());
  return kSuccess;
}

// Not checked by upstream's op_api layer; the device would reject it during
// construction (section 3 step 12.2), so it is an internal-construction error.
aclnnStatus checkGroupedOutputChannels(const ConvBackwardArgs& a) {
  if (a.weight->viewShape[0] % a.groups != 0)
    return fail(kInnerNullptr, kApi,
                "weight: expected shape[0] (%lld) to be divisible by groups (%d)",
                static_cast<long long>(a.weight->viewShape[0]), a.groups);
  return kSuccess;
}

}  // namespace

aclnnStatus checkConvBackward(const ConvBackwardArgs& a, bool* emptyPath) {
  aclnnStatus s;
  *emptyPath = false;
  if ((s = checkNulls(a)) != kSuccess) return s;
  if ((s = checkDtypes(a)) != kSuccess) return s;
  if ((s = checkFormats(a)) != kSuccess) return s;
  if ((s = checkSizes(a)) != kSuccess) return s;
  if ((s = checkParameterValues(a)) != kSuccess) return s;
  if ((s = checkCubeMathType(kApi, a.cubeMathType, 3)) != kSuccess) return s;  // step 6
  if (elementCount(a.input) == 0 || elementCount(a.weight) == 0) {
    *emptyPath = true;
    return checkEmptyPath(a);
  }
  if ((s = checkStructure(a)) != kSuccess) return s;
  if ((s = checkChannels(a)) != kSuccess) return s;
  if ((s = checkSpatialShapes(a)) != kSuccess) return s;
  if ((s = checkComputePath(a)) != kSuccess) return s;
  return checkGroupedOutputChannels(a);
}

}  // namespace ops
}  // namespace aclcpu
