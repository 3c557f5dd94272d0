#pragma once
// The process-wide runtime: aclInit bookkeeping, the one device (id 0, the
// host CPU), contexts, streams and the handles that name them.
//
// Handles are never pointers to our objects: each context and stream gets a
// fresh number that is never reused, looked up in a registry. A stale,
// foreign or destroyed handle is therefore reported, never dereferenced, and
// cannot alias a newer object.
//
// Locking: one mutex guards the registry. Stream workers are stopped and
// joined only after it is released, so a task that calls back into the
// runtime can never deadlock against a thread tearing its stream down.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl.h"
#include "runtime/stream_worker.h"

namespace aclcpu {

constexpr int32_t kHostDeviceId = 0;

// aclSysParamOpt values we know: DETERMINISTIC, ENABLE_DEBUG_KERNEL,
// STRONG_CONSISTENCY (deprecated), ENABLE_KERNEL_EARLY_START.
constexpr int kSysParamOptCount = 4;

struct SysParamSlot {
  bool set = false;
  int64_t value = 0;
  uint64_t sequence = 0;  // process-wide order of sets: the newest one wins
};
using SysParamTable = std::array<SysParamSlot, kSysParamOptCount>;

struct Stream {
  Stream(uintptr_t handle, uintptr_t context);
  const uintptr_t handle;
  const uintptr_t context;  // owning context; its tasks run with it current
  StreamWorker worker;
};

struct Context {
  uintptr_t handle = 0;
  bool isDeviceDefault = false;
  SysParamTable params;
  std::shared_ptr<Stream> defaultStream;  // created on first use of the null stream
};

class Runtime {
 public:
  static Runtime& instance();
  Runtime() = default;

  // aclInit / aclFinalize / aclFinalizeReference. `initialize` counts every
  // call (repeats included) for aclFinalizeReference.
  aclError initialize();
  aclError finalize(const char* api, bool byReference, uint64_t* remaining);

  // After aclFinalize (until the next aclInit) the runtime refuses work:
  // ACL_ERROR_UNINITIALIZE with a message naming `api`. A program that never
  // called aclInit is served as before (devices and streams on demand).
  aclError checkInitialized(const char* api);

  aclError setDevice();
  aclError resetDevice(const char* api);
  // The device of the calling thread's current context (error when none).
  aclError currentDevice(const char* api, int32_t* deviceId);

  aclError createContext(aclrtContext* context);
  aclError destroyContext(const char* api, aclrtContext context);
  aclError setCurrentContext(const char* api, aclrtContext context);
  aclError getCurrentContext(const char* api, aclrtContext* context);

  // Context scope acts on the current context (the device's default context
  // when the thread has none); process scope on the process table.
  aclError setSysParam(bool processScope, int opt, int64_t value);
  aclError getSysParam(const char* api, bool processScope, int opt, int64_t* value);
  // The value ops should honour: the newest set among the current context's
  // and the process's. False when neither was set.
  bool effectiveSysParam(int opt, int64_t* value);

  aclError createStream(aclrtStream* stream);
  aclError destroyStream(const char* api, aclrtStream stream);
  // Resolves a handle to a live stream. nullptr names the default stream of
  // the current context, created when `createDefault` (else *out may be
  // empty with ACL_SUCCESS: no default stream has ever had work).
  aclError findStream(const char* api, aclrtStream stream, bool createDefault,
                      std::shared_ptr<Stream>* out);
  // Every live stream, default streams included.
  std::vector<std::shared_ptr<Stream>> allStreams();

  // Called once at process exit if the program did not call aclFinalize.
  void shutdownAtExit();

 private:
  uintptr_t newHandle();
  // The context the calling thread chose (aclrtSetDevice, aclrtCreateContext,
  // aclrtSetCurrentContext), or nullptr.
  Context* threadContextLocked();
  // The context operations use: the thread's own, else the device's default
  // one (created if `createDefault`), so threads that never chose still work.
  Context* currentContextLocked(bool createDefault);
  Context& deviceDefaultContextLocked();
  // Unregisters a context and every stream it owns; the streams are returned
  // to be stopped after the lock is released.
  void removeContextLocked(uintptr_t handle, std::vector<std::shared_ptr<Stream>>* streams);
  static void stopStreams(std::vector<std::shared_ptr<Stream>>* streams);

  std::mutex mutex_;
  bool finalizedLocked(const char* api) const;

  bool initialized_ = false;
  bool finalized_ = false;  // aclFinalize ran and no aclInit since
  uint64_t initReferences_ = 0;
  uint64_t deviceReferences_ = 0;
  uintptr_t deviceDefaultContext_ = 0;
  uintptr_t lastHandle_ = 0;
  uint64_t sysParamSequence_ = 0;
  SysParamTable processParams_;
  std::map<uintptr_t, std::shared_ptr<Context>> contexts_;
  std::map<uintptr_t, std::shared_ptr<Stream>> streams_;  // user streams only
  bool exiting_ = false;
};

}  // namespace aclcpu
