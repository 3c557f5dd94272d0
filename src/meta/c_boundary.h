#pragma once
// Keeps C++ exceptions (in practice std::bad_alloc) from crossing the C API:
// every public entry point runs its body through callNoThrow.

#include <exception>
#include <utility>

#include "common/error_log.h"

namespace aclcpu {

// Runs `body` and returns its result; if it throws, records a message naming
// `api` and returns `onFailure` instead.
template <typename Result, typename Body>
Result callNoThrow(const char* api, Result onFailure, Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (const std::exception& error) {
    try {
      recordErrorf("%s: internal failure: %s", api, error.what());
    } catch (...) {
    }
  } catch (...) {
    try {
      recordErrorf("%s: internal failure (unknown exception)", api);
    } catch (...) {
    }
  }
  return onFailure;
}

}  // namespace aclcpu
