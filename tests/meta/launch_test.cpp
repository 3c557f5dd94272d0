// aclcpu::launchExecutor: phase-2 validation, one-shot vs repeatable
// lifetimes, snapshots of the bindings, and runs on real stream queues.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "acl/acl.h"
#include "meta_test_support.h"

namespace {

using meta_test::bind;
using meta_test::makeVector;
using meta_test::RecordingExecutor;
using meta_test::RunLog;
using meta_test::takeErrors;

constexpr const char* kApi = "aclnnLaunchTest";

class Launch : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    x_ = makeVector(4, bufferX_);
    y_ = makeVector(4, bufferY_);
  }
  void TearDown() override {
    log_->release();  // never leave a held run behind a failed assertion
    EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    aclDestroyTensor(x_);
    aclDestroyTensor(y_);
    aclrtResetDevice(0);
    takeErrors();
  }

  // One input (x), one output (y), `workspace` bytes requested by phase 1.
  aclOpExecutor* makeExecutor(uint64_t workspace, aclnnStatus result = ACLNN_SUCCESS) {
    auto executor = std::make_unique<RecordingExecutor>(log_, result);
    executor->inputs = {bind(x_)};
    executor->outputs = {bind(y_)};
    executor->workspaceSize = workspace;
    return aclcpu::registerExecutor(std::move(executor));
  }

  aclrtStream stream_ = nullptr;
  float bufferX_[4] = {}, bufferY_[4] = {}, other_[4] = {};
  alignas(64) unsigned char workspace_[256] = {};
  aclTensor* x_ = nullptr;
  aclTensor* y_ = nullptr;
  std::shared_ptr<RunLog> log_ = std::make_shared<RunLog>();
};

TEST_F(Launch, OneShotRunsOnceThenItsHandleIsStale) {
  aclOpExecutor* handle = makeExecutor(64);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, workspace_, 64, handle, stream_), ACLNN_SUCCESS);
  EXPECT_FALSE(aclcpu::isLiveExecutor(handle));  // unregistered at launch, before it runs
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(log_->runCount(), 1u);
  EXPECT_EQ(log_->inputAddresses[0], (std::vector<void*>{bufferX_}));
  EXPECT_EQ(log_->outputAddresses[0], (std::vector<void*>{bufferY_}));
  EXPECT_EQ(log_->workspaces[0], static_cast<void*>(workspace_));
  EXPECT_EQ(log_->workspaceSizes[0], 64u);
  EXPECT_EQ(log_->destroyed.load(), 1);  // freed after its run

  takeErrors();
  EXPECT_EQ(aclcpu::launchExecutor(kApi, workspace_, 64, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find(kApi), std::string::npos) << message;
  EXPECT_NE(message.find("already run"), std::string::npos) << message;
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
}

TEST_F(Launch, NullExecutorIs161001) {
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, nullptr, stream_), ACLNN_ERR_PARAM_NULLPTR);
  const std::string message = takeErrors();
  EXPECT_NE(message.find(kApi), std::string::npos) << message;
  EXPECT_NE(message.find("executor"), std::string::npos) << message;
}

TEST_F(Launch, ForeignOrDestroyedExecutorIs161002) {
  alignas(64) unsigned char garbage[128];
  for (auto& byte : garbage) byte = 0xEE;
  EXPECT_EQ(
      aclcpu::launchExecutor(kApi, nullptr, 0, reinterpret_cast<aclOpExecutor*>(garbage), stream_),
      ACLNN_ERR_PARAM_INVALID);
  aclOpExecutor* handle = makeExecutor(0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  ASSERT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 0u);
}

