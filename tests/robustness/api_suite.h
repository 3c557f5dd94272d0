#pragma once
// A suite that runs with the runtime initialized and device 0 set, and
// finalizes at its end (so suites of this binary may finalize in any order).

#include <gtest/gtest.h>

#include "acl/acl.h"

namespace robustness {

class ApiSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    aclInit(nullptr);  // ACL_ERROR_REPEAT_INITIALIZE is fine
    aclrtSetDevice(0);
  }
  static void TearDownTestSuite() {
    aclrtResetDevice(0);
    aclFinalize();
  }
  void TearDown() override { aclGetRecentErrMsg(); }
};

}  // namespace robustness
