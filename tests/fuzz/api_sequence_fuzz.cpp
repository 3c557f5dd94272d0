// Fuzz target: sequences of API calls on a few executors, streams and
// aclrtMalloc blocks: plan, make repeatable, rebind any tensor to its own,
// another, a freed, an interior or a null address, launch (on the default
// stream, a created one or a destroyed one; by the right or the wrong
// operator), destroy (twice), free and reuse memory, memset/memcpy on any
// of those pointers, destroy streams with queued work, finalize and
// initialize again. Every call must answer a status; nothing may crash or
// touch freed memory (ASan), and an accepted run must succeed.

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "fuzz_bytes.h"
#include "fuzz_target.h"
#include "robustness/small_conv.h"

namespace {

using fuzz::FuzzBytes;
using robustness::SmallConv;

constexpr int kCalls = 4;
constexpr int kBlocks = 4;
constexpr int kStreams = 2;

struct World {
  std::unique_ptr<SmallConv> calls[kCalls];
  aclOpExecutor* stale[kCalls] = {};  // handles destroyed or consumed
  void* blocks[kBlocks] = {};
  void* freedBlocks[kBlocks] = {};
  aclrtStream streams[kStreams] = {};
  aclrtStream destroyedStream = nullptr;

  aclrtStream stream(FuzzBytes& in) {
    const uint8_t b = in.byte() % (kStreams + 2);
    if (b < kStreams) return streams[b];
    return b == kStreams ? nullptr : destroyedStream;
  }
  // Waits for every queued run, so that memory can be freed safely.
  void drain() {
    for (aclrtStream s : streams)
      if (s) aclrtSynchronizeStream(s);
    aclrtSynchronizeStream(nullptr);
  }
  // A pointer the program knows: null, freed (still quarantined: each input
  // frees far fewer blocks than the quarantine holds), another block, a
  // point inside `own` (whose size is `ownBytes`), or `own` itself. Never an
  // address outside every block: nothing can check those.
  void* address(FuzzBytes& in, void* own, size_t ownBytes) {
    switch (in.byte() % 6) {
      case 0:
        return nullptr;
      case 1:
        return freedBlocks[in.byte() % kBlocks];
      case 2:
        return blocks[in.byte() % kBlocks];
      case 3:
        return own && ownBytes > 1 ? static_cast<char*>(own) + in.range(1, ownBytes - 1) : own;
      default:
        return own;
    }
  }
  size_t blockBytes[kBlocks] = {};
};

bool launchStatusOk(aclnnStatus s) { return s == 0 || s == 161001 || s == 161002 || s == 361001; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  aclInit(nullptr);
  aclrtSetDevice(0);
  FuzzBytes in(data, size);
  World w;
  for (aclrtStream& s : w.streams) aclrtCreateStream(&s);
  int plans = 0;
  for (int step = 0; step < 48 && !in.exhausted(); ++step) {
    const int slot = in.byte() % kCalls;
    std::unique_ptr<SmallConv>& call = w.calls[slot];
    const int op = in.byte() % 12;
    static const bool trace = std::getenv("FUZZ_TRACE") != nullptr;
    if (trace)
      std::fprintf(stderr, "step %d: op %d slot %d executor %p stale %p\n", step, op, slot,
                   call ? static_cast<void*>(call->executor()) : nullptr,
                   static_cast<void*>(w.stale[slot]));
    switch (op) {
      case 0: {  // plan (a few per input, so that freed blocks stay quarantined)
        if (++plans > 8) break;
        w.drain();
        call = std::make_unique<SmallConv>();
        for (bool& m : call->mask) m = in.byte() % 4 != 0;
        call->repeatable = in.flag();
        const aclnnStatus s = call->plan();
        FUZZ_REQUIRE(s == 0, "plan: %d %s", s, aclGetRecentErrMsg());
        break;
      }
      case 1:  // destroy (a live, stale or null handle)
        if (call && call->executor() && in.flag()) {
          w.stale[slot] = call->executor();
          FUZZ_REQUIRE(aclDestroyAclOpExecutor(call->executor()) == 0, "destroy live");
          call->releaseExecutor();
        } else {
          const aclnnStatus s = aclDestroyAclOpExecutor(w.stale[slot]);
          FUZZ_REQUIRE(s != 0, "a stale handle was destroyed");
        }
        break;
      case 2:
      case 3:
        if (call && call->executor()) {
          aclOpExecutor* before = call->executor();
          const aclnnStatus s = call->launch(w.stream(in));
          FUZZ_REQUIRE(launchStatusOk(s), "launch: %d %s", s, aclGetRecentErrMsg());
          if (!call->executor()) w.stale[slot] = before;
        }
        break;
      case 4: {  // launch a stale handle, or by the wrong operator
        // A live executor only by the wrong operator; a stale one by either.
        const bool live = !in.flag() && call && call->executor();
        aclOpExecutor* handle = live ? call->executor() : w.stale[slot];
        if (handle) {
          const aclnnStatus s = !live && in.flag()
                                    ? aclnnConvolutionBackward(nullptr, 0, handle, nullptr)
                                    : aclnnConvTbcBackward(nullptr, 0, handle, nullptr);
          FUZZ_REQUIRE(s == 161002 || s == 161001, "stale/foreign launch accepted: %d", s);
        }
        break;
      }
      case 5:  // rebind
        if (call && call->executor()) {
          const int t = in.byte() % robustness::kSlots;
          const auto which = static_cast<robustness::Slot>(t);
          void* addr = w.address(in, call->buffer(which), call->bufferBytes(which));
          const aclnnStatus s =
              t < 3 ? aclSetInputTensorAddr(call->executor(), t,
                                            call->tensor(static_cast<robustness::Slot>(t)), addr)
                    : aclSetOutputTensorAddr(call->executor(), t - 3,
                                             call->tensor(static_cast<robustness::Slot>(t)), addr);
          FUZZ_REQUIRE(s == 0 || s == 161002 || s == 561103, "rebind: %d", s);
        }
        break;
      case 6: {  // allocate or free a block
        const int b = in.byte() % kBlocks;
        w.drain();
        if (w.blocks[b]) {
          FUZZ_REQUIRE(aclrtFree(w.blocks[b]) == ACL_SUCCESS, "free");
          w.freedBlocks[b] = w.blocks[b];
          w.blocks[b] = nullptr;
        } else {
          w.blockBytes[b] = static_cast<size_t>(in.range(1, 512));
          if (aclrtMalloc(&w.blocks[b], w.blockBytes[b], ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            w.blocks[b] = nullptr;
        }
        break;
      }
      case 7: {  // memset / memcpy on any pointer we know
        const int pb = in.byte() % kBlocks, qb = in.byte() % kBlocks;
        void* p = w.address(in, w.blocks[pb], w.blockBytes[pb]);
        const size_t count = static_cast<size_t>(in.range(0, 600));
        w.drain();
        if (in.flag()) {
          aclrtMemset(p, count, 0x5A, count);
        } else {
          void* q = w.address(in, w.blocks[qb], w.blockBytes[qb]);
          aclrtMemcpy(p, count, q, count, ACL_MEMCPY_DEVICE_TO_DEVICE);
        }
        aclGetRecentErrMsg();
        break;
      }
      case 8: {  // destroy a stream with queued work, create a new one
        const int s = in.byte() % kStreams;
        if (w.streams[s]) {
          FUZZ_REQUIRE(aclrtDestroyStream(w.streams[s]) == ACL_SUCCESS, "destroy stream");
          w.destroyedStream = w.streams[s];
        }
        aclrtCreateStream(&w.streams[s]);
        break;
      }
      case 9:
        if (w.streams[0]) {
          const aclError s = aclrtSynchronizeStream(w.stream(in));
          aclGetRecentErrMsg();
          (void)s;
        }
        break;
      case 10:  // make repeatable (live, stale or null)
        if (in.flag() && call && call->executor()) {
          FUZZ_REQUIRE(aclSetAclOpExecutorRepeatable(call->executor()) == 0, "repeatable");
          call->repeatable = true;
        } else {
          FUZZ_REQUIRE(aclSetAclOpExecutorRepeatable(w.stale[slot]) != 0, "stale made repeatable");
        }
        aclGetRecentErrMsg();
        break;
      default: {  // finalize, try to launch, initialize again
        if (in.byte() % 4 != 0) break;
        w.drain();
        aclFinalize();
        for (aclrtStream& s : w.streams) s = nullptr;  // gone with the runtime
        if (call && call->executor()) {
          const aclnnStatus s = call->launch(nullptr);
          FUZZ_REQUIRE(s == 361001 || s == 161001 || s == 161002, "launch after aclFinalize: %d",
                       s);
        }
        aclInit(nullptr);
        aclrtSetDevice(0);
        for (aclrtStream& s : w.streams) aclrtCreateStream(&s);
        break;
      }
    }
  }
  w.drain();
  for (aclrtStream s : w.streams)
    if (s) aclrtDestroyStream(s);
  for (void* b : w.blocks)
    if (b) aclrtFree(b);
  aclGetRecentErrMsg();
  return 0;
}
