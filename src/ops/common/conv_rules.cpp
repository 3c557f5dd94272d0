#include "ops/common/conv_rules.h"

#include <string>

#include "ops/common/op_status.h"
#include "ops/common/tensor_enums.h"

namespace aclcpu {
namespace ops {

aclnnStatus checkNonNull(const char* api, std::initializer_list<RequiredPointer> required) {
  for (const auto& r : required) {
    if (!r.pointer)
      return fail(kParamNullptr, api, "%s: expected a non-null pointer, got nullptr", r.name);
  }
  return kSuccess;
}

aclnnStatus checkCubeMathType(const char* api, int8_t cubeMathType, int highest) {
  if (cubeMathType >= 0 && cubeMathType <= highest) return kSuccess;
  return fail(kParamInvalid, api,
              "cubeMathType: expected 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 "
              "(USE_FP16)%s 3 (USE_HF32)%s, got %d",
              highest >= 4 ? "," : " or", highest >= 4 ? " or 4 (USE_FP32_ADD)" : "", cubeMathType);
}

aclnnStatus checkRank(const char* api, const NamedTensor& t, size_t expected) {
  if (t.tensor->viewShape.size() == expected) return kSuccess;
  return fail(kParamInvalid, api, "%s: expected a %zu-D tensor, got %zu-D shape %s", t.name,
              expected, t.tensor->viewShape.size(), shapeString(t.tensor->viewShape).c_str());
}

aclnnStatus checkSameDtype(const char* api, const NamedTensor& first, const NamedTensor& second) {
  const int a = rawDataType(first.tensor), b = rawDataType(second.tensor);
  if (a == b) return kSuccess;
  return fail(kParamInvalid, api, "%s: expected the dtype of %s (%s), got %s", second.name,
              first.name, dataTypeName(a).c_str(), dataTypeName(b).c_str());
}

void paddingOf(const std::vector<int64_t>& padding, int spatialDims, int s, int64_t* before,
               int64_t* after) {
  if (padding.size() == static_cast<size_t>(2 * spatialDims) && spatialDims <= 2) {
    *before = padding[2 * s];
    *after = padding[2 * s + 1];
  } else {
    *before = *after = padding[s];
  }
}

__int128 normalOutputExtent(int64_t in, int64_t before, int64_t after, int64_t kernel,
                            int64_t stride, int64_t dilation) {
  const __int128 reach = static_cast<__int128>(in) + before + after -
                         static_cast<__int128>(dilation) * (static_cast<__int128>(kernel) - 1) - 1;
  return reach / stride + 1;  // C++ division truncates toward zero
}

__int128 transposedOutputExtent(int64_t in, int64_t before, int64_t after, int64_t kernel,
                                int64_t stride, int64_t dilation, int64_t outputPadding) {
  return (static_cast<__int128>(in) - 1) * stride - (static_cast<__int128>(before) + after) +
         static_cast<__int128>(dilation) * (static_cast<__int128>(kernel) - 1) + outputPadding + 1;
}

std::string wideShapeString(const std::vector<__int128>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    __int128 v = dims[i];
    if (fitsInt64(v)) {
      text += std::to_string(static_cast<long long>(v));
      continue;
    }
    std::string digits;
    const bool negative = v < 0;
    do {
      const int digit = static_cast<int>(v % 10);
      digits.insert(digits.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
      v /= 10;
    } while (v != 0);
    text += (negative ? "-" : "") + digits;
  }
  return text + "]";
}

}  // namespace ops
}  // namespace aclcpu
