#pragma once
// Internal face of aclrtStream for the rest of the library: put a task on a
// stream's queue. The stream's own worker thread runs tasks in order; compute
// inside a task goes through the shared pool (common/thread_pool.h).

#include <functional>

#include "acl/acl_base.h"

namespace aclcpu {

// Enqueues `task` on `stream` (nullptr: the default stream of the current
// context, created on demand as aclrtSetDevice would) and returns at once.
// The task's status, if not ACL_SUCCESS, becomes the stream's first
// asynchronous failure, reported by aclrtSynchronizeStream. Returns
// ACL_SUCCESS, or an error (and records a message) when `stream` is not a live
// stream handle; the task is then not run.
//
// Messages the task records (recordError on the worker thread) are handed to
// the thread that synchronizes the stream when the task fails. A task runs
// with the stream's context current; it must not synchronize or destroy its
// own stream (the synchronize is rejected with an error).
aclError enqueueOnStream(aclrtStream stream, std::function<aclError()> task);

// Same, naming `apiName` (e.g. "aclnnConvolutionBackward") in the message
// recorded for a bad stream handle.
aclError enqueueOnStream(aclrtStream stream, std::function<aclError()> task, const char* apiName);

}  // namespace aclcpu
