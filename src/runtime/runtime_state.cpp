#include "runtime/runtime_state.h"

#include <chrono>

#include "common/error_log.h"
#include "common/thread_pool.h"
#include "runtime/no_destructor.h"

namespace aclcpu {
namespace {

// The calling thread's current context handle (0: none). Stream workers
// start with their stream's context.
thread_local uintptr_t tCurrentContext = 0;

aclrtContext toContextHandle(uintptr_t handle) { return reinterpret_cast<aclrtContext>(handle); }
uintptr_t fromHandle(const void* handle) { return reinterpret_cast<uintptr_t>(handle); }

// Runs the exit-time teardown for programs that never call aclFinalize.
struct ExitGuard {
  ~ExitGuard() { Runtime::instance().shutdownAtExit(); }
};

// How long process exit waits for a task that is still running.
constexpr std::chrono::milliseconds kExitGrace(2000);

}  // namespace

Stream::Stream(uintptr_t streamHandle, uintptr_t owningContext)
    : handle(streamHandle),
      context(owningContext),
      worker([owningContext] { tCurrentContext = owningContext; }) {}

Runtime& Runtime::instance() {
  static Runtime* const runtime = [] {
    // Statics are destroyed in reverse order of construction. Touching the
    // compute pool first makes it outlive ExitGuard, so a stream task still
    // running at exit never finds the pool gone.
    touchComputePool();
    static NoDestructor<Runtime> storage;
    static ExitGuard guard;
    return &storage.get();
  }();
  return *runtime;
}

uintptr_t Runtime::newHandle() {
  // Distinct, never reused, 16-byte spaced so that they look like the
  // pointers C callers expect; never dereferenced.
  lastHandle_ += 0x10;
  return 0x5A000000 + lastHandle_;
}

// ---------------------------------------------------------------- init ----

aclError Runtime::initialize() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++initReferences_;
  if (initialized_) return ACL_ERROR_REPEAT_INITIALIZE;
  initialized_ = true;
  finalized_ = false;
  return ACL_SUCCESS;
}

aclError Runtime::finalize(const char* api, bool byReference, uint64_t* remaining) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!initialized_) {
      recordErrorf(
          "%s: aclInit has not been called (or aclFinalize already ran); expected a "
          "matching successful aclInit",
          api);
      return ACL_ERROR_REPEAT_FINALIZE;
    }
    if (byReference && initReferences_ > 1) {
      --initReferences_;
      if (remaining != nullptr) *remaining = initReferences_;
      return ACL_SUCCESS;
    }
    initialized_ = false;
    finalized_ = true;
    initReferences_ = 0;
    if (remaining != nullptr) *remaining = 0;
    // Everything the runtime owns goes: contexts, their streams, the device
    // reference count and process-scope options. User memory stays valid
    // until the user frees it.
    while (!contexts_.empty()) removeContextLocked(contexts_.begin()->first, &streams);
    deviceReferences_ = 0;
    deviceDefaultContext_ = 0;
    processParams_ = SysParamTable{};
    tCurrentContext = 0;
  }
  stopStreams(&streams);
  // No library thread outlives aclFinalize; the pool comes back on demand.
  releaseComputePool();
  return ACL_SUCCESS;
}

// ------------------------------------------------------------- devices ----

bool Runtime::finalizedLocked(const char* api) const {
  if (!finalized_) return false;
  recordErrorf(
      "%s: the runtime was finalized by aclFinalize; expected aclInit to be called again "
      "before using it",
      api);
  return true;
}

aclError Runtime::checkInitialized(const char* api) {
  std::lock_guard<std::mutex> lock(mutex_);
  return finalizedLocked(api) ? ACL_ERROR_UNINITIALIZE : ACL_SUCCESS;
}

aclError Runtime::setDevice() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finalizedLocked("aclrtSetDevice")) return ACL_ERROR_UNINITIALIZE;
  ++deviceReferences_;
  tCurrentContext = deviceDefaultContextLocked().handle;
  return ACL_SUCCESS;
}

aclError Runtime::resetDevice(const char* api) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (deviceReferences_ == 0) {
      recordErrorf(
          "%s: device 0 is not set (its reference count is 0); expected a call "
          "matching an earlier aclrtSetDevice(0)",
          api);
      return ACL_ERROR_INVALID_DEVICE;
    }
    if (--deviceReferences_ == 0 && deviceDefaultContext_ != 0) {
      // Releases the default context, its default stream and every stream
      // created in it, after their pending work has run.
      if (tCurrentContext == deviceDefaultContext_) tCurrentContext = 0;
      removeContextLocked(deviceDefaultContext_, &streams);
      deviceDefaultContext_ = 0;
    }
  }
  stopStreams(&streams);
  return ACL_SUCCESS;
}

