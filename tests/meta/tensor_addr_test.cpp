// aclSet{Input,Output,}TensorAddr and the dynamic (tensor-list) variants.

#include <gtest/gtest.h>

#include <memory>

#include "meta_test_support.h"

namespace {

using meta_test::absentBinding;
using meta_test::bind;
using meta_test::executorOf;
using meta_test::makeVector;
using meta_test::RecordingExecutor;
using meta_test::RunLog;
using meta_test::takeErrors;

// Executor with inputs (a, b, <absent>) and output (y); the caller's tensors
// stay alive for the test's duration.
class TensorAddr : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = makeVector(4, bufferA_);
    b_ = makeVector(4, bufferB_);
    y_ = makeVector(4, bufferY_);
    auto executor = std::make_unique<RecordingExecutor>(log_);
    executor->inputs = {bind(a_), bind(b_), absentBinding()};
    executor->outputs = {bind(y_)};
    handle_ = aclcpu::registerExecutor(std::move(executor));
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(handle_), ACLNN_SUCCESS);
  }
  void TearDown() override {
    aclDestroyAclOpExecutor(handle_);
    aclDestroyTensor(a_);
    aclDestroyTensor(b_);
    aclDestroyTensor(y_);
    takeErrors();
  }

  void* inputAddr(size_t k) const { return executorOf(handle_)->inputs[k].tensor.data; }
  void* outputAddr(size_t k) const { return executorOf(handle_)->outputs[k].tensor.data; }

  float bufferA_[4] = {}, bufferB_[4] = {}, bufferY_[4] = {}, fresh_[4] = {};
  aclTensor* a_ = nullptr;
  aclTensor* b_ = nullptr;
  aclTensor* y_ = nullptr;
  std::shared_ptr<RunLog> log_ = std::make_shared<RunLog>();
  aclOpExecutor* handle_ = nullptr;
};

