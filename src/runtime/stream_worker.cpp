#include "runtime/stream_worker.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>

#include "common/error_log.h"

namespace aclcpu {

struct StreamWorker::State {
  std::mutex mutex;
  std::condition_variable wake;      // worker: work arrived or stop requested
  std::condition_variable progress;  // waiters: a task finished or the worker exited
  std::deque<Task> queue;
  uint64_t enqueued = 0;
  uint64_t finished = 0;
  aclError failure = ACL_SUCCESS;
  std::string failureMessages;
  bool stopping = false;
  bool discardPending = false;
  bool exited = false;
};

namespace {

// Runs one task on the worker thread and returns its status; any message it
// recorded on this thread is moved into *messages so that the thread which
// synchronizes can see it.
aclError runTask(StreamWorker::Task& task, std::string* messages) {
  aclError status = ACL_SUCCESS;
  try {
    status = task();
  } catch (const std::exception& e) {
    recordErrorf("stream task: internal error: %s", e.what());
    status = ACL_ERROR_INTERNAL_ERROR;
  } catch (...) {
    recordErrorf("stream task: internal error (unknown exception)");
    status = ACL_ERROR_INTERNAL_ERROR;
  }
  const char* log = takeRecentErrors();
  if (status != ACL_SUCCESS) {
    if (log != nullptr) {
      *messages = log;
    } else {
      *messages =
          "stream task failed with status " + std::to_string(status) + " and recorded no message";
    }
  }
  return status;
}

}  // namespace

StreamWorker::StreamWorker(std::function<void()> onStart) : state_(std::make_shared<State>()) {
  std::shared_ptr<State> state = state_;
  thread_ = std::thread([state, start = std::move(onStart)] { serve(state, start); });
  workerId_ = thread_.get_id();
}

StreamWorker::~StreamWorker() {
  if (thread_.joinable()) shutdown();
}

void StreamWorker::serve(const std::shared_ptr<State>& state,
                         const std::function<void()>& onStart) {
  pthread_setname_np(pthread_self(), "aclcpu-stream");
  if (onStart) onStart();
  std::unique_lock<std::mutex> lock(state->mutex);
  for (;;) {
    state->wake.wait(lock, [&] { return !state->queue.empty() || state->stopping; });
    if (state->discardPending) {
      state->finished += state->queue.size();
      state->queue.clear();
    }
    if (state->queue.empty()) break;  // stopping, and nothing left to run
    Task task = std::move(state->queue.front());
    state->queue.pop_front();
    lock.unlock();
    std::string messages;
    const aclError status = runTask(task, &messages);
    // Release whatever the task captured before anyone can observe it as
    // finished: a synchronized stream holds no task state.
    task = nullptr;
    lock.lock();
    ++state->finished;
    if (status != ACL_SUCCESS && state->failure == ACL_SUCCESS) {
      state->failure = status;
      state->failureMessages = std::move(messages);
    }
    state->progress.notify_all();
  }
  state->exited = true;
  state->progress.notify_all();
}

bool StreamWorker::enqueue(Task task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping) return false;
    state_->queue.push_back(std::move(task));
    ++state_->enqueued;
  }
  state_->wake.notify_one();
  return true;
}

bool StreamWorker::waitForEnqueued(int64_t timeoutMs) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  const uint64_t target = state_->enqueued;
  auto done = [&] { return state_->finished >= target; };
  if (timeoutMs < 0) {
    state_->progress.wait(lock, done);
    return true;
  }
  return state_->progress.wait_for(lock, std::chrono::milliseconds(timeoutMs), done);
}

aclError StreamWorker::takeFailure(std::string* messages) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  const aclError failure = state_->failure;
  if (messages != nullptr) *messages = std::move(state_->failureMessages);
  state_->failure = ACL_SUCCESS;
  state_->failureMessages.clear();
  return failure;
}

void StreamWorker::shutdown() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  joinOrDetach();
}

void StreamWorker::abandonAtExit(std::chrono::milliseconds grace) {
  bool exited = false;
  {
    std::unique_lock<std::mutex> lock(state_->mutex);
    state_->stopping = true;
    state_->discardPending = true;
    state_->wake.notify_all();
    if (!isWorkerThread()) {
      exited = state_->progress.wait_for(lock, grace, [&] { return state_->exited; });
    }
  }
  if (!thread_.joinable()) return;
  if (exited) {
    thread_.join();
  } else {
    thread_.detach();  // `state_` stays alive in the thread's own reference
  }
}

void StreamWorker::joinOrDetach() {
  if (!thread_.joinable()) return;
  if (isWorkerThread()) {
    thread_.detach();  // a task cannot wait for its own thread
  } else {
    thread_.join();
  }
}

bool StreamWorker::isWorkerThread() const { return std::this_thread::get_id() == workerId_; }

}  // namespace aclcpu
