// Phase 2 of the forward operators (decision 3, as the backward spec's
// decision 10): null executor 161001; a workspace smaller than asked, or null
// with a non-zero size, 161002; a one-shot executor run twice 161002; and
// phase 1 copies what phase 2 needs.

#include <gtest/gtest.h>

#include "conformance/acl_session.h"
#include "conformance_forward/forward_call.h"

namespace conformance {
namespace {

const ForwardCall kBaselines[] = {conv2d(), conv2dTransposed(), depthwise(), tbc()};

TEST(ForwardPhase2, NullExecutorIs161001) {
  for (const ForwardCall& call : kBaselines) {
    ForwardInvocation invocation(call);
    clearErrorMessages();
    EXPECT_EQ(invocation.launch(nullptr, 0, nullptr), kNull);
    expectErrorMessageRecorded();
  }
}

TEST(ForwardPhase2, WorkspaceTooSmallOrNullIs161002) {
  for (const ForwardCall& call : kBaselines) {
    ForwardInvocation invocation(call);
    ASSERT_EQ(invocation.getWorkspaceSize(), kOk);
    const uint64_t size = invocation.workspaceSize();
    if (size == 0) continue;
    DeviceBuffer workspace(size);
    clearErrorMessages();
    EXPECT_EQ(invocation.launch(workspace.get(), size - 1, invocation.executor()), kInvalid);
    expectErrorMessageRecorded();
    EXPECT_EQ(invocation.launch(nullptr, size, invocation.executor()), kInvalid);
    expectErrorMessageRecorded();
    invocation.checkOutputUntouched();
    // The executor is still launchable after a rejected launch.
    ASSERT_EQ(invocation.launch(workspace.get(), size, invocation.executor()), kOk);
    ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
    invocation.checkOutput();
  }
}

TEST(ForwardPhase2, OneShotExecutorRunTwiceIs161002) {
  for (const ForwardCall& call : kBaselines) {
    ForwardInvocation invocation(call);
    ASSERT_EQ(invocation.getWorkspaceSize(), kOk);
    DeviceBuffer workspace(invocation.workspaceSize());
    ASSERT_EQ(invocation.launch(workspace.get(), invocation.workspaceSize(), invocation.executor()),
              kOk);
    ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
    clearErrorMessages();
    EXPECT_EQ(invocation.launch(workspace.get(), invocation.workspaceSize(), invocation.executor()),
              kInvalid);
    expectErrorMessageRecorded();
  }
}

}  // namespace
}  // namespace conformance
