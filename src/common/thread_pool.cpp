#include "common/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace aclcpu {
namespace {

thread_local bool tInsideRegion = false;
// This thread's place in the team of the region it runs (see regionWorker).
thread_local RegionWorker tWorker;

int defaultThreadCount() {
  if (const char* env = std::getenv("ACLNN_CPU_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0 && value <= 4096) return static_cast<int>(value);
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

constexpr int64_t kChunksPerThread = 4;

// How long a thread polls for the next region (a worker) or for the region's
// last chunk (the caller) before it sleeps. A futex wake-up costs 30-150 us on
// the virtual machines we measure on, more than many regions' whole work, and
// the passes run regions back to back. Polling yields the core every few
// rounds, so an oversubscribed machine still makes progress.
constexpr auto kPollBudget = std::chrono::microseconds(300);
constexpr int kPausesPerYield = 64;

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Polls ready() for kPollBudget; true as soon as it holds.
template <typename Ready>
bool pollFor(Ready&& ready) {
  const auto deadline = std::chrono::steady_clock::now() + kPollBudget;
  for (int round = 1;; ++round) {
    if (ready()) return true;
    if (round % kPausesPerYield == 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::yield();
    } else {
      cpuRelax();
    }
  }
}

// threads - 1 workers; the thread that calls run() is the last member of the
// team, so one thread means no workers and no hand-off at all.
class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threadCount_(threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { workerLoop(i); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
  }

  int threadCount() const { return threadCount_; }

  // Caller holds the region lock, so only one region is ever in flight.
  void run(int64_t count, const RangeBody& body) {
    // A few chunks per thread, taken first come first served: a thread that
    // the OS holds back (a shared machine) does not hold up the region.
    // Results never depend on the cut (see parallelFor's contract).
    const int64_t chunks =
        workers_.empty() ? 1 : std::min<int64_t>(count, int64_t{threadCount_} * kChunksPerThread);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      count_ = count;
      chunks_ = chunks;
      nextChunk_.store(0);
      unfinished_.store(chunks);
      error_ = nullptr;
      open_ = true;
      generation_.fetch_add(1);
      if (sleepers_ > 0) wake_.notify_all();
    }
    // The caller works too; a nested parallelFor from its chunks runs inline.
    tInsideRegion = true;
    tWorker = RegionWorker{0, threadCount_};
    runChunks(body, count, chunks);
    tWorker = RegionWorker{};
    tInsideRegion = false;
    // Wait for the chunks and for every worker to leave the region, so that
    // no worker still reads this region's state when the next one is set up.
    pollFor([this] { return unfinished_.load() == 0 && busyWorkers_.load() == 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    callerWaiting_ = true;
    done_.wait(lock, [this] { return unfinished_.load() == 0 && busyWorkers_.load() == 0; });
    callerWaiting_ = false;
    open_ = false;
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void runChunks(const RangeBody& body, int64_t count, int64_t chunks) {
    for (;;) {
      const int64_t chunk = nextChunk_.fetch_add(1);
      if (chunk >= chunks) break;
      const int64_t begin = count * chunk / chunks;
      const int64_t end = count * (chunk + 1) / chunks;
      try {
        body(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      unfinished_.fetch_sub(1);
    }
  }

  void workerLoop(int index) {
    tInsideRegion = true;
    tWorker = RegionWorker{index, threadCount_};
    uint64_t seen = 0;
    for (;;) {
      const RangeBody* body = nullptr;
      int64_t count = 0, chunks = 0;
      auto published = [&] { return stopping_.load() || generation_.load() != seen; };
      pollFor(published);
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ++sleepers_;
        wake_.wait(lock, published);
        --sleepers_;
        if (stopping_.load()) return;
        seen = generation_.load();
        if (!open_) continue;  // woke after the region was already done
        // The region's parameters are read once, under the lock; run() does not
        // publish another region until this worker has left this one.
        body = body_;
        count = count_;
        chunks = chunks_;
        busyWorkers_.fetch_add(1);
      }
      runChunks(*body, count, chunks);
      std::lock_guard<std::mutex> lock(mutex_);
      busyWorkers_.fetch_sub(1);
      if (callerWaiting_ && unfinished_.load() == 0 && busyWorkers_.load() == 0) {
        done_.notify_all();
      }
    }
  }

  const int threadCount_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> generation_{0};
  bool open_ = false;           // under mutex_
  int sleepers_ = 0;            // workers inside wake_.wait; under mutex_
  bool callerWaiting_ = false;  // caller inside done_.wait; under mutex_
  const RangeBody* body_ = nullptr;
  int64_t count_ = 0;
  int64_t chunks_ = 0;
  std::atomic<int64_t> nextChunk_{0};
  std::atomic<int64_t> unfinished_{0};
  std::atomic<int> busyWorkers_{0};
  std::exception_ptr error_;
};

std::mutex& regionMutex() {
  static std::mutex mutex;
  return mutex;
}

std::unique_ptr<ThreadPool>& poolSlot() {
  static std::unique_ptr<ThreadPool> pool;
  return pool;
}

// The size the pool has or will have, readable without the region lock.
std::atomic<int>& configuredThreads() {
  static std::atomic<int> threads{defaultThreadCount()};
  return threads;
}

// Caller holds the region lock.
ThreadPool& pool() {
  auto& slot = poolSlot();
  if (!slot) slot = std::make_unique<ThreadPool>(configuredThreads().load());
  return *slot;
}

}  // namespace

int computeThreadCount() { return configuredThreads().load(); }

RegionWorker regionWorker() { return tWorker; }

void releaseComputePool() {
  std::lock_guard<std::mutex> lock(regionMutex());
  poolSlot().reset();
}

void touchComputePool() {
  regionMutex();
  poolSlot();
  configuredThreads();
}

void setComputeThreadCount(int threads) {
  std::lock_guard<std::mutex> lock(regionMutex());
  poolSlot().reset();
  configuredThreads().store(threads > 0 ? threads : defaultThreadCount());
  poolSlot() = std::make_unique<ThreadPool>(configuredThreads().load());
}

void parallelForRanges(int64_t count, RangeBody body) {
  if (count <= 0) return;
  if (tInsideRegion) {
    body(0, count);
    return;
  }
  std::lock_guard<std::mutex> lock(regionMutex());
  pool().run(count, body);
}

}  // namespace aclcpu
