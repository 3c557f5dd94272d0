// Phase-2 address checks, executor handles and the runtime after
// aclFinalize (docs/input-validation.md). Regression cases of issue #7
// findings 3, 4 and 7: each was accepted before (status 0), and the run
// then crashed, wrote freed memory or ran another executor.

#include <cstring>
#include <set>
#include <vector>

#include "api_suite.h"
#include "small_conv.h"

namespace robustness {
namespace {

constexpr aclnnStatus kNull = 161001;
constexpr aclnnStatus kInvalid = 161002;
constexpr aclnnStatus kRuntime = 361001;

using LaunchAddresses = ApiSuite;
using ExecutorHandles = ApiSuite;

TEST_F(LaunchAddresses, NullDataInEveryTensorIsRejectedAtLaunch) {
  // Finding 3: phase 1 does not look at data (upstream's statuses), but the
  // launch must not enqueue a run that would dereference null.
  SmallConv call;
  for (TensorSpec& s : call.spec) s.nullData = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  EXPECT_EQ(call.launch(), kNull);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "gradOutput (input 0)")) << message;
  EXPECT_TRUE(mentions(message, "nullptr")) << message;
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS) << "nothing was enqueued";
}

TEST_F(LaunchAddresses, EachNullTensorIsNamed) {
  const char* names[] = {"gradOutput", "input", "weight", "gradInput", "gradWeight", "gradBias"};
  for (int s = 0; s < kSlots; ++s) {
    SmallConv call;
    call.spec[s].nullData = true;
    ASSERT_EQ(call.plan(), 0) << takeErrors();
    EXPECT_EQ(call.launch(), kNull) << names[s];
    EXPECT_TRUE(mentions(takeErrors(), names[s])) << names[s];
  }
}

TEST_F(LaunchAddresses, NullTensorsTheRunNeverTouchesAreAllowed) {
  // Mask (false, true, false): gradWeight reads input and gradOutput only.
  SmallConv call;
  call.mask[0] = call.mask[2] = false;
  call.spec[kWeight].nullData = true;
  call.spec[kGradInput].nullData = true;
  call.spec[kGradBias].nullData = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  EXPECT_EQ(call.launch(), 0) << takeErrors();
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS) << takeErrors();
}

TEST_F(LaunchAddresses, RebindingToNullIsRejectedAtTheNextLaunch) {
  SmallConv call;
  call.repeatable = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  ASSERT_EQ(call.launch(), 0) << takeErrors();
  ASSERT_EQ(call.synchronize(), ACL_SUCCESS);
  // Finding 3: returned 0, and the next launch crashed the stream worker.
  ASSERT_EQ(aclSetInputTensorAddr(call.executor(), 0, call.tensor(kGradOutput), nullptr), 0);
  EXPECT_EQ(call.launch(), kNull);
  EXPECT_TRUE(mentions(takeErrors(), "gradOutput")) << "names the tensor";
  // Bound again, it runs again.
  ASSERT_EQ(
      aclSetInputTensorAddr(call.executor(), 0, call.tensor(kGradOutput), call.buffer(kGradOutput)),
      0);
  EXPECT_EQ(call.launch(), 0) << takeErrors();
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS);
}

TEST_F(LaunchAddresses, RangeLeavingItsAclrtMallocBlockIsRejected) {
  SmallConv call;
  call.repeatable = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  // gradInput's 128-byte block, rebound 64 bytes in: its last 64 bytes leave it.
  char* block = static_cast<char*>(call.buffer(kGradInput));
  ASSERT_EQ(aclSetOutputTensorAddr(call.executor(), 0, call.tensor(kGradInput), block + 64), 0);
  EXPECT_EQ(call.launch(), kInvalid);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "gradInput")) << message;
  EXPECT_TRUE(mentions(message, "aclrtMalloc block of 128 bytes")) << message;
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS);
  const std::vector<float> untouched = call.values(kGradInput);
  for (size_t i = 0; i < untouched.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &untouched[i], 4);
    EXPECT_EQ(bits, 0xa5a5a5a5u) << i;
  }
}

