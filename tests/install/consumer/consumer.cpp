// Smallest useful program against an installed aclnn-cpu: it is built once via
// find_package(aclnn-cpu) and once via pkg-config, and checks a handful of
// calls from each installed library surface (runtime, meta, operator).
#include <cstdint>
#include <cstdio>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_convolution_backward.h"

namespace {

int Expect(bool condition, const char* what) {
  if (condition) return 0;
  const char* message = aclGetRecentErrMsg();
  std::printf("FAIL: %s (%s)\n", what, message != nullptr ? message : "no error message");
  return 1;
}

}  // namespace

int main() {
  int failures = 0;
  failures += Expect(aclInit(nullptr) == ACL_SUCCESS, "aclInit");

  uint32_t deviceCount = 0;
  failures += Expect(aclrtGetDeviceCount(&deviceCount) == ACL_SUCCESS && deviceCount == 1,
                     "aclrtGetDeviceCount reports exactly one device");

  const int64_t values[3] = {4, 5, 6};
  aclIntArray* array = aclCreateIntArray(values, 3);
  uint64_t size = 0;
  failures +=
      Expect(array != nullptr && aclGetIntArraySize(array, &size) == ACLNN_SUCCESS && size == 3,
             "aclCreateIntArray/aclGetIntArraySize");
  failures += Expect(aclDestroyIntArray(array) == ACLNN_SUCCESS, "aclDestroyIntArray");

  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, false, nullptr, 1, nullptr, 0,
      nullptr, nullptr, nullptr, &workspaceSize, &executor);
  failures += Expect(status == ACLNN_ERR_PARAM_NULLPTR,
                     "aclnnConvolutionBackwardGetWorkspaceSize(null tensors) == 161001");

  failures += Expect(aclFinalize() == ACL_SUCCESS, "aclFinalize");
  std::printf("%s\n", failures == 0 ? "consumer PASS" : "consumer FAIL");
  return failures == 0 ? 0 : 1;
}
