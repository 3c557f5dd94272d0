// Phase 2 of aclnnConvolutionBackward: project decision 10 (null executor,
// workspace contract, one-shot and destroyed executors), plus the executor
// and stream behaviour of acl-api.md that phase 2 depends on.

#include <gtest/gtest.h>

#include "acl_session.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "conv_case_table.h"

namespace conformance {
namespace {

constexpr aclnnStatus kAccepted = ACLNN_SUCCESS;

// Calls that are likely to need a workspace; the first that does is used.
std::vector<ConvCall> workspaceCandidates() {
  return {conv2d(), conv3d(), conv2dTransposed(), with(conv2d(), [](ConvCall& c) {
            c.input.shape = {4, 16, 12, 12};
            c.weight.shape = {16, 8, 3, 3};
            c.gradOutput.shape = {4, 16, 6, 10};
            deriveOutputs(c);
          })};
}

// Runs a rejected executor's cleanup: a correct phase 2 whose status the spec
// leaves open (the executor may or may not survive a rejected launch).
void retryCorrectly(ConvInvocation& invocation) {
  DeviceBuffer workspace(invocation.workspaceSize());
  const aclnnStatus status = aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                                      invocation.executor(), testStream());
  EXPECT_TRUE(status == ACLNN_SUCCESS || status == ACLNN_ERR_PARAM_INVALID) << status;
  clearErrorMessages();
  EXPECT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
}

TEST(ConvBackwardPhase2, NullExecutorIs161001) {
  clearErrorMessages();
  EXPECT_EQ(aclnnConvolutionBackward(nullptr, 0, nullptr, testStream()), ACLNN_ERR_PARAM_NULLPTR);
  expectErrorMessageRecorded();
}

TEST(ConvBackwardPhase2, OneShotExecutorRunTwiceIs161002) {
  ConvInvocation invocation(conv2d());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), testStream()),
            kAccepted);
  // Rejected even while the first run may still be queued.
  clearErrorMessages();
  EXPECT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), testStream()),
            ACLNN_ERR_PARAM_INVALID);
  expectErrorMessageRecorded();
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutputs();
}

TEST(ConvBackwardPhase2, RepeatableExecutorRunsUntilDestroyed) {
  ConvInvocation invocation(conv3dTransposed());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(invocation.executor()), ACLNN_SUCCESS);
  DeviceBuffer workspace(invocation.workspaceSize());
  std::vector<uint8_t> firstRun[3];
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                       invocation.executor(), testStream()),
              kAccepted);
    ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
    invocation.checkOutputs();
    for (int i = 0; i < 3; ++i) {
      if (run == 0)
        firstRun[i] = invocation.outputBytes(i);
      else
        EXPECT_EQ(invocation.outputBytes(i), firstRun[i]) << "output " << i << " changed";
    }
  }
  ASSERT_EQ(aclDestroyAclOpExecutor(invocation.executor()), ACLNN_SUCCESS);
  clearErrorMessages();
  EXPECT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), testStream()),
            ACLNN_ERR_PARAM_INVALID);
  expectErrorMessageRecorded();
}

TEST(ConvBackwardPhase2, NullWorkspaceWithNonZeroSizeIs161002) {
  ConvInvocation invocation(conv2d());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  clearErrorMessages();
  EXPECT_EQ(aclnnConvolutionBackward(nullptr, invocation.workspaceSize() + 64,
                                     invocation.executor(), testStream()),
            ACLNN_ERR_PARAM_INVALID);
  expectErrorMessageRecorded();
  invocation.checkOutputsUntouched();
  retryCorrectly(invocation);
}

TEST(ConvBackwardPhase2, WorkspaceSmallerThanRequestedIs161002) {
  for (const ConvCall& call : workspaceCandidates()) {
    ConvInvocation invocation(call);
    ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
    if (invocation.workspaceSize() == 0) {
      retryCorrectly(invocation);
      continue;
    }
    DeviceBuffer workspace(invocation.workspaceSize());
    clearErrorMessages();
    EXPECT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize() - 1,
                                       invocation.executor(), testStream()),
              ACLNN_ERR_PARAM_INVALID);
    expectErrorMessageRecorded();
    invocation.checkOutputsUntouched();
    retryCorrectly(invocation);
    return;
  }
  GTEST_SKIP() << "no candidate call asked for a workspace; the rule cannot be exercised";
}

TEST(ConvBackwardPhase2, LargerWorkspaceThanRequestedIsFine) {
  ConvInvocation invocation(conv2d());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  const uint64_t size = invocation.workspaceSize() + 256;
  DeviceBuffer workspace(size);
  ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), size, invocation.executor(), testStream()),
            kAccepted);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutputs();
}

// acl-api decision 7: phase 1 copies everything phase 2 needs.
TEST(ConvBackwardPhase2, DescriptorsMayBeDestroyedAfterPhase1) {
  ConvInvocation invocation(conv2dTransposed());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  invocation.destroyDescriptors();
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), testStream()),
            kAccepted);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  invocation.checkOutputs();
}

TEST(ConvBackwardPhase2, NullStreamIsTheDefaultStream) {
  ConvInvocation invocation(conv1d());
  ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                     invocation.executor(), nullptr),
            kAccepted);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  invocation.checkOutputs();
}

// Decision 6: ACL_OPT_DETERMINISTIC never causes an error (3D, groups > 1, dW
// is where upstream non-A2 chips reject it) and results are bit-identical.
TEST(ConvBackwardPhase2, DeterministicOptionAcceptedAndResultsRepeat) {
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  std::vector<uint8_t> firstRun[3];
  for (int run = 0; run < 2; ++run) {
    ConvInvocation invocation(with(conv3d(), [](ConvCall& c) { c.data = DataPattern::Fine; }));
    ASSERT_EQ(invocation.getWorkspaceSize(), kAccepted);
    DeviceBuffer workspace(invocation.workspaceSize());
    ASSERT_EQ(aclnnConvolutionBackward(workspace.get(), invocation.workspaceSize(),
                                       invocation.executor(), testStream()),
              kAccepted);
    ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
    invocation.checkOutputs();
    for (int i = 0; i < 3; ++i) {
      if (run == 0)
        firstRun[i] = invocation.outputBytes(i);
      else
        EXPECT_EQ(invocation.outputBytes(i), firstRun[i]) << "output " << i << " differs";
    }
  }
  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
}

}  // namespace
}  // namespace conformance
