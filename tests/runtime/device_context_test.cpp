// One device (id 0, the host CPU), reference-counted; contexts per thread.

#include <string>
#include <thread>

#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using DeviceTest = RuntimeTest;
using ContextTest = RuntimeTest;

TEST_F(DeviceTest, ExactlyOneDevice) {
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("count"), std::string::npos);
}

TEST_F(DeviceTest, OtherDeviceIdsAreRejected) {
  for (int32_t id : {1, -1, 8, 2147483647}) {
    EXPECT_EQ(aclrtSetDevice(id), ACL_ERROR_RT_INVALID_DEVICEID) << id;
    EXPECT_EQ(aclrtResetDevice(id), ACL_ERROR_RT_INVALID_DEVICEID) << id;
    aclrtContext context = nullptr;
    EXPECT_EQ(aclrtCreateContext(&context, id), ACL_ERROR_RT_INVALID_DEVICEID) << id;
    EXPECT_EQ(context, nullptr);
    EXPECT_NE(takeErrors().find(std::to_string(id)), std::string::npos);
  }
  EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
}

TEST_F(DeviceTest, GetDeviceNeedsACurrentContext) {
  int32_t device = -5;
  EXPECT_EQ(aclrtGetDevice(&device), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(device, -5);
  EXPECT_NE(takeErrors().find("aclrtGetDevice"), std::string::npos);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST_F(DeviceTest, SetDeviceIsReferenceCounted) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext first = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&first), ACL_SUCCESS);
  ASSERT_NE(first, nullptr);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext second = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&second), ACL_SUCCESS);
  EXPECT_EQ(first, second) << "one default context per device";

  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  aclrtContext afterOneReset = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&afterOneReset), ACL_SUCCESS) << "one reference remains";
  EXPECT_EQ(afterOneReset, first);

  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  aclrtContext gone = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&gone), ACL_ERROR_RT_CONTEXT_NULL);
  EXPECT_EQ(aclrtSetCurrentContext(first), ACL_ERROR_INVALID_RESOURCE_HANDLE)
      << "the default context died with the last reference";
  takeErrors();
  EXPECT_EQ(aclrtResetDevice(0), ACL_ERROR_INVALID_DEVICE);
  EXPECT_NE(takeErrors().find("reference count is 0"), std::string::npos);

  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext fresh = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&fresh), ACL_SUCCESS);
  EXPECT_NE(fresh, first) << "handles are never reused";
}

TEST_F(DeviceTest, LastResetReleasesTheDefaultContextsStreams) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  int value = 0;
  ASSERT_EQ(aclrtMemsetAsync(&value, sizeof(value), 0x11, sizeof(value), stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(value, 0x11111111) << "pending work runs before the stream is released";
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
}

TEST_F(DeviceTest, ThreadsThatSetTheDeviceShareItsDefaultContext) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext mine = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&mine), ACL_SUCCESS);
  aclrtContext theirs = nullptr;
  aclError before = ACL_SUCCESS;
  std::thread other([&] {
    aclrtContext none = nullptr;
    before = aclrtGetCurrentContext(&none);
    aclrtSetDevice(0);
    aclrtGetCurrentContext(&theirs);
    aclrtResetDevice(0);
  });
  other.join();
  EXPECT_EQ(before, ACL_ERROR_RT_CONTEXT_NULL) << "a new thread starts without a context";
  EXPECT_EQ(theirs, mine);
  aclrtContext still = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&still), ACL_SUCCESS) << "our reference keeps it alive";
  EXPECT_EQ(still, mine);
}

TEST_F(DeviceTest, SynchronizeDeviceWithoutStreamsSucceeds) {
  EXPECT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

TEST_F(ContextTest, CreatedContextBecomesCurrent) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  ASSERT_NE(context, nullptr);
  aclrtContext current = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
  EXPECT_EQ(current, context);
  int32_t device = -1;
  ASSERT_EQ(aclrtGetDevice(&device), ACL_SUCCESS);
  EXPECT_EQ(device, 0);
  ASSERT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_ERROR_RT_CONTEXT_NULL);
}

TEST_F(ContextTest, CurrentContextIsPerThread) {
  aclrtContext a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateContext(&a, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&b, 0), ACL_SUCCESS);
  EXPECT_NE(a, b);
  ASSERT_EQ(aclrtSetCurrentContext(a), ACL_SUCCESS);
  aclrtContext seenInThread = nullptr;
  std::thread other([&] {
    aclrtSetCurrentContext(b);
    aclrtGetCurrentContext(&seenInThread);
  });
  other.join();
  EXPECT_EQ(seenInThread, b);
  aclrtContext mine = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&mine), ACL_SUCCESS);
  EXPECT_EQ(mine, a) << "another thread's choice must not change ours";
  EXPECT_EQ(aclrtDestroyContext(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(b), ACL_SUCCESS);
}

TEST_F(ContextTest, BadHandlesAreRejected) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(context), ACL_ERROR_INVALID_RESOURCE_HANDLE) << "double destroy";
  EXPECT_NE(takeErrors().find("aclrtDestroyContext"), std::string::npos);
  EXPECT_EQ(aclrtSetCurrentContext(context), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  int notAContext = 0;
  EXPECT_EQ(aclrtSetCurrentContext(&notAContext), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyContext(&notAContext), ACL_ERROR_INVALID_RESOURCE_HANDLE);
  EXPECT_EQ(aclrtDestroyContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetCurrentContext(nullptr), ACL_ERROR_INVALID_PARAM);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("argument context is null"), std::string::npos) << message;
}

TEST_F(ContextTest, DefaultContextCannotBeDestroyedDirectly) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtContext defaultContext = nullptr;
  ASSERT_EQ(aclrtGetCurrentContext(&defaultContext), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyContext(defaultContext), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("aclrtResetDevice"), std::string::npos);
  aclrtContext current = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_SUCCESS);
}

TEST_F(ContextTest, DestroyingAContextReleasesItsStreams) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  int value = 0;
  ASSERT_EQ(aclrtMemsetAsync(&value, sizeof(value), 0x22, sizeof(value), stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyContext(context), ACL_SUCCESS);
  EXPECT_EQ(value, 0x22222222) << "pending work ran first";
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_RESOURCE_HANDLE);
}

TEST_F(ContextTest, ContextDestroyedByAnotherThreadIsNoLongerCurrent) {
  aclrtContext context = nullptr;
  ASSERT_EQ(aclrtCreateContext(&context, 0), ACL_SUCCESS);
  std::thread other([&] { aclrtDestroyContext(context); });
  other.join();
  aclrtContext current = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&current), ACL_ERROR_RT_CONTEXT_NULL);
}

}  // namespace
}  // namespace aclcpu_test
