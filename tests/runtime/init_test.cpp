// aclInit / aclFinalize / aclFinalizeReference, aclnnInit, and the identity
// queries.

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "aclnn/aclnn_base.h"
#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using InitTest = RuntimeTest;

TEST_F(InitTest, RepeatedInitReturnsRepeatInitialize) {
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, 100002);
  EXPECT_NE(takeErrors().find("aclInit"), std::string::npos);
}

TEST_F(InitTest, FinalizeWithoutInitIsAnError) {
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  const std::string message = takeErrors();
  EXPECT_EQ(message.rfind("aclFinalize:", 0), 0u) << message;
  uint64_t remaining = 7;
  EXPECT_EQ(aclFinalizeReference(&remaining), ACL_ERROR_REPEAT_FINALIZE);
  EXPECT_EQ(remaining, 7u);  // untouched on failure
}

TEST_F(InitTest, InitAgainAfterFinalizeSucceeds) {
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE);
}

TEST_F(InitTest, FinalizeReferenceCountsEveryInit) {
  // The fixture's aclInit is reference 1; two repeats make 3.
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  uint64_t remaining = 99;
  EXPECT_EQ(aclFinalizeReference(&remaining), ACL_SUCCESS);
  EXPECT_EQ(remaining, 2u);
  EXPECT_EQ(aclFinalizeReference(nullptr), ACL_SUCCESS);  // null refCount allowed
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE) << "still initialized";
  // Now 2 references again.
  EXPECT_EQ(aclFinalizeReference(&remaining), ACL_SUCCESS);
  EXPECT_EQ(remaining, 1u);
  EXPECT_EQ(aclFinalizeReference(&remaining), ACL_SUCCESS);
  EXPECT_EQ(remaining, 0u);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE) << "the last reference finalized";
}

TEST_F(InitTest, FinalizeResetsTheReferenceCount) {
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

TEST_F(InitTest, ConfigPathMustNameAnExistingFile) {
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclInit("/nonexistent/dir/acl.json"), ACL_ERROR_INVALID_FILE);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("configPath"), std::string::npos) << message;
  EXPECT_NE(message.find("/nonexistent/dir/acl.json"), std::string::npos) << message;
  EXPECT_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE) << "a failed aclInit must not initialize";

  char path[] = "/tmp/aclcpu_runtime_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "{}", 2), 2);
  close(fd);
  EXPECT_EQ(aclInit(path), ACL_SUCCESS);
  unlink(path);
}

TEST_F(InitTest, AclnnInitAndFinalizeAlwaysSucceed) {
  EXPECT_EQ(aclnnInit(nullptr), 0);
  EXPECT_EQ(aclnnInit("whatever.json"), 0);
  EXPECT_EQ(aclnnFinalize(), 0);
  EXPECT_EQ(aclnnFinalize(), 0);
}

TEST_F(InitTest, VersionIsTheLibraryVersion) {
  int32_t major = -1, minor = -1, patch = -1;
  ASSERT_EQ(aclrtGetVersion(&major, &minor, &patch), ACL_SUCCESS);
  EXPECT_EQ(major, 0);
  EXPECT_EQ(minor, 1);
  EXPECT_EQ(patch, 0);
  EXPECT_EQ(aclrtGetVersion(nullptr, &minor, &patch), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("majorVersion"), std::string::npos);
  EXPECT_EQ(aclrtGetVersion(&major, &minor, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("patchVersion"), std::string::npos);
}

TEST_F(InitTest, SocNameAndRunMode) {
  const char* soc = aclrtGetSocName();
  ASSERT_NE(soc, nullptr);
  EXPECT_STREQ(soc, "Ascend910B-CPU");
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);
  EXPECT_EQ(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("runMode"), std::string::npos);
}

TEST_F(InitTest, FinalizeReleasesDevicesContextsAndStreams) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  int64_t value = 0;
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);

  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtSetCurrentContext(context), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtResetDevice(0), ACL_ERROR_INVALID_DEVICE) << "device count reset to 0";
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  int32_t device = -1;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
}

}  // namespace
}  // namespace aclcpu_test

namespace aclcpu_test {
namespace {

// Issue #7 finding 7: after aclFinalize the runtime kept serving work.
TEST_F(InitTest, AfterFinalizeTheRuntimeRefusesWorkUntilInitAgain) {
  void* live = nullptr;
  ASSERT_EQ(aclrtMalloc(&live, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  takeErrors();
  void* block = nullptr;
  EXPECT_EQ(aclrtMalloc(&block, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
  const std::string message = takeErrors();
  EXPECT_EQ(message.rfind("aclrtMalloc:", 0), 0u) << message;
  EXPECT_NE(message.find("aclFinalize"), std::string::npos) << message;
  EXPECT_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
  aclrtStream stream = nullptr;
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_ERROR_UNINITIALIZE);
  aclrtContext context = nullptr;
  EXPECT_EQ(aclrtCreateContext(&context, 0), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtMemset(live, 64, 0, 64), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtMemsetAsync(live, 64, 0, 64, nullptr), ACL_ERROR_UNINITIALIZE);
  EXPECT_EQ(aclrtFree(live), ACL_SUCCESS) << "releasing memory stays possible";
  takeErrors();

  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&block, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemsetAsync(block, 64, 0, 64, stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(block), ACL_SUCCESS);
}

}  // namespace
}  // namespace aclcpu_test
