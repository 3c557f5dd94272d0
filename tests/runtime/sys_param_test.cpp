// aclrtCtx{Set,Get}SysParamOpt (context scope) and aclrt{Set,Get}SysParamOpt
// (process scope).

#include <string>
#include <thread>

#include "runtime/sys_params.h"
#include "runtime_test_support.h"

namespace aclcpu_test {
namespace {

using SysParamTest = RuntimeTest;

TEST_F(SysParamTest, NeverSetIsAnError) {
  int64_t value = 42;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(value, 42);
  std::string message = takeErrors();
  EXPECT_NE(message.find("aclrtCtxGetSysParamOpt"), std::string::npos) << message;
  EXPECT_NE(message.find("never set"), std::string::npos) << message;
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021);
  int64_t effective = 0;
  EXPECT_FALSE(aclcpu::effectiveSysParamOpt(ACL_OPT_DETERMINISTIC, &effective));
}

TEST_F(SysParamTest, ContextScopeLastValueWins) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
  int64_t value = -1;
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 0);
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 1);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
      << "context scope does not set the process value";
}

TEST_F(SysParamTest, EachContextHasItsOwnOptions) {
  aclrtContext a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateContext(&a, 0), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateContext(&b, 0), ACL_SUCCESS);
  int64_t value = -1;
  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value),
            ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
  ASSERT_EQ(aclrtSetCurrentContext(a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 3);
}

TEST_F(SysParamTest, ProcessScope) {
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2), ACL_SUCCESS);
  int64_t value = -1;
  ASSERT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_SUCCESS);
  EXPECT_EQ(value, 2);
  int64_t seenInThread = -1;
  std::thread other([&] { aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &seenInThread); });
  other.join();
  EXPECT_EQ(seenInThread, 2) << "process scope is visible from every thread";
}

TEST_F(SysParamTest, EffectiveValueIsTheNewestOfBothScopes) {
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  int64_t value = -1;
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
  ASSERT_TRUE(aclcpu::effectiveSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
  EXPECT_EQ(value, 1);
  ASSERT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
  ASSERT_TRUE(aclcpu::effectiveSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
  EXPECT_EQ(value, 0);
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3), ACL_SUCCESS);
  ASSERT_TRUE(aclcpu::effectiveSysParamOpt(ACL_OPT_DETERMINISTIC, &value));
  EXPECT_EQ(value, 3);
  EXPECT_FALSE(aclcpu::effectiveSysParamOpt(99, &value));
}

TEST_F(SysParamTest, BadOptionsAndValuesAreRejected) {
  const aclSysParamOpt unknown = static_cast<aclSysParamOpt>(99);
  const aclSysParamOpt negative = static_cast<aclSysParamOpt>(-1);
  int64_t value = 0;
  EXPECT_EQ(aclrtCtxSetSysParamOpt(unknown, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("99"), std::string::npos);
  EXPECT_EQ(aclrtSetSysParamOpt(negative, 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtCtxGetSysParamOpt(unknown, &value), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetSysParamOpt(negative, &value), ACL_ERROR_INVALID_PARAM);

  EXPECT_EQ(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_INVALID_PARAM);
  std::string message = takeErrors();
  EXPECT_NE(message.find("ACL_OPT_DETERMINISTIC"), std::string::npos) << message;
  EXPECT_NE(message.find("[0, 3]"), std::string::npos) << message;
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
      << "a rejected set stores nothing";

  EXPECT_EQ(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(takeErrors().find("argument value is null"), std::string::npos);
}

}  // namespace
}  // namespace aclcpu_test
