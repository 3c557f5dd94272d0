// A program that spells the macro differently from CANN (or guards it with
// #ifndef) must not clash with anything in the public chain: only
// opdev/op_errno.h defines ACLNN_*, and this file never includes it.
#define ACLNN_SUCCESS (0x0)

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"

#ifndef ACLNN_ERR_PARAM_INVALID
#define ACLNN_ERR_PARAM_INVALID 161002
#endif

#include <gtest/gtest.h>

#include <type_traits>

namespace {

TEST(UserDefinedStatusMacros, DifferentBodyDoesNotClashWithPublicChain) {
  EXPECT_EQ(ACLNN_SUCCESS, OK);
  EXPECT_EQ(ACLNN_ERR_PARAM_INVALID, 161002);
}

TEST(PublicEnums, QualifiedEnumeratorsWorkAtRuntime) {
  // The official samples pass qualified enumerators straight into the API.
  const aclDataType dtype = aclDataType::ACL_FLOAT;
  const aclFormat format = aclFormat::ACL_FORMAT_NCHW;
  const aclSysParamOpt opt = aclSysParamOpt::ACL_OPT_DETERMINISTIC;
  EXPECT_EQ(static_cast<int>(dtype), 0);
  EXPECT_EQ(static_cast<int>(format), 0);
  EXPECT_EQ(static_cast<int>(opt), 0);
  // -1 enumerators must survive a round trip through the enum type.
  EXPECT_EQ(static_cast<int>(static_cast<aclDataType>(-1)), ACL_DT_UNDEFINED);
  EXPECT_EQ(static_cast<int>(static_cast<aclFormat>(-1)), ACL_FORMAT_UNDEFINED);
  EXPECT_TRUE(std::is_signed<std::underlying_type<aclDataType>::type>::value);
  EXPECT_TRUE(std::is_signed<std::underlying_type<aclFormat>::type>::value);
}

}  // namespace
