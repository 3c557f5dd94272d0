#pragma once
// Shared pieces of the runtime tests: a fixture that gives every test a
// fresh runtime, a one-shot latch, and error-log helpers.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "acl/acl.h"

namespace aclcpu_test {

// The error log of the calling thread as a string ("" when empty); clears it.
inline std::string takeErrors() {
  const char* message = aclGetRecentErrMsg();
  return message == nullptr ? std::string() : std::string(message);
}

// Every test starts initialized with no device, context or stream, and ends
// with a full teardown, so no state leaks from one test into the next.
class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << takeErrors();
    takeErrors();
  }
  void TearDown() override {
    if (aclFinalize() != ACL_SUCCESS) {  // the test finalized on its own
      aclInit(nullptr);
      aclFinalize();
    }
    takeErrors();
  }
};

// Opened once; waiters give up after a generous deadline so that a broken
// implementation fails the test instead of hanging it.
class Latch {
 public:
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // True if opened before the deadline.
  bool wait(std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, deadline, [&] { return open_; });
  }
  bool isOpen() {
    std::lock_guard<std::mutex> lock(mutex_);
    return open_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace aclcpu_test
