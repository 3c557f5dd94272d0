#include "ops/common/tensor_checks.h"

#include "common/checked_math.h"
#include "ops/common/op_status.h"
#include "ops/common/tensor_enums.h"

namespace aclcpu {
namespace ops {

aclnnStatus checkConvDtype(const char* api, const NamedTensor& t) {
  if (!t.tensor) return kSuccess;
  const int type = rawDataType(t.tensor);
  if (type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16) return kSuccess;
  return fail(kParamInvalid, api, "%s: expected dtype FLOAT, FLOAT16 or BF16, got %s", t.name,
              dataTypeName(type).c_str());
}

aclnnStatus checkFitsIn64Bits(const char* api, const NamedTensor& t) {
  if (!t.tensor) return kSuccess;
  int64_t count = 0, bytes = 0;
  if (checkedProduct(t.tensor->viewShape.data(), t.tensor->viewShape.size(), &count) &&
      checkedMul(count, int64_t{4}, &bytes))
    return kSuccess;
  return fail(kParamInvalid, api,
              "%s: expected non-negative dims whose element count and byte size fit in 64 bits, "
              "got shape %s",
              t.name, shapeString(t.tensor->viewShape).c_str());
}

int64_t elementCount(const aclTensor* t) {
  int64_t count = 1;
  for (int64_t d : t->viewShape) count *= d;
  return count;
}

}  // namespace ops
}  // namespace aclcpu
