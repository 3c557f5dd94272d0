#pragma once
// The per-thread log behind aclGetRecentErrMsg(): every failing API call
// records one message naming the function, the argument, what was expected
// and what was given.

#include <string>

namespace aclcpu {

// Appends a message to the calling thread's log.
void recordError(std::string message);

// printf-style convenience for recordError.
void recordErrorf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Returns the calling thread's messages joined by '\n', newest first, and
// clears the log. Returns nullptr when nothing was recorded. The pointer stays
// valid until the next call on the same thread.
const char* takeRecentErrors();

}  // namespace aclcpu
