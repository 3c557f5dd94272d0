#pragma once
// One in-order task queue served by its own thread: the engine behind every
// aclrtStream. Knows nothing of contexts or handles.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "acl/acl_base.h"

namespace aclcpu {

class StreamWorker {
 public:
  using Task = std::function<aclError()>;

  // Starts the worker thread; `onStart` runs first on that thread (the
  // runtime uses it to give the worker its stream's context).
  explicit StreamWorker(std::function<void()> onStart);
  // Drains and joins if shutdown() was not called.
  ~StreamWorker();
  StreamWorker(const StreamWorker&) = delete;
  StreamWorker& operator=(const StreamWorker&) = delete;

  // Appends a task; returns false (and drops it) once shutdown has begun.
  bool enqueue(Task task);

  // Waits until every task enqueued before this call has finished.
  // timeoutMs < 0 waits forever. Returns false on timeout.
  bool waitForEnqueued(int64_t timeoutMs);

  // The first failure since the last call (ACL_SUCCESS if none), with the
  // messages the failing task recorded; clears it.
  aclError takeFailure(std::string* messages);

  // Runs every pending task, then stops and joins the thread.
  void shutdown();

  // Process exit: pending tasks are dropped, a running task gets `grace` to
  // finish; after that the thread is detached rather than waited for, so
  // exit never hangs on a task that cannot complete.
  void abandonAtExit(std::chrono::milliseconds grace);

  // True when called from a task running on this worker.
  bool isWorkerThread() const;

 private:
  struct State;
  static void serve(const std::shared_ptr<State>& state, const std::function<void()>& onStart);
  void joinOrDetach();

  std::shared_ptr<State> state_;  // shared with the thread, which may outlive us at exit
  std::thread thread_;
  // Fixed at construction: join/detach change thread_'s id while other
  // threads may still ask isWorkerThread().
  std::thread::id workerId_;
};

}  // namespace aclcpu
