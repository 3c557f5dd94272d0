// Phase-1 validation of aclnnConvTbc in the order of convolution-forward.md
// section 5 (steps T1-T8, first failure wins).

#include "ops/conv_tbc/conv_tbc_check.h"

#include <vector>

#include "ops/common/conv_rules.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_enums.h"

namespace aclcpu {
namespace ops {
namespace {

const char* const kApi = kConvTbcForwardPhase1;

long long ll(int64_t v) { return static_cast<long long>(v); }

// Steps T2-T4.
aclnnStatus checkDtypesRanksFormats(const TbcArgs& a) {
  aclnnStatus s;
  const NamedTensor self{a.self, "self"}, weight{a.weight, "weight"}, output{a.output, "output"},
      bias{a.bias, "bias"};
  if ((s = checkConvDtype(kApi, bias)) != kSuccess) return s;
  if ((s = checkConvDtype(kApi, self)) != kSuccess) return s;
  if ((s = checkSameDtype(kApi, self, weight)) != kSuccess) return s;
  if ((s = checkSameDtype(kApi, weight, output)) != kSuccess) return s;
  // T3 (decision 2: upstream would index a non-3-D tensor before this).
  for (const NamedTensor& t : {self, weight, output})
    if ((s = checkRank(kApi, t, 3)) != kSuccess) return s;
  if ((s = checkRank(kApi, bias, 1)) != kSuccess) return s;
  // T4: the letters are not used; the layout is always [T, B, C].
  for (const NamedTensor& t : {self, weight, output}) {
    const int f = rawFormat(t.tensor);
    if (f != ACL_FORMAT_ND && f != ACL_FORMAT_NCL)
      return fail(kParamInvalid, kApi, "%s: expected format ND or NCL, got %s", t.name,
                  formatName(f).c_str());
  }
  return kSuccess;
}

// Steps T5 and T6.
aclnnStatus checkValuesAndShape(const TbcArgs& a) {
  const NamedTensor tensors[] = {
      {a.self, "self"}, {a.weight, "weight"}, {a.output, "output"}, {a.bias, "bias"}};
  for (const NamedTensor& t : tensors) {
    for (int64_t extent : t.tensor->viewShape)
      if (extent < 0)
        return fail(kParamInvalid, kApi, "%s: expected non-negative dims, got shape %s", t.name,
                    shapeString(t.tensor->viewShape).c_str());
  }
  aclnnStatus s;
  for (const NamedTensor& t : tensors)
    if ((s = checkFitsIn64Bits(kApi, t)) != kSuccess) return s;
  const std::vector<int64_t>& in = a.self->viewShape;
  const std::vector<int64_t>& w = a.weight->viewShape;
  const std::vector<int64_t>& out = a.output->viewShape;
  if (a.bias->viewShape[0] != w[2])
    return fail(kParamInvalid, kApi, "bias: expected shape [%lld] (weight dim 2, C_out), got %s",
                ll(w[2]), shapeString(a.bias->viewShape).c_str());
  if (w[0] <= 0)
    return fail(kParamInvalid, kApi, "weight: expected a kernel size (dim 0) > 0, got shape %s",
                shapeString(w).c_str());
  if (a.pad < 0) return fail(kParamInvalid, kApi, "pad: expected >= 0, got %lld", ll(a.pad));
  // Upstream adds pad once here (section 5 step T5.5); reproduced.
  if (elementCount(a.self) != 0 && static_cast<__int128>(in[0]) + a.pad < w[0])
    return fail(kParamInvalid, kApi,
                "weight: expected a kernel size (%lld) <= T + pad = %lld + %lld (self shape %s)",
                ll(w[0]), ll(in[0]), ll(a.pad), shapeString(in).c_str());
  if (w[1] != in[2])
    return fail(kParamInvalid, kApi,
                "weight: expected dim 1 = the channels of self (%lld), got shape %s", ll(in[2]),
                shapeString(w).c_str());
  // T6, in upstream's order on the permuted views: B, C_out, T_out.
  const __int128 tOut = static_cast<__int128>(in[0]) + 2 * static_cast<__int128>(a.pad) - w[0] + 1;
  const std::vector<__int128> expected = {tOut, in[1], w[2]};
  const int order[] = {1, 2, 0};
  for (int i : order)
    if (out[i] != expected[i])
      return fail(kParamInvalid, kApi,
                  "output: shape %s does not match the inferred shape %s [T_out, B, C_out] (dim "
                  "%d)",
                  shapeString(out).c_str(), wideShapeString(expected).c_str(), i);
  return kSuccess;
}

}  // namespace

aclnnStatus checkConvTbc(const TbcArgs& a) {
  aclnnStatus s = checkNonNull(
      kApi, {{a.self, "self"}, {a.weight, "weight"}, {a.bias, "bias"}, {a.output, "output"}});
  if (s != kSuccess) return s;
  if ((s = checkDtypesRanksFormats(a)) != kSuccess) return s;
  if ((s = checkValuesAndShape(a)) != kSuccess) return s;
  if ((s = checkCubeMathType(kApi, a.cubeMathType, 4)) != kSuccess) return s;  // T7
  // T8 (SoC) passes; then decision 3.
  return checkNonNull(kApi, {{a.workspaceSize, "workspaceSize"}, {a.executor, "executor"}});
}

}  // namespace ops
}  // namespace aclcpu
