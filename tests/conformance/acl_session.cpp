#include "acl_session.h"

#include <gtest/gtest.h>

namespace conformance {
namespace {

aclrtStream g_stream = nullptr;

class AclEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&g_stream), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtDestroyStream(g_stream), ACL_SUCCESS);
    g_stream = nullptr;
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};

// gtest owns the environment object.
[[maybe_unused]] ::testing::Environment* const g_environment =
    ::testing::AddGlobalTestEnvironment(new AclEnvironment);

}  // namespace

aclrtStream testStream() { return g_stream; }

void clearErrorMessages() {
  // Newest-first log, cleared on read: one read empties it.
  aclGetRecentErrMsg();
}

std::string expectErrorMessageRecorded() {
  const char* message = aclGetRecentErrMsg();
  EXPECT_NE(message, nullptr) << "a failing call must record a message";
  std::string text = message ? message : "";
  EXPECT_FALSE(text.empty()) << "a failing call must record a non-empty message";
  const char* again = aclGetRecentErrMsg();
  EXPECT_EQ(again, nullptr) << "aclGetRecentErrMsg must clear the log, got: "
                            << (again ? again : "");
  return text;
}

}  // namespace conformance