TEST_F(LaunchAddresses, FreedBlocksAreRejectedForTensorsAndWorkspace) {
  SmallConv call;
  call.repeatable = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  void* freed = nullptr;
  ASSERT_EQ(aclrtMalloc(&freed, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(freed), ACL_SUCCESS);
  ASSERT_EQ(aclSetInputTensorAddr(call.executor(), 1, call.tensor(kInput), freed), 0);
  EXPECT_EQ(call.launch(), kInvalid);
  std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "input (input 1)")) << message;
  EXPECT_TRUE(mentions(message, "was freed")) << message;
  ASSERT_EQ(aclSetInputTensorAddr(call.executor(), 1, call.tensor(kInput), call.buffer(kInput)), 0);
  if (call.workspaceSize() != 0) {
    EXPECT_EQ(aclnnConvolutionBackward(freed, call.workspaceSize(), call.executor(), nullptr),
              kInvalid);
    message = takeErrors();
    EXPECT_TRUE(mentions(message, "workspace")) << message;
  }
  EXPECT_EQ(call.launch(), 0) << takeErrors();
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS);
}

TEST_F(LaunchAddresses, OutputsReboundOntoEachOtherAreRejected) {
  SmallConv call;
  call.repeatable = true;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  ASSERT_EQ(
      aclSetOutputTensorAddr(call.executor(), 2, call.tensor(kGradBias), call.buffer(kGradWeight)),
      0);
  EXPECT_EQ(call.launch(), kInvalid);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "gradWeight (output 1) and gradBias (output 2)")) << message;
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS);
}

TEST_F(ExecutorHandles, AStaleHandleNeverNamesANewerExecutor) {
  // Finding 4: B got A's address in 196 of 200 trials, and launching A ran B.
  std::set<aclOpExecutor*> seen;
  for (int trial = 0; trial < 200; ++trial) {
    SmallConv a;
    ASSERT_EQ(a.plan(), 0) << takeErrors();
    aclOpExecutor* stale = a.executor();
    ASSERT_EQ(aclDestroyAclOpExecutor(stale), 0);
    a.releaseExecutor();
    EXPECT_TRUE(seen.insert(stale).second) << "handle issued twice";

    SmallConv b;
    ASSERT_EQ(b.plan(), 0) << takeErrors();
    EXPECT_NE(b.executor(), stale) << trial;
    EXPECT_TRUE(seen.insert(b.executor()).second) << "handle issued twice";
    EXPECT_EQ(aclnnConvolutionBackward(nullptr, 0, stale, nullptr), kInvalid) << trial;
    takeErrors();
    EXPECT_EQ(b.launch(), 0) << "B is still live and runs: " << takeErrors();
    EXPECT_EQ(b.synchronize(), ACL_SUCCESS);
  }
}

TEST_F(ExecutorHandles, AnotherOperatorsExecutorIsRejected) {
  // Finding 7: aclnnConvTbcBackward ran a ConvolutionBackward executor.
  SmallConv call;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  std::vector<unsigned char> workspace(call.workspaceSize() + 1);
  EXPECT_EQ(aclnnConvTbcBackward(workspace.data(), call.workspaceSize(), call.executor(), nullptr),
            kInvalid);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "aclnnConvTbcBackward")) << message;
  EXPECT_TRUE(mentions(message, "planned for aclnnConvolutionBackward")) << message;
  EXPECT_EQ(call.launch(), 0) << "still live for its own operator: " << takeErrors();
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS);
}

TEST(RuntimeAfterFinalize, LaunchOnTheDefaultStreamFailsAndComputesNothing) {
  // Finding 7: after aclFinalize a launch on the default stream still ran.
  const aclError init = aclInit(nullptr);
  ASSERT_TRUE(init == ACL_SUCCESS || init == ACL_ERROR_REPEAT_INITIALIZE) << init;
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  SmallConv call;
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(call.launch(), kRuntime);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "aclFinalize")) << message;
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_ERROR_UNINITIALIZE);
  takeErrors();
  const std::vector<float> gradWeight = call.values(kGradWeight);
  for (float v : gradWeight) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    EXPECT_EQ(bits, 0xa5a5a5a5u) << "nothing computed";
  }
  // After aclInit the same (unconsumed) executor runs.
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(call.launch(), 0) << takeErrors();
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  aclFinalize();
}

}  // namespace
}  // namespace robustness
