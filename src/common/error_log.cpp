#include "common/error_log.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace aclcpu {
namespace {

// Trivially destructible, so it stays readable while the thread (or, for the
// main thread, the process) is tearing down its thread_local objects.
thread_local bool tLogDestroyed = false;

struct ThreadErrorLog {
  std::vector<std::string> pending;  // oldest first
  std::string lastReturned;          // backs the pointer handed out last
  ~ThreadErrorLog() { tLogDestroyed = true; }
};

// nullptr once the calling thread's log is gone (a failing API call from a
// static destructor after main returns): its message is then dropped.
ThreadErrorLog* threadLog() {
  if (tLogDestroyed) return nullptr;
  thread_local ThreadErrorLog log;
  return &log;
}

}  // namespace

void recordError(std::string message) {
  // Bounded so that a program that never reads its errors does not grow
  // without limit; the newest messages are the ones worth keeping.
  constexpr size_t kMaxPending = 64;
  ThreadErrorLog* log = threadLog();
  if (!log) return;
  if (log->pending.size() == kMaxPending) log->pending.erase(log->pending.begin());
  log->pending.push_back(std::move(message));
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
  ThreadErrorLog* log = threadLog();
  if (!log || log->pending.empty()) return nullptr;
  log->lastReturned.clear();
  for (auto it = log->pending.rbegin(); it != log->pending.rend(); ++it) {
    if (!log->lastReturned.empty()) log->lastReturned += '\n';
    log->lastReturned += *it;
  }
  log->pending.clear();
  return log->lastReturned.c_str();
}

}  // namespace aclcpu
