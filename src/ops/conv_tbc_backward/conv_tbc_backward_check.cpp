#include "ops/conv_tbc_backward/conv_tbc_backward_check.h"

#include <vector>

#include "common/checked_math.h"
#include "ops/common/conv_rules.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {
namespace {

const char* const kApi = kConvTbcPhase1;

using Named = NamedTensor;

aclnnStatus checkShape(const aclTensor* t, const char* name, const std::vector<int64_t>& expected,
                       const char* what) {
  if (t->viewShape == expected) return kSuccess;
  return fail(kParamInvalid, kApi, "%s: expected shape %s (%s), got %s", name,
              shapeString(expected).c_str(), what, shapeString(t->viewShape).c_str());
}

}  // namespace

aclnnStatus checkConvTbcBackward(const ConvTbcBackwardArgs& a) {
  // Step 1: every tensor is required (there is no output mask).
  const Named all[] = {{a.self, "self"},           {a.input, "input"},
                       {a.weight, "weight"},       {a.bias, "bias"},
                       {a.gradInput, "gradInput"}, {a.gradWeight, "gradWeight"},
                       {a.gradBias, "gradBias"}};
  for (const auto& t : all)
    if (!t.tensor)
      return fail(kParamNullptr, kApi, "%s: expected a non-null tensor, got nullptr", t.name);
  aclnnStatus s =
      checkNonNull(kApi, {{a.workspaceSize, "workspaceSize"}, {a.executor, "executor"}});
  if (s != kSuccess) return s;

  // Step 2: dtypes.
  for (const auto& t : all)
    if ((s = checkConvDtype(kApi, t)) != kSuccess) return s;

  // Step 3: storage formats, whatever the rank.
  for (const auto& t : all) {
    const bool vector = t.tensor == a.bias || t.tensor == a.gradBias;
    const int32_t f = rawFormat(*t.tensor);
    const bool ok = vector ? f == ACL_FORMAT_ND : (f == ACL_FORMAT_ND || f == ACL_FORMAT_NCL);
    if (!ok)
      return fail(kParamInvalid, kApi, "%s: expected format %s, got %s", t.name,
                  vector ? "ND" : "ND or NCL", formatName(f).c_str());
  }

  // Project decision: sizes must fit 64-bit arithmetic.
  for (const auto& t : all)
    if ((s = checkFitsIn64Bits(kApi, t)) != kSuccess) return s;

  // Step 4: self must not be empty.
  if (elementCount(a.self) == 0)
    return fail(kParamInvalid, kApi, "self: expected a non-empty tensor, got shape %s",
                shapeString(a.self->viewShape).c_str());

  // Step 5: shapes.
  const Named ranked[] = {{a.self, "self"},
                          {a.input, "input"},
                          {a.weight, "weight"},
                          {a.bias, "bias"},
                          {a.gradBias, "gradBias"},
                          {a.gradInput, "gradInput"},
                          {a.gradWeight, "gradWeight"}};
  const size_t ranks[] = {3, 3, 3, 1, 1, 3, 3};
  for (size_t i = 0; i < 7; ++i)
    if (ranked[i].tensor->viewShape.size() != ranks[i])
      return fail(kParamInvalid, kApi, "%s: expected a %zu-D tensor, got shape %s", ranked[i].name,
                  ranks[i], shapeString(ranked[i].tensor->viewShape).c_str());
  const auto& in = a.input->viewShape;
  const auto& w = a.weight->viewShape;
  if (in[2] != w[1])
    return fail(kParamInvalid, kApi,
                "weight: expected shape[1] = input channels (input.shape[2] = %lld), got %lld",
                static_cast<long long>(in[2]), static_cast<long long>(w[1]));
  if (a.bias->viewShape[0] != w[2])
    return fail(kParamInvalid, kApi,
                "bias: expected shape [%lld] (weight.shape[2], the output channels), got %s",
                static_cast<long long>(w[2]), shapeString(a.bias->viewShape).c_str());
  if (a.pad < 0)
    return fail(kParamInvalid, kApi, "pad: expected >= 0, got %lld", static_cast<long long>(a.pad));
  int64_t outLength = 0;
  if (!checkedMul(a.pad, int64_t{2}, &outLength) || !checkedAdd(outLength, in[0], &outLength) ||
      !checkedAdd(outLength, 1 - w[0], &outLength))
    return fail(kParamInvalid, kApi, "pad: value %lld too large for 64-bit arithmetic",
                static_cast<long long>(a.pad));
  if (outLength < 0)
    return fail(kParamInvalid, kApi,
                "weight: expected kernel size (shape[0] = %lld) <= input length + 2*pad + 1 = "
                "%lld",
                static_cast<long long>(w[0]), static_cast<long long>(in[0] + 2 * a.pad + 1));
  if ((s = checkShape(a.self, "self", {outLength, in[1], w[2]}, "[T_out, batch, C_out]")) !=
      kSuccess)
    return s;
  if ((s = checkShape(a.gradInput, "gradInput", in, "the shape of input")) != kSuccess) return s;
  if ((s = checkShape(a.gradWeight, "gradWeight", w, "the shape of weight")) != kSuccess) return s;
  if ((s = checkShape(a.gradBias, "gradBias", a.bias->viewShape, "the shape of bias")) != kSuccess)
    return s;

  // Step 6.
  return checkCubeMathType(kApi, a.cubeMathType, 3);
}

}  // namespace ops
}  // namespace aclcpu
