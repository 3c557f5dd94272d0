// Executor registry: registration, repeatable flag, destruction, stale handles.

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "meta_test_support.h"

namespace {

using meta_test::executorOf;
using meta_test::RecordingExecutor;
using meta_test::RunLog;
using meta_test::takeErrors;

TEST(ExecutorRegistry, RegisteredHandleIsLiveUntilDestroyed) {
  auto log = std::make_shared<RunLog>();
  aclOpExecutor* handle = aclcpu::registerExecutor(std::make_unique<RecordingExecutor>(log));
  ASSERT_NE(handle, nullptr);
  EXPECT_TRUE(aclcpu::isLiveExecutor(handle));
  EXPECT_FALSE(executorOf(handle)->repeatable);

  // Destroying a not-yet-launched one-shot executor is allowed and frees it.
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_EQ(log->destroyed.load(), 1);
  EXPECT_FALSE(aclcpu::isLiveExecutor(handle));
  EXPECT_EQ(log->runCount(), 0u);
}

TEST(ExecutorRegistry, NullAndForeignHandlesAreNotLive) {
  EXPECT_FALSE(aclcpu::isLiveExecutor(nullptr));
  int notAnExecutor = 0;
  EXPECT_FALSE(aclcpu::isLiveExecutor(reinterpret_cast<aclOpExecutor*>(&notAnExecutor)));
  EXPECT_EQ(aclcpu::registerExecutor(nullptr), nullptr);
}

TEST(ExecutorRegistry, DoubleDestroyIsAnErrorNotACrash) {
  auto log = std::make_shared<RunLog>();
  aclOpExecutor* handle = aclcpu::registerExecutor(std::make_unique<RecordingExecutor>(log));
  aclSetAclOpExecutorRepeatable(handle);
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  takeErrors();
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_ERR_PARAM_INVALID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclDestroyAclOpExecutor"), std::string::npos) << message;
  EXPECT_NE(message.find("executor"), std::string::npos) << message;
  EXPECT_EQ(log->destroyed.load(), 1);
}

TEST(ExecutorRegistry, DestroyRejectsNullAndForeignHandles) {
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_NE(takeErrors().find("aclDestroyAclOpExecutor"), std::string::npos);
  // A pointer that was never an executor is looked up, never dereferenced.
  alignas(64) unsigned char garbage[64];
  for (auto& byte : garbage) byte = 0xCD;
  EXPECT_EQ(aclDestroyAclOpExecutor(reinterpret_cast<aclOpExecutor*>(garbage)),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(takeErrors().find("aclDestroyAclOpExecutor"), std::string::npos);
}

TEST(ExecutorRegistry, SetRepeatableMarksLiveExecutorsOnly) {
  auto log = std::make_shared<RunLog>();
  aclOpExecutor* handle = aclcpu::registerExecutor(std::make_unique<RecordingExecutor>(log));
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  EXPECT_TRUE(executorOf(handle)->repeatable);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);  // idempotent

  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_NE(takeErrors().find("aclSetAclOpExecutorRepeatable"), std::string::npos);

  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_ERR_INNER);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclSetAclOpExecutorRepeatable"), std::string::npos) << message;
  EXPECT_NE(message.find("live executor"), std::string::npos) << message;
}

TEST(ExecutorRegistry, ManyExecutorsAreTrackedIndependently) {
  auto log = std::make_shared<RunLog>();
  std::vector<aclOpExecutor*> handles;
  for (int k = 0; k < 100; ++k) {
    handles.push_back(aclcpu::registerExecutor(std::make_unique<RecordingExecutor>(log)));
  }
  for (int k = 0; k < 100; k += 2) EXPECT_EQ(aclDestroyAclOpExecutor(handles[k]), ACLNN_SUCCESS);
  for (int k = 0; k < 100; ++k) EXPECT_EQ(aclcpu::isLiveExecutor(handles[k]), k % 2 == 1) << k;
  for (int k = 1; k < 100; k += 2) EXPECT_EQ(aclDestroyAclOpExecutor(handles[k]), ACLNN_SUCCESS);
  EXPECT_EQ(log->destroyed.load(), 100);
}

}  // namespace

namespace {

// Issue #7 finding 4: the registry was keyed by the object's address, which
// the allocator hands to the next executor, so a stale handle named it.
TEST(ExecutorRegistry, HandlesAreNeverReusedAndAreNotObjectAddresses) {
  std::set<aclOpExecutor*> issued;
  auto log = std::make_shared<RunLog>();
  for (int i = 0; i < 1000; ++i) {
    aclOpExecutor* handle = aclcpu::registerExecutor(std::make_unique<RecordingExecutor>(log));
    ASSERT_NE(handle, nullptr);
    EXPECT_TRUE(issued.insert(handle).second) << "handle issued twice at " << i;
    EXPECT_NE(executorOf(handle), handle) << "the handle is not the object";
    ASSERT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
    EXPECT_FALSE(aclcpu::isLiveExecutor(handle));
    EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_ERR_PARAM_INVALID);
  }
  takeErrors();
}

}  // namespace