aclError Runtime::currentDevice(const char* api, int32_t* deviceId) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (threadContextLocked() == nullptr) {
    recordErrorf(
        "%s: the calling thread has no current context; expected aclrtSetDevice or "
        "aclrtSetCurrentContext first",
        api);
    return ACL_ERROR_RT_CONTEXT_NULL;
  }
  *deviceId = kHostDeviceId;
  return ACL_SUCCESS;
}

// ------------------------------------------------------------ contexts ----

Context& Runtime::deviceDefaultContextLocked() {
  if (deviceDefaultContext_ == 0) {
    auto context = std::make_shared<Context>();
    context->handle = newHandle();
    context->isDeviceDefault = true;
    contexts_.emplace(context->handle, context);
    deviceDefaultContext_ = context->handle;
  }
  return *contexts_.at(deviceDefaultContext_);
}

Context* Runtime::threadContextLocked() {
  if (tCurrentContext == 0) return nullptr;
  auto it = contexts_.find(tCurrentContext);
  if (it != contexts_.end()) return it->second.get();
  tCurrentContext = 0;  // destroyed by another thread, or by a reset
  return nullptr;
}

Context* Runtime::currentContextLocked(bool createDefault) {
  if (Context* own = threadContextLocked()) return own;
  if (deviceDefaultContext_ != 0) return contexts_.at(deviceDefaultContext_).get();
  // Lenient: a thread that never chose a context works in the device's
  // default context, created on demand as aclrtSetDevice would.
  return createDefault ? &deviceDefaultContextLocked() : nullptr;
}

void Runtime::removeContextLocked(uintptr_t handle, std::vector<std::shared_ptr<Stream>>* streams) {
  auto it = contexts_.find(handle);
  if (it == contexts_.end()) return;
  if (it->second->defaultStream) streams->push_back(std::move(it->second->defaultStream));
  for (auto s = streams_.begin(); s != streams_.end();) {
    if (s->second->context == handle) {
      streams->push_back(std::move(s->second));
      s = streams_.erase(s);
    } else {
      ++s;
    }
  }
  contexts_.erase(it);
}

void Runtime::stopStreams(std::vector<std::shared_ptr<Stream>>* streams) {
  for (auto& stream : *streams) stream->worker.shutdown();
  streams->clear();
}

aclError Runtime::createContext(aclrtContext* context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finalizedLocked("aclrtCreateContext")) return ACL_ERROR_UNINITIALIZE;
  auto created = std::make_shared<Context>();
  created->handle = newHandle();
  contexts_.emplace(created->handle, created);
  tCurrentContext = created->handle;  // as CANN: a new context becomes current
  *context = toContextHandle(created->handle);
  return ACL_SUCCESS;
}

aclError Runtime::destroyContext(const char* api, aclrtContext context) {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const uintptr_t handle = fromHandle(context);
    auto it = contexts_.find(handle);
    if (it == contexts_.end()) {
      recordErrorf(
          "%s: argument context (%p) is not a live context; expected a handle from "
          "aclrtCreateContext that was not destroyed yet",
          api, context);
      return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    if (it->second->isDeviceDefault) {
      recordErrorf(
          "%s: argument context (%p) is the default context of device 0; expected a "
          "context from aclrtCreateContext (the default one is released by "
          "aclrtResetDevice)",
          api, context);
      return ACL_ERROR_INVALID_PARAM;
    }
    if (tCurrentContext == handle) tCurrentContext = 0;
    removeContextLocked(handle, &streams);
  }
  stopStreams(&streams);
  return ACL_SUCCESS;
}

aclError Runtime::setCurrentContext(const char* api, aclrtContext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uintptr_t handle = fromHandle(context);
  if (contexts_.count(handle) == 0) {
    recordErrorf(
        "%s: argument context (%p) is not a live context; expected a handle from "
        "aclrtCreateContext or aclrtGetCurrentContext that was not destroyed",
        api, context);
    return ACL_ERROR_INVALID_RESOURCE_HANDLE;
  }
  tCurrentContext = handle;
  return ACL_SUCCESS;
}

aclError Runtime::getCurrentContext(const char* api, aclrtContext* context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (threadContextLocked() == nullptr) {
    recordErrorf(
        "%s: the calling thread has no current context; expected aclrtSetDevice, "
        "aclrtCreateContext or aclrtSetCurrentContext first",
        api);
    return ACL_ERROR_RT_CONTEXT_NULL;
  }
  *context = toContextHandle(tCurrentContext);
  return ACL_SUCCESS;
}

