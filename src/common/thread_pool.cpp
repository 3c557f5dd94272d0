#include "common/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
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

class ThreadPool {
 public:
  explicit ThreadPool(int threads) : threadCount_(threads) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { workerLoop(); });
  }

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
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
    const int64_t chunks = std::min<int64_t>(count, int64_t{threadCount_} * kChunksPerThread);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      count_ = count;
      chunks_ = chunks;
      nextChunk_.store(0);
      unfinished_ = chunks;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    // Wait for the chunks and for every worker to leave the region, so that
    // no worker still reads this region's state when the next one is set up.
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return unfinished_ == 0 && busyWorkers_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void workerLoop() {
    tInsideRegion = true;
    uint64_t seen = 0;
    for (;;) {
      const RangeBody* body = nullptr;
      int64_t count = 0, chunks = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        if (unfinished_ == 0) continue;  // woke after the region was already done
        // The region's parameters are read once, under the lock; run() does not
        // publish another region until this worker has left this one.
        body = body_;
        count = count_;
        chunks = chunks_;
        ++busyWorkers_;
      }
      for (;;) {
        const int64_t chunk = nextChunk_.fetch_add(1);
        if (chunk >= chunks) break;
        const int64_t begin = count * chunk / chunks;
        const int64_t end = count * (chunk + 1) / chunks;
        std::exception_ptr failure;
        try {
          (*body)(begin, end);
        } catch (...) {
          failure = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        if (failure && !error_) error_ = failure;
        --unfinished_;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      --busyWorkers_;
      if (unfinished_ == 0 && busyWorkers_ == 0) done_.notify_all();
    }
  }

  const int threadCount_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  bool stopping_ = false;
  uint64_t generation_ = 0;
  const RangeBody* body_ = nullptr;
  int64_t count_ = 0;
  int64_t chunks_ = 0;
  std::atomic<int64_t> nextChunk_{0};
  int64_t unfinished_ = 0;
  int busyWorkers_ = 0;
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
