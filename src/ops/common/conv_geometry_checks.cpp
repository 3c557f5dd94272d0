#include "ops/common/conv_geometry_checks.h"

#include "common/checked_math.h"
#include "ops/common/op_status.h"

namespace aclcpu {
namespace ops {

aclnnStatus checkConvGeometryFits(const char* api, const kernels::ConvShape& s) {
  constexpr int64_t kLimit = int64_t{1} << 61;
  for (int d = 0; d < 3; ++d) {
    int64_t span = 0, reach = 0;
    const bool fits = s.stride[d] < kLimit && s.padBefore[d] < kLimit && s.dilation[d] < kLimit &&
                      checkedMul(s.dilation[d], s.kernel[d] - 1, &span) && span < kLimit &&
                      checkedMul(s.out[d] - 1, s.stride[d], &reach) && reach < kLimit;
    if (!fits)
      return fail(kParamInvalid, api,
                  "stride/padding/dilation: expected a stride, padding, dilated kernel extent and "
                  "strided output reach below 2^61 in every spatial dim (64-bit index "
                  "arithmetic), got stride %lld, padding %lld, dilation %lld, kernel %lld, output "
                  "extent %lld in normalised dim %d",
                  static_cast<long long>(s.stride[d]), static_cast<long long>(s.padBefore[d]),
                  static_cast<long long>(s.dilation[d]), static_cast<long long>(s.kernel[d]),
                  static_cast<long long>(s.out[d]), d);
  }
  return kSuccess;
}

}  // namespace ops
}  // namespace aclcpu