TEST_F(Launch, WorkspaceTooSmallOrNullIs161002AndKeepsTheExecutor) {
  aclOpExecutor* handle = makeExecutor(128);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, workspace_, 127, handle, stream_),
            ACLNN_ERR_PARAM_INVALID);
  std::string message = takeErrors();
  EXPECT_NE(message.find("workspaceSize"), std::string::npos) << message;
  EXPECT_NE(message.find("128"), std::string::npos) << message;
  EXPECT_NE(message.find("127"), std::string::npos) << message;
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 128, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  message = takeErrors();
  EXPECT_NE(message.find("argument workspace:"), std::string::npos) << message;
  EXPECT_TRUE(aclcpu::isLiveExecutor(handle));  // a rejected launch does not consume it

  // A larger workspace than asked for is fine.
  EXPECT_EQ(aclcpu::launchExecutor(kApi, workspace_, 256, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(log_->runCount(), 1u);
  EXPECT_EQ(log_->workspaceSizes[0], 256u);
}

TEST_F(Launch, NullWorkspaceWithNonZeroSizeIs161002EvenWhenNoneIsNeeded) {
  aclOpExecutor* handle = makeExecutor(0);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 16, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
}

TEST_F(Launch, RepeatableRunsManyTimesAndEachRunSeesItsLaunchTimeAddresses) {
  log_->holdRuns = true;  // every launch is queued before the first run starts
  aclOpExecutor* handle = makeExecutor(32);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  constexpr int kRuns = 40;
  std::vector<void*> expectedInputs;
  for (int k = 0; k < kRuns; ++k) {
    // Alternate buffers between launches: the queued runs must each see the
    // binding captured when they were launched, not the latest one.
    void* input = (k % 2 == 0) ? static_cast<void*>(bufferX_) : static_cast<void*>(other_);
    ASSERT_EQ(aclSetInputTensorAddr(handle, 0, x_, input), ACLNN_SUCCESS);
    expectedInputs.push_back(input);
    ASSERT_EQ(aclcpu::launchExecutor(kApi, workspace_, 32, handle, stream_), ACLNN_SUCCESS) << k;
  }
  EXPECT_EQ(log_->runCount(), 0u);
  log_->release();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(log_->runCount(), static_cast<size_t>(kRuns));
  for (int k = 0; k < kRuns; ++k) {
    EXPECT_EQ(log_->inputAddresses[k], (std::vector<void*>{expectedInputs[k]})) << k;
    EXPECT_EQ(log_->outputAddresses[k], (std::vector<void*>{bufferY_})) << k;
  }
  EXPECT_TRUE(aclcpu::isLiveExecutor(handle));
  EXPECT_EQ(log_->destroyed.load(), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_EQ(log_->destroyed.load(), 1);
}

TEST_F(Launch, OutputRebindingIsObservedByTheNextRun) {
  aclOpExecutor* handle = makeExecutor(0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetOutputTensorAddr(handle, 0, y_, other_), ACLNN_SUCCESS);
  EXPECT_EQ(y_->data, static_cast<void*>(other_));
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(log_->runCount(), 2u);
  EXPECT_EQ(log_->outputAddresses[0], (std::vector<void*>{bufferY_}));
  EXPECT_EQ(log_->outputAddresses[1], (std::vector<void*>{other_}));
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
}

TEST_F(Launch, DestroyingARepeatableExecutorWithAQueuedRunIsSafe) {
  log_->holdRuns = true;
  aclOpExecutor* handle = makeExecutor(0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_FALSE(aclcpu::isLiveExecutor(handle));
  EXPECT_EQ(log_->destroyed.load(), 0);  // the queued runs still share it
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  log_->release();
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 2u);
  EXPECT_EQ(log_->destroyed.load(), 1);
}

TEST_F(Launch, ARunFailureIsReportedBySynchronize) {
  aclOpExecutor* handle = makeExecutor(0, ACLNN_ERR_INNER);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  EXPECT_NE(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
  takeErrors();
}

TEST_F(Launch, NullStreamMeansTheDefaultStream) {
  aclOpExecutor* handle = makeExecutor(0);
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
  EXPECT_EQ(log_->destroyed.load(), 1);
}

TEST_F(Launch, ARefusedStreamLeavesAOneShotExecutorLaunchable) {
  aclOpExecutor* handle = makeExecutor(0);
  alignas(64) unsigned char notAStream[64] = {};
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, notAStream), ACLNN_ERR_RUNTIME_ERROR);
  const std::string message = takeErrors();
  EXPECT_NE(message.find(kApi), std::string::npos) << message;
  EXPECT_TRUE(aclcpu::isLiveExecutor(handle));
  ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
}

TEST_F(Launch, RunsOnTwoStreamsKeepEachStreamsOrder) {
  aclrtStream second = nullptr;
  ASSERT_EQ(aclrtCreateStream(&second), ACL_SUCCESS);
  auto logA = std::make_shared<RunLog>();
  auto logB = std::make_shared<RunLog>();
  std::vector<aclOpExecutor*> handles;
  for (auto& log : {logA, logB}) {
    auto executor = std::make_unique<RecordingExecutor>(log);
    executor->inputs = {bind(x_)};
    aclOpExecutor* handle = aclcpu::registerExecutor(std::move(executor));
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
    handles.push_back(handle);
  }
  for (int k = 0; k < 10; ++k) {
    ASSERT_EQ(aclSetInputTensorAddr(handles[0], 0, x_, &other_[k % 4]), ACLNN_SUCCESS);
    ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handles[0], stream_), ACLNN_SUCCESS);
    ASSERT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handles[1], second), ACLNN_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(second), ACL_SUCCESS);
  ASSERT_EQ(logA->runCount(), 10u);
  ASSERT_EQ(logB->runCount(), 10u);
  for (int k = 0; k < 10; ++k) {
    EXPECT_EQ(logA->inputAddresses[k], (std::vector<void*>{&other_[k % 4]})) << k;
  }
  for (aclOpExecutor* handle : handles) EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(second), ACL_SUCCESS);
}

}  // namespace

