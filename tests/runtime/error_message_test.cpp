// aclGetRecentErrMsg: per thread, newest first, cleared on read.

#include <string>
#include <thread>

#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using ErrorMessageTest = RuntimeTest;

TEST_F(ErrorMessageTest, NullWhenNothingFailed) {
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr);
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr) << "successful calls record nothing";
}

TEST_F(ErrorMessageTest, NamesFunctionArgumentExpectedAndGiven) {
  EXPECT_EQ(aclrtSetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclrtSetDevice"), std::string::npos) << message;
  EXPECT_NE(message.find("deviceId"), std::string::npos) << message;
  EXPECT_NE(message.find("7"), std::string::npos) << message;
  EXPECT_NE(message.find("expected 0"), std::string::npos) << message;
}

TEST_F(ErrorMessageTest, NewestFirstAndClearedOnRead) {
  EXPECT_EQ(aclrtSetDevice(3), ACL_ERROR_RT_INVALID_DEVICEID);
  EXPECT_EQ(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
  const char* raw = aclGetRecentErrMsg();
  ASSERT_NE(raw, nullptr);
  const std::string message(raw);
  const size_t newline = message.find('\n');
  ASSERT_NE(newline, std::string::npos) << message;
  EXPECT_EQ(message.rfind("aclrtMalloc:", 0), 0u) << message;
  EXPECT_EQ(message.compare(newline + 1, 15, "aclrtSetDevice:"), 0) << message;
  EXPECT_EQ(aclGetRecentErrMsg(), nullptr) << "reading clears the log";
}

TEST_F(ErrorMessageTest, EachThreadHasItsOwnLog) {
  EXPECT_EQ(aclrtSetDevice(2), ACL_ERROR_RT_INVALID_DEVICEID);
  std::string seenByOther = "unset";
  std::string otherOwn;
  std::thread other([&] {
    const char* before = aclGetRecentErrMsg();
    seenByOther = before == nullptr ? "" : before;
    aclrtFree(nullptr);
    otherOwn = takeErrors();
  });
  other.join();
  EXPECT_EQ(seenByOther, "") << "another thread's failure must not show up here";
  EXPECT_EQ(otherOwn.rfind("aclrtFree:", 0), 0u) << otherOwn;
  const std::string mine = takeErrors();
  EXPECT_EQ(mine.rfind("aclrtSetDevice:", 0), 0u) << mine;
  EXPECT_EQ(mine.find("aclrtFree"), std::string::npos) << mine;
}

}  // namespace
}  // namespace aclcpu_test
