// aclrtCreateStream and friends, aclrtSynchronizeDevice, and enqueueOnStream.

#include <memory>
#include <string>

#include "acl/acl.h"
#include "common/error_log.h"
#include "runtime/api_guard.h"
#include "runtime/runtime_state.h"
#include "runtime/stream_queue.h"

namespace aclcpu {
namespace {

// Waits for `stream` (nullptr: the current context's default stream) and
// reports its first asynchronous failure. timeoutMs < 0 waits forever.
aclError synchronizeStream(const char* api, aclrtStream stream, int64_t timeoutMs) {
  std::shared_ptr<Stream> target;
  const aclError found = Runtime::instance().findStream(api, stream, false, &target);
  if (found != ACL_SUCCESS) return found;
  if (!target) return ACL_SUCCESS;  // the default stream never had work
  if (target->worker.isWorkerThread()) {
    recordErrorf(
        "%s: called from a task running on stream %p itself; a task cannot wait for "
        "its own stream",
        api, stream);
    return ACL_ERROR_INVALID_PARAM;
  }
  if (!target->worker.waitForEnqueued(timeoutMs)) {
    recordErrorf("%s: stream %p did not finish its work within the timeout (%lld ms)", api, stream,
                 static_cast<long long>(timeoutMs));
    return ACL_ERROR_RT_WAIT_TIMEOUT;
  }
  std::string messages;
  const aclError failure = target->worker.takeFailure(&messages);
  if (failure != ACL_SUCCESS) {
    recordError(std::move(messages));
    recordErrorf("%s: a task on stream %p failed with status %d (its messages follow)", api, stream,
                 failure);
  }
  return failure;
}

aclError createStream(const char* api, aclrtStream* stream) {
  if (stream == nullptr) {
    recordErrorf("%s: argument stream is null; expected a pointer to receive the new stream", api);
    return ACL_ERROR_INVALID_PARAM;
  }
  return Runtime::instance().createStream(stream);
}

}  // namespace

aclError enqueueOnStream(aclrtStream stream, std::function<aclError()> task, const char* apiName) {
  return guardApi(apiName, [&]() -> aclError {
    std::shared_ptr<Stream> target;
    const aclError found = Runtime::instance().findStream(apiName, stream, true, &target);
    if (found != ACL_SUCCESS) return found;
    if (!target->worker.enqueue(std::move(task))) {
      recordErrorf("%s: stream %p is being destroyed; expected a live stream", apiName, stream);
      return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    return ACL_SUCCESS;
  });
}

aclError enqueueOnStream(aclrtStream stream, std::function<aclError()> task) {
  return enqueueOnStream(stream, std::move(task), "enqueueOnStream");
}

}  // namespace aclcpu

using aclcpu::guardApi;
using aclcpu::recordErrorf;
using aclcpu::Runtime;

aclError aclrtCreateStream(aclrtStream* stream) {
  return guardApi("aclrtCreateStream",
                  [&] { return aclcpu::createStream("aclrtCreateStream", stream); });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  // Priority and flags tune the NPU's scheduler; on the CPU every stream is
  // an equal, ordinary in-order queue, so they are accepted and ignored.
  (void)priority;
  (void)flag;
  return guardApi("aclrtCreateStreamWithConfig",
                  [&] { return aclcpu::createStream("aclrtCreateStreamWithConfig", stream); });
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return guardApi("aclrtDestroyStream", [&]() -> aclError {
    if (stream == nullptr) {
      recordErrorf(
          "aclrtDestroyStream: argument stream is null; expected a stream from "
          "aclrtCreateStream (the default stream cannot be destroyed)");
      return ACL_ERROR_INVALID_PARAM;
    }
    return Runtime::instance().destroyStream("aclrtDestroyStream", stream);
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return guardApi("aclrtSynchronizeStream",
                  [&] { return aclcpu::synchronizeStream("aclrtSynchronizeStream", stream, -1); });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  return guardApi("aclrtSynchronizeStreamWithTimeout", [&]() -> aclError {
    if (timeout < -1 || timeout == 0) {
      recordErrorf(
          "aclrtSynchronizeStreamWithTimeout: argument timeout is %d; expected -1 "
          "(wait forever) or a positive number of milliseconds",
          timeout);
      return ACL_ERROR_INVALID_PARAM;
    }
    return aclcpu::synchronizeStream("aclrtSynchronizeStreamWithTimeout", stream, timeout);
  });
}

aclError aclrtSynchronizeDevice(void) {
  return guardApi("aclrtSynchronizeDevice", [&]() -> aclError {
    aclError first = ACL_SUCCESS;
    for (auto& stream : Runtime::instance().allStreams()) {
      if (stream->worker.isWorkerThread()) {
        recordErrorf(
            "aclrtSynchronizeDevice: called from a task running on a stream; a task "
            "cannot wait for its own stream");
        return ACL_ERROR_INVALID_PARAM;
      }
    }
    for (auto& stream : Runtime::instance().allStreams()) {
      stream->worker.waitForEnqueued(-1);
      std::string messages;
      const aclError failure = stream->worker.takeFailure(&messages);
      if (failure != ACL_SUCCESS) {
        aclcpu::recordError(std::move(messages));
        recordErrorf(
            "aclrtSynchronizeDevice: a task on stream %p failed with status %d (its "
            "messages follow)",
            reinterpret_cast<void*>(stream->handle), failure);
        if (first == ACL_SUCCESS) first = failure;
      }
    }
    return first;
  });
}
