#include "common/error_log.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace aclcpu {
namespace {

struct ThreadErrorLog {
  std::vector<std::string> pending;  // oldest first
  std::string lastReturned;          // backs the pointer handed out last
};

ThreadErrorLog& threadLog() {
  thread_local ThreadErrorLog log;
  return log;
}

}  // namespace

void recordError(std::string message) {
  // Bounded so that a program that never reads its errors does not grow
  // without limit; the newest messages are the ones worth keeping.
  constexpr size_t kMaxPending = 64;
  auto& log = threadLog();
  if (log.pending.size() == kMaxPending) log.pending.erase(log.pending.begin());
  log.pending.push_back(std::move(message));
}

void recordErrorf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string message(length > 0 ? static_cast<size_t>(length) : 0, '\0');
  if (length > 0) std::vsnprintf(&message[0], message.size() + 1, format, args);
  va_end(args);
  recordError(std::move(message));
}

const char* takeRecentErrors() {
  auto& log = threadLog();
  if (log.pending.empty()) return nullptr;
  log.lastReturned.clear();
  for (auto it = log.pending.rbegin(); it != log.pending.rend(); ++it) {
    if (!log.lastReturned.empty()) log.lastReturned += '\n';
    log.lastReturned += *it;
  }
  log.pending.clear();
  return log.lastReturned.c_str();
}

}  // namespace aclcpu
