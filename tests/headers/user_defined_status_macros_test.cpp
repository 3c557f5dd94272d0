// CANN programs often define the aclnn status macros themselves, because the
// public include chain does not provide them (spec acl-api.md 1.5). Such a
// program must compile warning-free against our headers, and including
// opdev/op_errno.h afterwards must be an identical (legal) redefinition.
#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_convolution_backward.h"

#include <gtest/gtest.h>

namespace {

TEST(UserDefinedStatusMacros, IdenticalDefinitionsCoexistWithOpErrno) {
  EXPECT_EQ(ACLNN_SUCCESS, OK);
  EXPECT_EQ(ACLNN_SUCCESS, ACL_SUCCESS);
  EXPECT_EQ(ACLNN_ERR_PARAM_NULLPTR, 161001);
  EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, 161002);
  EXPECT_EQ(ACLNN_ERR_INNER_NULLPTR, 561103);
}

}  // namespace
