// Devices (one: id 0, the host CPU) and contexts.

#include "acl/acl.h"
#include "common/error_log.h"
#include "runtime/api_guard.h"
#include "runtime/runtime_state.h"

namespace aclcpu {
namespace {

bool checkDeviceId(const char* api, int32_t deviceId) {
  if (deviceId == kHostDeviceId) return true;
  recordErrorf("%s: argument deviceId is %d; expected 0 (the only device: the host CPU)", api,
               deviceId);
  return false;
}

}  // namespace
}  // namespace aclcpu

using aclcpu::guardApi;
using aclcpu::recordErrorf;
using aclcpu::Runtime;

aclError aclrtGetDeviceCount(uint32_t* count) {
  return guardApi("aclrtGetDeviceCount", [&]() -> aclError {
    if (count == nullptr) {
      recordErrorf("aclrtGetDeviceCount: argument count is null; expected a pointer to receive it");
      return ACL_ERROR_INVALID_PARAM;
    }
    *count = 1;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetDevice(int32_t deviceId) {
  return guardApi("aclrtSetDevice", [&]() -> aclError {
    if (!aclcpu::checkDeviceId("aclrtSetDevice", deviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    return Runtime::instance().setDevice();
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return guardApi("aclrtResetDevice", [&]() -> aclError {
    if (!aclcpu::checkDeviceId("aclrtResetDevice", deviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    return Runtime::instance().resetDevice("aclrtResetDevice");
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return guardApi("aclrtGetDevice", [&]() -> aclError {
    if (deviceId == nullptr) {
      recordErrorf("aclrtGetDevice: argument deviceId is null; expected a pointer to receive it");
      return ACL_ERROR_INVALID_PARAM;
    }
    return Runtime::instance().currentDevice("aclrtGetDevice", deviceId);
  });
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return guardApi("aclrtCreateContext", [&]() -> aclError {
    if (context == nullptr) {
      recordErrorf(
          "aclrtCreateContext: argument context is null; expected a pointer to receive "
          "the new context");
      return ACL_ERROR_INVALID_PARAM;
    }
    if (!aclcpu::checkDeviceId("aclrtCreateContext", deviceId)) {
      return ACL_ERROR_RT_INVALID_DEVICEID;
    }
    return Runtime::instance().createContext(context);
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return guardApi("aclrtDestroyContext", [&]() -> aclError {
    if (context == nullptr) {
      recordErrorf(
          "aclrtDestroyContext: argument context is null; expected a context from "
          "aclrtCreateContext");
      return ACL_ERROR_INVALID_PARAM;
    }
    return Runtime::instance().destroyContext("aclrtDestroyContext", context);
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return guardApi("aclrtSetCurrentContext", [&]() -> aclError {
    if (context == nullptr) {
      recordErrorf("aclrtSetCurrentContext: argument context is null; expected a live context");
      return ACL_ERROR_INVALID_PARAM;
    }
    return Runtime::instance().setCurrentContext("aclrtSetCurrentContext", context);
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return guardApi("aclrtGetCurrentContext", [&]() -> aclError {
    if (context == nullptr) {
      recordErrorf(
          "aclrtGetCurrentContext: argument context is null; expected a pointer to "
          "receive it");
      return ACL_ERROR_INVALID_PARAM;
    }
    return Runtime::instance().getCurrentContext("aclrtGetCurrentContext", context);
  });
}
