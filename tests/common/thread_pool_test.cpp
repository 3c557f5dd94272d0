// The shared compute pool: every index runs exactly once per region, back to
// back regions never bleed into each other, nested calls run inline, and
// exceptions come back to the caller.

#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace {

class ThreadPoolTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { aclcpu::setComputeThreadCount(GetParam()); }
  void TearDown() override { aclcpu::setComputeThreadCount(0); }
};

// Regression: a worker leaving one region used to read the next region's
// chunk count without the lock and run a stale chunk in it (duplicates,
// early returns, hangs). Tiny back-to-back regions make that window wide.
// Runs in a child process with an alarm, because the failure was a hang.
TEST_P(ThreadPoolTest, BackToBackRegionsRunEveryIndexExactlyOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const int threads = GetParam();
  EXPECT_EXIT(
      {
        alarm(60);
        aclcpu::setComputeThreadCount(threads);
        std::vector<std::atomic<int>> hits(8);
        long wrong = 0;
        for (int region = 0; region < 100000; ++region) {
          const int64_t count = 1 + region % 3;
          for (auto& h : hits) h.store(0);
          aclcpu::parallelFor(count, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
          });
          for (int64_t i = 0; i < 8; ++i)
            wrong += hits[static_cast<size_t>(i)].load() != (i < count);
        }
        std::_Exit(wrong == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// The caller is one of the team: with one thread every range runs on it, and
// with more the ranges are spread over that many distinct threads at once
// (each of the first `threads` ranges waits until all of them have started).
TEST_P(ThreadPoolTest, TheTeamIsTheCallerPlusThreadsMinusOneWorkersRunningTogether) {
  const int threads = GetParam();
  const std::thread::id caller = std::this_thread::get_id();
  if (threads == 1) {
    std::atomic<int> onCaller{0};
    aclcpu::parallelFor(7, [&](int64_t begin, int64_t end) {
      if (std::this_thread::get_id() == caller) onCaller += static_cast<int>(end - begin);
    });
    EXPECT_EQ(onCaller.load(), 7);
    return;
  }
  std::atomic<int> started{0};
  std::atomic<bool> allMet{true};
  std::mutex idsMutex;
  std::set<std::thread::id> ids;
  aclcpu::parallelFor(threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      {
        std::lock_guard<std::mutex> lock(idsMutex);
        ids.insert(std::this_thread::get_id());
      }
      ++started;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (started.load() < threads) {
        if (std::chrono::steady_clock::now() > deadline) {
          allMet = false;
          break;
        }
        std::this_thread::yield();
      }
    }
  });
  EXPECT_TRUE(allMet.load()) << "the ranges did not all run at the same time";
  EXPECT_EQ(ids.size(), static_cast<size_t>(threads));
  EXPECT_EQ(ids.count(caller), 1u) << "the calling thread takes part in its region";
}

// regionWorker names each team member once: the caller 0, the workers
// 1 .. threads - 1, the same inside nested (inline) calls; {0, 1} outside.
TEST_P(ThreadPoolTest, EachTeamMemberHasItsOwnIndex) {
  const int threads = GetParam();
  EXPECT_EQ(aclcpu::regionWorker().index, 0);
  EXPECT_EQ(aclcpu::regionWorker().threads, 1);
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::set<std::pair<std::thread::id, int>> seen;
  std::atomic<bool> consistent{true};
  for (int round = 0; round < 50; ++round) {
    aclcpu::parallelFor(4 * threads, [&](int64_t, int64_t) {
      const aclcpu::RegionWorker me = aclcpu::regionWorker();
      aclcpu::parallelFor(3, [&](int64_t, int64_t) {
        const aclcpu::RegionWorker nested = aclcpu::regionWorker();
        if (nested.index != me.index || nested.threads != me.threads) consistent = false;
      });
      if (me.threads != threads || me.index < 0 || me.index >= threads) consistent = false;
      if ((std::this_thread::get_id() == caller) != (me.index == 0)) consistent = false;
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert({std::this_thread::get_id(), me.index});
    });
  }
  EXPECT_TRUE(consistent.load());
  // One index per thread and one thread per index.
  std::set<std::thread::id> ids;
  std::set<int> indices;
  for (const auto& s : seen) {
    ids.insert(s.first);
    indices.insert(s.second);
  }
  EXPECT_EQ(ids.size(), seen.size());
  EXPECT_EQ(indices.size(), seen.size());
  EXPECT_EQ(aclcpu::regionWorker().index, 0);
  EXPECT_EQ(aclcpu::regionWorker().threads, 1);
}

TEST_P(ThreadPoolTest, RangesCoverLargeCountsDisjointly) {
  const int64_t count = 100003;
  std::vector<std::atomic<int>> hits(count);
  aclcpu::parallelFor(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
  });
  for (int64_t i = 0; i < count; ++i) ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << i;
}

TEST_P(ThreadPoolTest, NestedCallsRunInlineWithoutDeadlock) {
  std::atomic<int64_t> total{0};
  aclcpu::parallelFor(4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      EXPECT_EQ(aclcpu::computeThreadCount(), GetParam());  // lock-free inside a region
      aclcpu::parallelFor(10, [&](int64_t b, int64_t e) { total += e - b; });
    }
  });
  EXPECT_EQ(total.load(), 40);
}

TEST_P(ThreadPoolTest, ExceptionsReachTheCallerAndThePoolSurvives) {
  EXPECT_THROW(aclcpu::parallelFor(6,
                                   [](int64_t begin, int64_t) {
                                     if (begin == 0) throw std::runtime_error("boom");
                                   }),
               std::runtime_error);
  std::atomic<int64_t> total{0};
  aclcpu::parallelFor(6, [&](int64_t begin, int64_t end) { total += end - begin; });
  EXPECT_EQ(total.load(), 6);
}

TEST_P(ThreadPoolTest, ReleasedPoolComesBackOnDemand) {
  aclcpu::releaseComputePool();
  std::atomic<int64_t> total{0};
  aclcpu::parallelFor(5, [&](int64_t begin, int64_t end) { total += end - begin; });
  EXPECT_EQ(total.load(), 5);
  EXPECT_EQ(aclcpu::computeThreadCount(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 3, 8));

}  // namespace
