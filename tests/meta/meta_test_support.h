#pragma once
// Helpers shared by the meta and executor tests: the error-log reader and a
// test executor whose run() records what it was given.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "executor/executor.h"
#include "executor/registry.h"
#include "meta/meta_types.h"

namespace meta_test {

// The calling thread's recorded messages (empty if none), clearing the log.
inline std::string takeErrors() {
  const char* text = aclcpu::takeRecentErrors();
  return text == nullptr ? std::string() : std::string(text);
}

// What the runs of one RecordingExecutor saw, shared with the test because a
// one-shot executor is freed right after its run.
struct RunLog {
  std::mutex mutex;
  std::vector<std::vector<void*>> inputAddresses;   // one entry per run
  std::vector<std::vector<void*>> outputAddresses;  // one entry per run
  std::vector<void*> workspaces;
  std::vector<uint64_t> workspaceSizes;
  std::atomic<int> destroyed{0};

  // When `holdRuns` is set, run() waits until release() is called.
  bool holdRuns = false;
  bool released = false;
  std::condition_variable releasedChanged;

  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    released = true;
    releasedChanged.notify_all();
  }
  size_t runCount() {
    std::lock_guard<std::mutex> lock(mutex);
    return inputAddresses.size();
  }
};

class RecordingExecutor : public aclOpExecutor {
 public:
  RecordingExecutor(std::shared_ptr<RunLog> log, aclnnStatus result = ACLNN_SUCCESS)
      : log_(std::move(log)), result_(result) {
    apiName = "aclnnLaunchTest";  // the phase-2 name the tests launch it under
  }
  ~RecordingExecutor() override { ++log_->destroyed; }

  aclnnStatus run(const std::vector<Binding>& runInputs, const std::vector<Binding>& runOutputs,
                  void* workspace, uint64_t size) const override {
    std::unique_lock<std::mutex> lock(log_->mutex);
    if (log_->holdRuns) log_->releasedChanged.wait(lock, [&] { return log_->released; });
    log_->inputAddresses.push_back(addresses(runInputs));
    log_->outputAddresses.push_back(addresses(runOutputs));
    log_->workspaces.push_back(workspace);
    log_->workspaceSizes.push_back(size);
    return result_;
  }

 private:
  static std::vector<void*> addresses(const std::vector<Binding>& bindings) {
    std::vector<void*> result;
    for (const Binding& binding : bindings) result.push_back(binding.tensor.data);
    return result;
  }

  std::shared_ptr<RunLog> log_;
  aclnnStatus result_;
};

// The live executor behind a handle (handles are numbers, not addresses), or
// nullptr.
inline aclOpExecutor* executorOf(const aclOpExecutor* handle) {
  return aclcpu::LockedExecutorRegistry().find(handle);
}

// A binding that captures `tensor` as phase 1 would.
inline aclOpExecutor::Binding bind(aclTensor* tensor) {
  aclOpExecutor::Binding binding;
  binding.present = true;
  binding.tensor = *tensor;
  binding.original = tensor;
  return binding;
}

// The binding of an optional operand that was null at phase 1.
inline aclOpExecutor::Binding absentBinding() { return aclOpExecutor::Binding(); }

// Creates a 1-D float tensor of `length` elements over `data`.
inline aclTensor* makeVector(int64_t length, void* data) {
  return aclCreateTensor(&length, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, &length, 1, data);
}

}  // namespace meta_test
