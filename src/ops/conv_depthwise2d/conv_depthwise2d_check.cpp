// Phase-1 validation of aclnnConvDepthwise2d in the order of
// convolution-forward.md section 4 (steps D1-D8, first failure wins).

#include "ops/conv_depthwise2d/conv_depthwise2d_check.h"

#include <vector>

#include "ops/common/conv_rules.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_enums.h"

namespace aclcpu {
namespace ops {
namespace {

const char* const kApi = kDepthwisePhase1;

long long ll(int64_t v) { return static_cast<long long>(v); }

// Steps D2-D4.
aclnnStatus checkDtypesRanksFormats(const DepthwiseArgs& a) {
  aclnnStatus s;
  const NamedTensor self{a.self, "self"}, weight{a.weight, "weight"}, out{a.out, "out"},
      bias{a.bias, "bias"};
  if (a.bias) {
    if ((s = checkConvDtype(kApi, bias)) != kSuccess) return s;
    if ((s = checkSameDtype(kApi, self, bias)) != kSuccess) return s;
  }
  for (const NamedTensor& t : {self, weight, out})
    if ((s = checkConvDtype(kApi, t)) != kSuccess) return s;
  if ((s = checkSameDtype(kApi, self, weight)) != kSuccess) return s;
  if ((s = checkSameDtype(kApi, weight, out)) != kSuccess) return s;
  // D3
  for (const NamedTensor& t : {self, weight, out})
    if ((s = checkRank(kApi, t, 4)) != kSuccess) return s;
  if (a.bias && (s = checkRank(kApi, bias, 1)) != kSuccess) return s;
  const struct {
    const aclIntArray* array;
    const char* name;
  } arrays[] = {{a.stride, "stride"}, {a.dilation, "dilation"}, {a.padding, "padding"}};
  for (const auto& arr : arrays)
    if (arr.array->values.size() != 2)
      return fail(kParamInvalid, kApi, "%s: expected 2 elements, got %zu", arr.name,
                  arr.array->values.size());
  // D4
  for (const NamedTensor& t : {self, weight, out})
    if (rawFormat(t.tensor) != ACL_FORMAT_NCHW)
      return fail(kParamInvalid, kApi, "%s: expected format NCHW, got %s", t.name,
                  formatName(rawFormat(t.tensor)).c_str());
  return kSuccess;
}

aclnnStatus checkFits(const NamedTensor& t) {
  if (!t.tensor) return kSuccess;
  for (int64_t extent : t.tensor->viewShape)
    if (extent < 0) return kSuccess;  // reported by the value and shape rules
  return checkFitsIn64Bits(kApi, t);
}

// Step D5.
aclnnStatus checkValues(const DepthwiseArgs& a) {
  const std::vector<int64_t>& in = a.self->viewShape;
  const std::vector<int64_t>& w = a.weight->viewShape;
  const char* names[] = {"N", "C", "H", "W"};
  for (int i = 0; i < 4; ++i)
    if (in[i] < 0)
      return fail(kParamInvalid, kApi, "self: expected dim %s >= 0, got shape %s", names[i],
                  shapeString(in).c_str());
  for (int i = 0; i < 2; ++i)
    if (w[i] < 0)
      return fail(kParamInvalid, kApi, "weight: expected dim %s >= 0, got shape %s", names[i],
                  shapeString(w).c_str());
  for (int i = 2; i < 4; ++i)
    if (w[i] <= 0)
      return fail(kParamInvalid, kApi, "weight: expected kernel extents > 0, got shape %s",
                  shapeString(w).c_str());
  aclnnStatus s;
  for (const NamedTensor& t :
       {NamedTensor{a.self, "self"}, NamedTensor{a.weight, "weight"}, NamedTensor{a.bias, "bias"}})
    if ((s = checkFits(t)) != kSuccess) return s;
  const auto& stride = a.stride->values;
  const auto& dilation = a.dilation->values;
  const auto& padding = a.padding->values;
  for (int i = 0; i < 2; ++i)
    if (stride[i] <= 0)
      return fail(kParamInvalid, kApi, "stride[%d]: expected > 0, got %lld", i, ll(stride[i]));
  for (int i = 0; i < 2; ++i)
    if (dilation[i] <= 0)
      return fail(kParamInvalid, kApi, "dilation[%d]: expected > 0, got %lld", i, ll(dilation[i]));
  // Not in upstream's list (as for aclnnConvolution): negative padding is rejected.
  for (int i = 0; i < 2; ++i)
    if (padding[i] < 0)
      return fail(kParamInvalid, kApi, "padding[%d]: expected >= 0, got %lld", i, ll(padding[i]));
  if (elementCount(a.self) != 0) {
    for (int i = 0; i < 2; ++i) {
      const __int128 padded =
          static_cast<__int128>(in[2 + i]) + 2 * static_cast<__int128>(padding[i]);
      const __int128 span = static_cast<__int128>(dilation[i]) * (w[2 + i] - 1) + 1;
      if (padded < span)
        return fail(kParamInvalid, kApi,
                    "weight: expected the dilated kernel (%s) to fit in the padded self (%s) in "
                    "spatial dim %d",
                    wideShapeString({span}).c_str(), wideShapeString({padded}).c_str(), i);
    }
  }
  if (w[1] != 0 && w[1] != 1)
    return fail(kParamInvalid, kApi, "weight: expected dim 1 to be 1 (or 0), got shape %s",
                shapeString(w).c_str());
  if (in[1] != 0 && w[0] % in[1] != 0)
    return fail(kParamInvalid, kApi,
                "weight: expected dim 0 (%lld) to be a multiple of the channels of self (%lld)",
                ll(w[0]), ll(in[1]));
  if (a.bias && a.bias->viewShape[0] != w[0])
    return fail(kParamInvalid, kApi, "bias: expected shape [%lld] (weight dim 0), got %s", ll(w[0]),
                shapeString(a.bias->viewShape).c_str());
  return kSuccess;
}

// Step D6.
aclnnStatus checkOutputShape(const DepthwiseArgs& a) {
  const std::vector<int64_t>& in = a.self->viewShape;
  const std::vector<int64_t>& w = a.weight->viewShape;
  const std::vector<int64_t>& got = a.out->viewShape;
  std::vector<__int128> expected = {in[0], w[0]};
  for (int i = 0; i < 2; ++i) {
    const int64_t p = a.padding->values[i];
    expected.push_back(
        normalOutputExtent(in[2 + i], p, p, w[2 + i], a.stride->values[i], a.dilation->values[i]));
  }
  for (size_t i = 0; i < 4; ++i)
    if (got[i] != expected[i])
      return fail(kParamInvalid, kApi,
                  "out: shape %s does not match the inferred shape %s (dim %zu)",
                  shapeString(got).c_str(), wideShapeString(expected).c_str(), i);
  if ((elementCount(a.self) == 0 || elementCount(a.weight) == 0) && got[0] != 0 && got[1] != 0 &&
      got[2] != 0 && got[3] != 0)
    return fail(kParamInvalid, kApi,
                "out: expected an empty tensor because self or weight is empty, got shape %s",
                shapeString(got).c_str());
  for (int64_t extent : got)
    if (extent < 0)
      return fail(kParamInvalid, kApi, "out: expected non-negative dims, got shape %s",
                  shapeString(got).c_str());
  return checkFits({a.out, "out"});
}

// Step D8.
aclnnStatus checkKernelSize(const DepthwiseArgs& a) {
  aclnnStatus s = checkNonNull(kApi, {{a.kernelSize, "kernelSize"}});
  if (s != kSuccess) return s;
  const auto& k = a.kernelSize->values;
  if (k.size() < 2)
    return fail(kParamInvalid, kApi, "kernelSize: expected 2 elements [kH, kW], got %zu", k.size());
  const auto& w = a.weight->viewShape;
  for (int i = 0; i < 2; ++i)
    if (k[i] != w[2 + i])
      return fail(kParamInvalid, kApi, "kernelSize[%d]: expected the weight's %s (%lld), got %lld",
                  i, i == 0 ? "H" : "W", ll(w[2 + i]), ll(k[i]));
  return kSuccess;
}

}  // namespace

aclnnStatus checkConvDepthwise2d(const DepthwiseArgs& a) {
  aclnnStatus s = checkNonNull(kApi, {{a.self, "self"},
                                      {a.weight, "weight"},
                                      {a.stride, "stride"},
                                      {a.padding, "padding"},
                                      {a.dilation, "dilation"},
                                      {a.out, "out"},
                                      {a.workspaceSize, "workspaceSize"},
                                      {a.executor, "executor"}});
  if (s != kSuccess) return s;
  if ((s = checkDtypesRanksFormats(a)) != kSuccess) return s;
  if ((s = checkValues(a)) != kSuccess) return s;
  if ((s = checkOutputShape(a)) != kSuccess) return s;
  if ((s = checkCubeMathType(kApi, a.cubeMathType, 4)) != kSuccess) return s;  // D7
  return checkKernelSize(a);
}

}  // namespace ops
}  // namespace aclcpu
