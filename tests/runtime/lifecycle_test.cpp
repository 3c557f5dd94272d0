// Clean shutdown: no stream thread survives aclFinalize, and a program that
// exits without aclFinalize (even with work pending or stuck) exits cleanly.

#include <dirent.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "runtime/stream_queue.h"
#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

int threadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int count = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(dir);
  return count;
}

// A joined thread can stay listed in /proc for a moment after pthread_join
// returns, so counts are polled until they settle (bounded; not a timing
// assertion: a thread that really survives keeps the count wrong forever).
int settledThreadCount(int expected) {
  int count = threadCount();
  for (int i = 0; i < 500 && count != expected; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    count = threadCount();
  }
  return count;
}

// The steady count once every thread of earlier tests is gone.
int baselineThreadCount() {
  int previous = -1, count = threadCount();
  for (int i = 0; i < 50 && count != previous; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    previous = count;
    count = threadCount();
  }
  return count;
}

using LifecycleTest = RuntimeTest;

TEST_F(LifecycleTest, FinalizeStopsEveryStreamThread) {
  aclrtStream warm = nullptr;  // brings up every lazily created process thread
  ASSERT_EQ(aclrtCreateStream(&warm), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(warm), ACL_SUCCESS);
  const int baseline = baselineThreadCount();
  ASSERT_GT(baseline, 0);

  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream streams[3];
  for (auto& stream : streams) ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  int value = 0;
  ASSERT_EQ(aclrtMemsetAsync(&value, sizeof(value), 0x33, sizeof(value), nullptr), ACL_SUCCESS);
  EXPECT_EQ(settledThreadCount(baseline + 4), baseline + 4);

  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(settledThreadCount(baseline), baseline);
  EXPECT_EQ(value, 0x33333333) << "pending work ran before finalize returned";
}

TEST_F(LifecycleTest, DestroyStreamJoinsItsThread) {
  aclrtStream warm = nullptr;
  ASSERT_EQ(aclrtCreateStream(&warm), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(warm), ACL_SUCCESS);
  const int baseline = baselineThreadCount();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(settledThreadCount(baseline + 1), baseline + 1);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(settledThreadCount(baseline), baseline);
}

// Death-test children re-run the binary, so they start from a fresh process.
class ExitWithoutFinalizeTest : public ::testing::Test {
 protected:
  void SetUp() override { ::testing::FLAGS_gtest_death_test_style = "threadsafe"; }
};

TEST_F(ExitWithoutFinalizeTest, PendingWorkDoesNotBlockExit) {
  EXPECT_EXIT(
      {
        aclInit(nullptr);
        aclrtSetDevice(0);
        aclrtStream stream = nullptr;
        aclrtCreateStream(&stream);
        static int sink = 0;
        for (int i = 0; i < 10000; ++i) {
          aclcpu::enqueueOnStream(stream, [] {
            ++sink;
            return ACL_SUCCESS;
          });
        }
        aclcpu::enqueueOnStream(nullptr, [] { return ACL_SUCCESS; });
        std::exit(7);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(ExitWithoutFinalizeTest, AStuckTaskDoesNotHangExit) {
  EXPECT_EXIT(
      {
        aclrtStream stream = nullptr;
        aclrtCreateStream(&stream);
        // Never destroyed: a static latch would be torn down at exit, before
        // the runtime's exit guard, and wake the task early.
        static Latch* started = new Latch;
        static Latch* never = new Latch;
        aclcpu::enqueueOnStream(stream, [] {
          started->open();
          return never->wait(std::chrono::hours(1)) ? 0 : 1;
        });
        if (!started->wait()) std::exit(1);  // exit only once the task is running
        std::exit(3);
      },
      ::testing::ExitedWithCode(3), "");
}

}  // namespace
}  // namespace aclcpu_test
