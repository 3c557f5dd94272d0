// aclInit / aclFinalize, aclnnInit / aclnnFinalize, error messages, and the
// identity queries (version, SoC name, run mode).

#include <sys/stat.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "common/error_log.h"
#include "runtime/api_guard.h"
#include "runtime/runtime_state.h"

namespace aclcpu {
namespace {

// Library version reported by aclrtGetVersion.
constexpr int32_t kVersionMajor = 0;
constexpr int32_t kVersionMinor = 1;
constexpr int32_t kVersionPatch = 0;

// Operator behaviour (what is accepted, rejected, and how it rounds) follows
// Atlas A2 / Ascend910B, so programs that branch on the "Ascend910B" prefix
// take the path whose behaviour we reproduce; "-CPU" says where it runs.
constexpr const char* kSocName = "Ascend910B-CPU";

}  // namespace
}  // namespace aclcpu

using aclcpu::guardApi;
using aclcpu::recordErrorf;
using aclcpu::Runtime;

aclError aclInit(const char* configPath) {
  return guardApi("aclInit", [&]() -> aclError {
    // The json's keys (dump, profiling, error-message mode) configure NPU
    // services we do not have; the file only has to exist, as in CANN.
    if (configPath != nullptr && configPath[0] != '\0') {
      struct stat info;
      if (stat(configPath, &info) != 0 || !S_ISREG(info.st_mode)) {
        recordErrorf(
            "aclInit: argument configPath (\"%s\") is not a readable file; expected "
            "nullptr, \"\" or the path of an existing json file",
            configPath);
        return ACL_ERROR_INVALID_FILE;
      }
    }
    const aclError status = Runtime::instance().initialize();
    if (status == ACL_ERROR_REPEAT_INITIALIZE) {
      recordErrorf(
          "aclInit: already initialized; this repeated call is counted for "
          "aclFinalizeReference and otherwise has no effect");
    }
    return status;
  });
}

aclError aclFinalize(void) {
  return guardApi("aclFinalize",
                  [&] { return Runtime::instance().finalize("aclFinalize", false, nullptr); });
}

aclError aclFinalizeReference(uint64_t* refCount) {
  return guardApi("aclFinalizeReference", [&] {
    return Runtime::instance().finalize("aclFinalizeReference", true, refCount);
  });
}

aclnnStatus aclnnInit(const char* configPath) {
  // Everything aclnn needs is created on first use; like aclInit this may be
  // called any number of times, before or after aclInit.
  (void)configPath;
  return ACL_SUCCESS;
}

aclnnStatus aclnnFinalize() { return ACL_SUCCESS; }

const char* aclGetRecentErrMsg(void) {
  try {
    return aclcpu::takeRecentErrors();
  } catch (...) {
    return nullptr;
  }
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return guardApi("aclrtGetVersion", [&]() -> aclError {
    if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr) {
      recordErrorf("aclrtGetVersion: argument %s is null; expected three non-null pointers",
                   majorVersion == nullptr   ? "majorVersion"
                   : minorVersion == nullptr ? "minorVersion"
                                             : "patchVersion");
      return ACL_ERROR_INVALID_PARAM;
    }
    *majorVersion = aclcpu::kVersionMajor;
    *minorVersion = aclcpu::kVersionMinor;
    *patchVersion = aclcpu::kVersionPatch;
    return ACL_SUCCESS;
  });
}

const char* aclrtGetSocName(void) { return aclcpu::kSocName; }

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return guardApi("aclrtGetRunMode", [&]() -> aclError {
    if (runMode == nullptr) {
      recordErrorf("aclrtGetRunMode: argument runMode is null; expected a pointer to receive it");
      return ACL_ERROR_INVALID_PARAM;
    }
    // The program runs on the host, as with an NPU card on PCIe.
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
  });
}
