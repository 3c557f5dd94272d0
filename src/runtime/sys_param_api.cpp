// aclrt{Ctx,}{Set,Get}SysParamOpt: context- and process-scope options.

#include "acl/acl.h"
#include "common/error_log.h"
#include "common/raw_enum.h"
#include "runtime/api_guard.h"
#include "runtime/runtime_state.h"
#include "runtime/sys_params.h"

namespace aclcpu {
namespace {

// Inclusive range of values each option accepts. DETERMINISTIC: 0 off,
// 1 deterministic, 2 strong consistency, 3 batch consistency; the others are
// on/off switches.
struct OptionRange {
  const char* name;
  int64_t min;
  int64_t max;
};
constexpr OptionRange kOptions[kSysParamOptCount] = {
    {"ACL_OPT_DETERMINISTIC", 0, 3},
    {"ACL_OPT_ENABLE_DEBUG_KERNEL", 0, 1},
    {"ACL_OPT_STRONG_CONSISTENCY", 0, 1},
    {"ACL_OPT_ENABLE_KERNEL_EARLY_START", 0, 1},
};

// `index` is the caller's raw aclSysParamOpt (see common/raw_enum.h).
bool checkOption(const char* api, int index) {
  if (index >= 0 && index < kSysParamOptCount) return true;
  recordErrorf("%s: argument opt is %d; expected an aclSysParamOpt in [0, %d]", api, index,
               kSysParamOptCount - 1);
  return false;
}

aclError setOption(const char* api, bool processScope, const aclSysParamOpt& optArgument,
                   int64_t value) {
  const int opt = rawEnumValue(optArgument);
  if (!checkOption(api, opt)) return ACL_ERROR_INVALID_PARAM;
  const OptionRange& range = kOptions[opt];
  if (value < range.min || value > range.max) {
    recordErrorf("%s: argument value for %s is %lld; expected a value in [%lld, %lld]", api,
                 range.name, static_cast<long long>(value), static_cast<long long>(range.min),
                 static_cast<long long>(range.max));
    return ACL_ERROR_INVALID_PARAM;
  }
  return Runtime::instance().setSysParam(processScope, opt, value);
}

aclError getOption(const char* api, bool processScope, const aclSysParamOpt& optArgument,
                   int64_t* value) {
  const int opt = rawEnumValue(optArgument);
  if (!checkOption(api, opt)) return ACL_ERROR_INVALID_PARAM;
  if (value == nullptr) {
    recordErrorf("%s: argument value is null; expected a pointer to receive the option", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  return Runtime::instance().getSysParam(api, processScope, opt, value);
}

}  // namespace

bool effectiveSysParamOpt(int opt, int64_t* value) {
  try {
    return Runtime::instance().effectiveSysParam(opt, value);
  } catch (...) {
    return false;
  }
}

}  // namespace aclcpu

using aclcpu::guardApi;

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return guardApi("aclrtCtxSetSysParamOpt",
                  [&] { return aclcpu::setOption("aclrtCtxSetSysParamOpt", false, opt, value); });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return guardApi("aclrtCtxGetSysParamOpt",
                  [&] { return aclcpu::getOption("aclrtCtxGetSysParamOpt", false, opt, value); });
}

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
  return guardApi("aclrtSetSysParamOpt",
                  [&] { return aclcpu::setOption("aclrtSetSysParamOpt", true, opt, value); });
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t* value) {
  return guardApi("aclrtGetSysParamOpt",
                  [&] { return aclcpu::getOption("aclrtGetSysParamOpt", true, opt, value); });
}
