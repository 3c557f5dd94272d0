// Streams are real asynchronous in-order queues, one worker thread each.

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/error_log.h"
#include "runtime/stream_queue.h"
#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using aclcpu::enqueueOnStream;
using StreamTest = RuntimeTest;

TEST_F(StreamTest, TasksRunInOrder) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_NE(stream, nullptr);
  std::vector<int> order;
  for (int i = 0; i < 500; ++i) {
    ASSERT_EQ(enqueueOnStream(stream,
                              [&order, i] {
                                order.push_back(i);
                                return ACL_SUCCESS;
                              }),
              ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(order.size(), 500u);
  for (int i = 0; i < 500; ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, EnqueueReturnsBeforeTheWorkRuns) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Latch gate;
  std::atomic<bool> finished{false};
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              const bool released = gate.wait();
                              finished = true;
                              return released ? ACL_SUCCESS : ACL_ERROR_FAILURE;
                            }),
            ACL_SUCCESS);
  // A synchronous enqueue would only return after the task timed out.
  EXPECT_FALSE(finished.load()) << "the task ran inside enqueue";
  int value = 0;
  ASSERT_EQ(aclrtMemsetAsync(&value, sizeof(value), 0x7F, sizeof(value), stream), ACL_SUCCESS);
  EXPECT_EQ(value, 0) << "queued behind the blocked task";
  gate.open();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_TRUE(finished.load());
  EXPECT_EQ(value, 0x7F7F7F7F);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeReportsTheFirstFailureThenClearsIt) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<int> ran{0};
  auto succeed = [&] {
    ++ran;
    return ACL_SUCCESS;
  };
  ASSERT_EQ(enqueueOnStream(stream, succeed), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              ++ran;
                              aclcpu::recordError("first failure: operand too large");
                              return 161002;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              ++ran;
                              aclcpu::recordError("second failure");
                              return 561000;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream, succeed), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), 161002);
  EXPECT_EQ(ran.load(), 4) << "later tasks still run";
  const std::string message = takeErrors();
  EXPECT_EQ(message.rfind("aclrtSynchronizeStream:", 0), 0u) << message;
  EXPECT_NE(message.find("161002"), std::string::npos) << message;
  EXPECT_NE(message.find("first failure: operand too large"), std::string::npos) << message;
  EXPECT_EQ(message.find("second failure"), std::string::npos) << message;
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << "reported once, then cleared";
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, FailureWithoutMessageAndExceptionsAreReported) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream, [] { return ACL_ERROR_FAILURE; }), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_FAILURE);
  EXPECT_NE(takeErrors().find("recorded no message"), std::string::npos);
  ASSERT_EQ(enqueueOnStream(stream, []() -> aclError { throw std::runtime_error("kaboom"); }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INTERNAL_ERROR);
  EXPECT_NE(takeErrors().find("kaboom"), std::string::npos);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, TwoStreamsRunAtTheSameTime) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStreamWithConfig(&b, 0, 0), ACL_SUCCESS);
  ASSERT_NE(a, b);
  // Each task waits for the other to start: both succeed only if the two
  // streams really run concurrently.
  Latch aStarted, bStarted;
  ASSERT_EQ(enqueueOnStream(a,
                            [&] {
                              aStarted.open();
                              return bStarted.wait() ? ACL_SUCCESS : ACL_ERROR_FAILURE;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(b,
                            [&] {
                              bStarted.open();
                              return aStarted.wait() ? ACL_SUCCESS : ACL_ERROR_FAILURE;
                            }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
}

TEST_F(StreamTest, DestroyRunsPendingWorkFirst) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Latch gate;
  std::vector<int> done;
  ASSERT_EQ(enqueueOnStream(stream, [&] { return gate.wait() ? ACL_SUCCESS : ACL_ERROR_FAILURE; }),
            ACL_SUCCESS);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(enqueueOnStream(stream,
                              [&done, i] {
                                done.push_back(i);
                                return ACL_SUCCESS;
                              }),
              ACL_SUCCESS);
  }
  std::thread opener([&] { gate.open(); });
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  opener.join();
  ASSERT_EQ(done.size(), 100u);
  EXPECT_EQ(done.back(), 99);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE) << "double destroy";
}

