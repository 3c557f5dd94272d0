#pragma once
// The C API boundary: no exception may escape into a C caller. Every public
// entry point runs its body through guardApi, which turns an escaped
// exception into a status and a message naming the function.

#include <exception>
#include <new>

#include "acl/acl_base.h"
#include "common/error_log.h"

namespace aclcpu {

template <typename Body>
aclError guardApi(const char* api, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    recordErrorf("%s: out of host memory", api);
    return ACL_ERROR_BAD_ALLOC;
  } catch (const std::exception& e) {
    recordErrorf("%s: internal error: %s", api, e.what());
    return ACL_ERROR_INTERNAL_ERROR;
  } catch (...) {
    recordErrorf("%s: internal error (unknown exception)", api);
    return ACL_ERROR_INTERNAL_ERROR;
  }
}

}  // namespace aclcpu