// ---------------------------------------------------------- sys params ----

aclError Runtime::setSysParam(bool processScope, int opt, int64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  SysParamTable& table = processScope ? processParams_ : currentContextLocked(true)->params;
  table[opt] = SysParamSlot{true, value, ++sysParamSequence_};
  return ACL_SUCCESS;
}

aclError Runtime::getSysParam(const char* api, bool processScope, int opt, int64_t* value) {
  std::lock_guard<std::mutex> lock(mutex_);
  const SysParamSlot* slot = nullptr;
  if (processScope) {
    slot = &processParams_[opt];
  } else if (Context* context = currentContextLocked(false)) {
    slot = &context->params[opt];
  }
  if (slot == nullptr || !slot->set) {
    recordErrorf("%s: option %d was never set in this %s; expected a value set earlier with %s",
                 api, opt, processScope ? "process" : "context",
                 processScope ? "aclrtSetSysParamOpt" : "aclrtCtxSetSysParamOpt");
    return ACL_ERROR_RT_SYSPARAMOPT_NOT_SET;
  }
  *value = slot->value;
  return ACL_SUCCESS;
}

bool Runtime::effectiveSysParam(int opt, int64_t* value) {
  if (opt < 0 || opt >= kSysParamOptCount) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  const SysParamSlot* best = processParams_[opt].set ? &processParams_[opt] : nullptr;
  if (Context* context = currentContextLocked(false)) {
    const SysParamSlot& own = context->params[opt];
    if (own.set && (best == nullptr || own.sequence > best->sequence)) best = &own;
  }
  if (best == nullptr) return false;
  *value = best->value;
  return true;
}

// ------------------------------------------------------------- streams ----

aclError Runtime::createStream(aclrtStream* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finalizedLocked("aclrtCreateStream")) return ACL_ERROR_UNINITIALIZE;
  Context* context = currentContextLocked(true);
  auto created = std::make_shared<Stream>(newHandle(), context->handle);
  streams_.emplace(created->handle, created);
  *stream = reinterpret_cast<aclrtStream>(created->handle);
  return ACL_SUCCESS;
}

aclError Runtime::destroyStream(const char* api, aclrtStream stream) {
  std::shared_ptr<Stream> victim;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(fromHandle(stream));
    if (it == streams_.end()) {
      recordErrorf(
          "%s: argument stream (%p) is not a live stream; expected a handle from "
          "aclrtCreateStream that was not destroyed yet",
          api, stream);
      return ACL_ERROR_INVALID_RESOURCE_HANDLE;
    }
    victim = std::move(it->second);
    streams_.erase(it);
  }
  victim->worker.shutdown();  // runs the pending work first
  return ACL_SUCCESS;
}

aclError Runtime::findStream(const char* api, aclrtStream stream, bool createDefault,
                             std::shared_ptr<Stream>* out) {
  std::lock_guard<std::mutex> lock(mutex_);
  out->reset();
  if (stream == nullptr) {
    // A named stream is simply not live after aclFinalize (reported below);
    // the default stream would be created anew, which a finalized runtime refuses.
    if (finalizedLocked(api)) return ACL_ERROR_UNINITIALIZE;
    Context* context = currentContextLocked(createDefault);
    if (context == nullptr) return ACL_SUCCESS;
    if (!context->defaultStream && createDefault) {
      context->defaultStream = std::make_shared<Stream>(newHandle(), context->handle);
    }
    *out = context->defaultStream;
    return ACL_SUCCESS;
  }
  auto it = streams_.find(fromHandle(stream));
  if (it == streams_.end()) {
    recordErrorf(
        "%s: argument stream (%p) is not a live stream; expected nullptr (the default "
        "stream) or a handle from aclrtCreateStream that was not destroyed",
        api, stream);
    return ACL_ERROR_INVALID_RESOURCE_HANDLE;
  }
  *out = it->second;
  return ACL_SUCCESS;
}

std::vector<std::shared_ptr<Stream>> Runtime::allStreams() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<Stream>> all;
  for (auto& entry : contexts_) {
    if (entry.second->defaultStream) all.push_back(entry.second->defaultStream);
  }
  for (auto& entry : streams_) all.push_back(entry.second);
  return all;
}

void Runtime::shutdownAtExit() {
  // No error may be recorded here: the main thread's thread_local log is
  // already destroyed when static destructors run.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exiting_) return;
    exiting_ = true;
  }
  // Registries stay intact, so a user static destructor that runs later
  // still gets clean answers; only the threads go.
  for (auto& stream : allStreams()) stream->worker.abandonAtExit(kExitGrace);
}

}  // namespace aclcpu