TEST_F(StreamTest, StaleAndForeignHandlesAreRejected) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  bool ran = false;
  EXPECT_EQ(enqueueOnStream(stream,
                            [&] {
                              ran = true;
                              return ACL_SUCCESS;
                            }),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_NE(takeErrors().find("not a live stream"), std::string::npos);
  EXPECT_EQ(enqueueOnStream(
                stream, [] { return ACL_SUCCESS; }, "aclnnConvolutionBackward"),
            ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(takeErrors().rfind("aclnnConvolutionBackward: argument stream", 0), 0u);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 10), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  int notAStream = 0;
  EXPECT_EQ(aclrtSynchronizeStream(&notAStream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyStream(&notAStream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(context), ACL_ERROR_INVALID_RESOURCE_HANDLE)
      << "a context handle is not a stream";
  EXPECT_FALSE(ran);
  takeErrors();

  EXPECT_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("default stream cannot be destroyed"), std::string::npos);
  EXPECT_EQ(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateStreamWithConfig(nullptr, 0, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("aclrtCreateStreamWithConfig: argument stream is null"),
            std::string::npos);
}

TEST_F(StreamTest, NullStreamIsTheDefaultStreamOfTheCurrentContext) {
  // Without aclrtSetDevice the device's default context is used on demand.
  std::vector<int> order;
  std::thread::id firstWorker, secondWorker;
  ASSERT_EQ(enqueueOnStream(nullptr,
                            [&] {
                              firstWorker = std::this_thread::get_id();
                              order.push_back(1);
                              return ACL_SUCCESS;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(nullptr,
                            [&] {
                              secondWorker = std::this_thread::get_id();
                              order.push_back(2);
                              return ACL_SUCCESS;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_EQ(firstWorker, secondWorker) << "one default stream";
  EXPECT_NE(firstWorker, std::this_thread::get_id()) << "it runs on a worker, not inline";

  // A created context has a default stream of its own.
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  std::thread::id contextWorker;
  ASSERT_EQ(enqueueOnStream(nullptr,
                            [&] {
                              contextWorker = std::this_thread::get_id();
                              return ACL_SUCCESS;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_NE(contextWorker, firstWorker);
}

TEST_F(StreamTest, SynchronizingAnUnusedDefaultStreamSucceeds) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(nullptr, -1), ACL_SUCCESS);
}

TEST_F(StreamTest, TasksRunWithTheirStreamsContext) {
  aclrtContext owner = nullptr, other = nullptr;
  ASSERT_EQ(aclrtCreateContext(&owner, 0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&other, 0), ACL_SUCCESS);  // now current here
  aclrtContext seen = nullptr;
  ASSERT_EQ(enqueueOnStream(stream, [&] { return aclrtGetCurrentContext(&seen); }), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(seen, owner);
}

TEST_F(StreamTest, TasksMayEnqueueMoreWorkOnTheirStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<int> order;
  Latch secondQueued;
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              order.push_back(1);
                              if (!secondQueued.wait()) return ACL_ERROR_FAILURE;
                              // Lands behind task 2, which is already queued.
                              return enqueueOnStream(stream, [&] {
                                order.push_back(3);
                                return ACL_SUCCESS;
                              });
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              order.push_back(2);
                              return ACL_SUCCESS;
                            }),
            ACL_SUCCESS);
  secondQueued.open();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // the one enqueued by the task
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_F(StreamTest, ATaskCannotSynchronizeItsOwnStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclError inner = ACL_SUCCESS, innerDevice = ACL_SUCCESS;
  ASSERT_EQ(enqueueOnStream(stream,
                            [&] {
                              inner = aclrtSynchronizeStream(stream);
                              innerDevice = aclrtSynchronizeDevice();
                              return ACL_SUCCESS;
                            }),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(inner, ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(innerDevice, ACL_ERROR_INVALID_PARAM);
}

TEST_F(StreamTest, SynchronizeWithTimeout) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  Latch gate;
  ASSERT_EQ(enqueueOnStream(stream, [&] { return gate.wait() ? ACL_SUCCESS : ACL_ERROR_FAILURE; }),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 20), ACL_ERROR_RT_WAIT_TIMEOUT);
  EXPECT_NE(takeErrors().find("within the timeout (20 ms)"), std::string::npos);
  gate.open();
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, -1), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, 1000), ACL_SUCCESS);
  for (int32_t bad : {0, -2, -1000}) {
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(stream, bad), ACL_ERROR_INVALID_PARAM) << bad;
    EXPECT_NE(takeErrors().find("timeout is " + std::to_string(bad)), std::string::npos);
  }
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(StreamTest, SynchronizeDeviceWaitsForEveryStream) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
  Latch gate;
  std::atomic<int> done{0};
  auto blocked = [&] {
    const bool released = gate.wait();
    ++done;
    return released ? ACL_SUCCESS : ACL_ERROR_FAILURE;
  };
  ASSERT_EQ(enqueueOnStream(a, blocked), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(b, blocked), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(nullptr, blocked), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(b, [] { return 12345; }), ACL_SUCCESS);
  std::thread opener([&] { gate.open(); });
  EXPECT_EQ(aclrtSynchronizeDevice(), 12345);
  opener.join();
  EXPECT_EQ(done.load(), 3);
  EXPECT_NE(takeErrors().find("aclrtSynchronizeDevice: a task on stream"), std::string::npos);
  EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS) << "already reported";
}

TEST_F(StreamTest, SynchronizingFromAnotherThreadSeesTheFailureMessage) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_EQ(enqueueOnStream(stream,
                            [] {
                              aclcpu::recordError("kernel says no");
                              return 561103;
                            }),
            ACL_SUCCESS);
  aclError status = ACL_SUCCESS;
  std::string message;
  std::thread other([&] {
    status = aclrtSynchronizeStream(stream);
    message = takeErrors();
  });
  other.join();
  EXPECT_EQ(status, 561103);
  EXPECT_NE(message.find("kernel says no"), std::string::npos) << message;
  EXPECT_EQ(takeErrors(), "") << "the enqueuing thread saw nothing";
}

TEST_F(StreamTest, ManyThreadsEnqueueingConcurrently) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::atomic<int> total{0};
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&] {
      for (int i = 0; i < 250; ++i) {
        enqueueOnStream(stream, [&] {
          ++total;
          return ACL_SUCCESS;
        });
      }
    });
  }
  for (auto& producer : producers) producer.join();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(total.load(), 1000);
}

}  // namespace
}  // namespace aclcpu_test