TEST_F(TensorAddr, MatchesByTensorHandleBeforeIndex) {
  // Index 0 names `a`, but the handle `b` wins: index is advisory, as upstream.
  EXPECT_EQ(aclSetInputTensorAddr(handle_, 0, b_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(inputAddr(0), static_cast<void*>(bufferA_));
  EXPECT_EQ(inputAddr(1), static_cast<void*>(fresh_));
  EXPECT_EQ(b_->data, static_cast<void*>(fresh_));
  EXPECT_EQ(a_->data, static_cast<void*>(bufferA_));
}

TEST_F(TensorAddr, FallsBackToIndexForAnUnboundTensor) {
  aclTensor* replacement = makeVector(4, nullptr);
  EXPECT_EQ(aclSetInputTensorAddr(handle_, 1, replacement, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(inputAddr(1), static_cast<void*>(fresh_));
  EXPECT_EQ(inputAddr(0), static_cast<void*>(bufferA_));
  EXPECT_EQ(replacement->data, static_cast<void*>(fresh_));
  EXPECT_EQ(aclSetOutputTensorAddr(handle_, 0, replacement, bufferB_), ACLNN_SUCCESS);
  EXPECT_EQ(outputAddr(0), static_cast<void*>(bufferB_));
  aclDestroyTensor(replacement);
}

TEST_F(TensorAddr, OutputSideMatchesOutputs) {
  EXPECT_EQ(aclSetOutputTensorAddr(handle_, 0, y_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(outputAddr(0), static_cast<void*>(fresh_));
  EXPECT_EQ(y_->data, static_cast<void*>(fresh_));
  // `a` is an input, not an output: with no match the index decides, and
  // output index 3 does not exist.
  EXPECT_EQ(aclSetOutputTensorAddr(handle_, 3, a_, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(a_->data, static_cast<void*>(bufferA_));
  EXPECT_EQ(inputAddr(0), static_cast<void*>(bufferA_));
}

TEST_F(TensorAddr, OutOfRangeOrAbsentIndexIs161002AndChangesNothing) {
  aclTensor* replacement = makeVector(4, bufferY_);
  EXPECT_EQ(aclSetInputTensorAddr(handle_, 3, replacement, fresh_), ACLNN_ERR_PARAM_INVALID);
  std::string message = takeErrors();
  EXPECT_NE(message.find("aclSetInputTensorAddr"), std::string::npos) << message;
  EXPECT_NE(message.find("index"), std::string::npos) << message;
  EXPECT_NE(message.find("below 3"), std::string::npos) << message;
  EXPECT_EQ(replacement->data, static_cast<void*>(bufferY_));

  EXPECT_EQ(aclSetInputTensorAddr(handle_, 2, replacement, fresh_), ACLNN_ERR_PARAM_INVALID);
  message = takeErrors();
  EXPECT_NE(message.find("null"), std::string::npos) << message;
  EXPECT_EQ(replacement->data, static_cast<void*>(bufferY_));
  EXPECT_FALSE(executorOf(handle_)->inputs[2].present);
  EXPECT_EQ(inputAddr(2), nullptr);
  aclDestroyTensor(replacement);
}

TEST_F(TensorAddr, NullArgumentsAre561103) {
  EXPECT_EQ(aclSetInputTensorAddr(nullptr, 0, a_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetInputTensorAddr(handle_, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetOutputTensorAddr(nullptr, 0, y_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetOutputTensorAddr(handle_, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetTensorAddr(nullptr, 0, a_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetTensorAddr(handle_, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclSetOutputTensorAddr: argument tensor"), std::string::npos) << message;
  EXPECT_NE(message.find("aclSetTensorAddr: argument executor"), std::string::npos) << message;
  EXPECT_EQ(a_->data, static_cast<void*>(bufferA_));
}

TEST_F(TensorAddr, StaleExecutorIsRejectedWithoutTouchingTheTensor) {
  auto log = std::make_shared<RunLog>();
  auto executor = std::make_unique<RecordingExecutor>(log);
  executor->inputs = {bind(a_)};
  aclOpExecutor* stale = aclcpu::registerExecutor(std::move(executor));
  ASSERT_EQ(aclDestroyAclOpExecutor(stale), ACLNN_SUCCESS);
  EXPECT_EQ(aclSetInputTensorAddr(stale, 0, a_, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(takeErrors().find("live executor"), std::string::npos);
  EXPECT_EQ(a_->data, static_cast<void*>(bufferA_));
}

TEST_F(TensorAddr, SetTensorAddrIndexesInputsThenOutputs) {
  aclTensor* replacement = makeVector(4, nullptr);
  EXPECT_EQ(aclSetTensorAddr(handle_, 3, replacement, fresh_), ACLNN_SUCCESS);  // output 0
  EXPECT_EQ(outputAddr(0), static_cast<void*>(fresh_));
  EXPECT_EQ(aclSetTensorAddr(handle_, 0, replacement, bufferB_), ACLNN_SUCCESS);  // input 0
  EXPECT_EQ(inputAddr(0), static_cast<void*>(bufferB_));
  EXPECT_EQ(aclSetTensorAddr(handle_, 4, replacement, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(takeErrors().find("below 4"), std::string::npos);
  // By handle, on either side.
  EXPECT_EQ(aclSetTensorAddr(handle_, 99, y_, bufferA_), ACLNN_SUCCESS);
  EXPECT_EQ(outputAddr(0), static_cast<void*>(bufferA_));
  aclDestroyTensor(replacement);
}

TEST_F(TensorAddr, ATensorBoundTwiceIsReboundEverywhere) {
  auto log = std::make_shared<RunLog>();
  auto executor = std::make_unique<RecordingExecutor>(log);
  executor->inputs = {bind(a_), bind(b_), bind(a_)};
  executor->outputs = {bind(a_)};  // in place
  aclOpExecutor* handle = aclcpu::registerExecutor(std::move(executor));
  EXPECT_EQ(aclSetTensorAddr(handle, 1, a_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle)->inputs[0].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(executorOf(handle)->inputs[1].tensor.data, static_cast<void*>(bufferB_));
  EXPECT_EQ(executorOf(handle)->inputs[2].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(executorOf(handle)->outputs[0].tensor.data, static_cast<void*>(fresh_));
  // The input-only variant leaves the output binding alone.
  EXPECT_EQ(aclSetInputTensorAddr(handle, 0, a_, bufferY_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle)->inputs[2].tensor.data, static_cast<void*>(bufferY_));
  EXPECT_EQ(executorOf(handle)->outputs[0].tensor.data, static_cast<void*>(fresh_));
  aclDestroyAclOpExecutor(handle);
}

TEST_F(TensorAddr, CapitalAAliasesForward) {
  aclTensor* replacement = makeVector(4, nullptr);
  EXPECT_EQ(AclSetInputTensorAddr(handle_, 0, a_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(inputAddr(0), static_cast<void*>(fresh_));
  EXPECT_EQ(AclSetOutputTensorAddr(handle_, 0, y_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(outputAddr(0), static_cast<void*>(fresh_));
  EXPECT_EQ(AclSetTensorAddr(handle_, 1, replacement, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(inputAddr(1), static_cast<void*>(fresh_));
  EXPECT_EQ(AclSetInputTensorAddr(nullptr, 0, a_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(AclSetOutputTensorAddr(handle_, 5, replacement, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(AclSetTensorAddr(handle_, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  aclDestroyTensor(replacement);
}

// A list whose second element is bound as input 1 of an executor.
class DynamicTensorAddr : public ::testing::Test {
 protected:
  void SetUp() override {
    const aclTensor* elements[] = {makeVector(2, buffers_[0]), makeVector(2, buffers_[1])};
    list_ = aclCreateTensorList(elements, 2);
    x0_ = list_->tensors[0];
    x1_ = list_->tensors[1];
    auto executor = std::make_unique<RecordingExecutor>(log_);
    executor->inputs = {bind(x0_), bind(x1_)};
    executor->outputs = {bind(x1_)};
    handle_ = aclcpu::registerExecutor(std::move(executor));
  }
  void TearDown() override {
    aclDestroyAclOpExecutor(handle_);
    aclDestroyTensorList(list_);
    takeErrors();
  }

  float buffers_[2][2] = {};
  float fresh_[2] = {};
  aclTensorList* list_ = nullptr;
  aclTensor* x0_ = nullptr;
  aclTensor* x1_ = nullptr;
  std::shared_ptr<RunLog> log_ = std::make_shared<RunLog>();
  aclOpExecutor* handle_ = nullptr;
};

TEST_F(DynamicTensorAddr, RebindsTheListElementOnTheRequestedSide) {
  EXPECT_EQ(aclSetDynamicInputTensorAddr(handle_, 0, 1, list_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->inputs[1].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(executorOf(handle_)->inputs[0].tensor.data, static_cast<void*>(buffers_[0]));
  EXPECT_EQ(executorOf(handle_)->outputs[0].tensor.data, static_cast<void*>(buffers_[1]));
  EXPECT_EQ(x1_->data, static_cast<void*>(fresh_));

  EXPECT_EQ(aclSetDynamicOutputTensorAddr(handle_, 0, 1, list_, buffers_[0]), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->outputs[0].tensor.data, static_cast<void*>(buffers_[0]));
  EXPECT_EQ(executorOf(handle_)->inputs[1].tensor.data, static_cast<void*>(fresh_));

  EXPECT_EQ(aclSetDynamicTensorAddr(handle_, 0, 1, list_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->outputs[0].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(aclSetDynamicTensorAddr(handle_, 0, 0, list_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->inputs[0].tensor.data, static_cast<void*>(fresh_));
}

TEST_F(DynamicTensorAddr, RelativeIndexBeyondTheListIs161002) {
  EXPECT_EQ(aclSetDynamicInputTensorAddr(handle_, 0, 2, list_, fresh_), ACLNN_ERR_PARAM_INVALID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclSetDynamicInputTensorAddr: argument relativeIndex"), std::string::npos)
      << message;
  EXPECT_EQ(aclSetDynamicOutputTensorAddr(handle_, 0, 7, list_, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(aclSetDynamicTensorAddr(handle_, 0, 2, list_, fresh_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(x0_->data, static_cast<void*>(buffers_[0]));
  EXPECT_EQ(x1_->data, static_cast<void*>(buffers_[1]));
}

TEST_F(DynamicTensorAddr, NullsAndUnboundElementsAreRejected) {
  EXPECT_EQ(aclSetDynamicInputTensorAddr(nullptr, 0, 0, list_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetDynamicInputTensorAddr(handle_, 0, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetDynamicOutputTensorAddr(nullptr, 0, 0, list_, fresh_), ACLNN_ERR_INNER_NULLPTR);
  EXPECT_EQ(aclSetDynamicTensorAddr(handle_, 0, 0, nullptr, fresh_), ACLNN_ERR_INNER_NULLPTR);
  // x0 is an input but not an output of this executor.
  EXPECT_EQ(aclSetDynamicOutputTensorAddr(handle_, 0, 0, list_, fresh_), ACLNN_ERR_PARAM_INVALID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("does not use"), std::string::npos) << message;
  EXPECT_EQ(x0_->data, static_cast<void*>(buffers_[0]));
}

TEST_F(DynamicTensorAddr, CapitalAAliasesForward) {
  EXPECT_EQ(AclSetDynamicInputTensorAddr(handle_, 0, 0, list_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->inputs[0].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(AclSetDynamicOutputTensorAddr(handle_, 0, 1, list_, fresh_), ACLNN_SUCCESS);
  EXPECT_EQ(executorOf(handle_)->outputs[0].tensor.data, static_cast<void*>(fresh_));
  EXPECT_EQ(AclSetDynamicTensorAddr(handle_, 0, 5, list_, fresh_), ACLNN_ERR_PARAM_INVALID);
}

}  // namespace