namespace {

TEST_F(Launch, AnotherOperatorsExecutorIs161002) {
  aclOpExecutor* handle = makeExecutor(0);
  EXPECT_EQ(aclcpu::launchExecutor("aclnnOtherOperator", nullptr, 0, handle, stream_),
            ACLNN_ERR_PARAM_INVALID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("planned for aclnnLaunchTest"), std::string::npos) << message;
  EXPECT_TRUE(aclcpu::isLiveExecutor(handle)) << "a rejected launch does not consume it";
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
}

TEST_F(Launch, NullAddressOfAnAccessedTensorIs161001AndOfAnUntouchedOneIsFine) {
  aclOpExecutor* handle = makeExecutor(0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetInputTensorAddr(handle, 0, x_, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_ERR_PARAM_NULLPTR);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("input 0"), std::string::npos) << message;
  EXPECT_NE(message.find("nullptr"), std::string::npos) << message;
  meta_test::executorOf(handle)->inputs[0].accessed = false;  // as for ConvTbc's bias
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(log_->runCount(), 1u);
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);
}

TEST_F(Launch, OverlappingOutputsAndBlockOverrunsAre161002) {
  auto executor = std::make_unique<RecordingExecutor>(log_);
  executor->inputs = {bind(x_)};
  executor->outputs = {bind(y_), bind(y_)};  // the same memory twice
  aclOpExecutor* handle = aclcpu::registerExecutor(std::move(executor));
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(takeErrors().find("share no memory"), std::string::npos);
  EXPECT_EQ(aclDestroyAclOpExecutor(handle), ACLNN_SUCCESS);

  // x's 4 floats placed 8 bytes before the end of a 16-byte block.
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  handle = makeExecutor(0);
  ASSERT_EQ(aclSetInputTensorAddr(handle, 0, x_, static_cast<char*>(block) + 8), ACLNN_SUCCESS);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(takeErrors().find("block of 16 bytes"), std::string::npos);
  ASSERT_EQ(aclSetInputTensorAddr(handle, 0, x_, block), ACLNN_SUCCESS);
  EXPECT_EQ(aclcpu::launchExecutor(kApi, nullptr, 0, handle, stream_), ACLNN_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(block), ACL_SUCCESS);
}

}  // namespace
