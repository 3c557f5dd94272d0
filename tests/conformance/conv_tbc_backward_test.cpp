// aclnnConvTbcBackward: every row of conv-tbc-backward.md sections 3 and 5,
// the empty path of section 4.1 with the project decision (gradBias is the
// true sum of self), the normal path against a float64 oracle, and phase 2.

#include <gtest/gtest.h>

#include "acl_session.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "tbc_case.h"

namespace conformance {
namespace {

using C = TbcCall&;
constexpr aclnnStatus kOk = ACLNN_SUCCESS;
constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

class ConvTbcBackward : public ::testing::TestWithParam<TbcCase> {};

TEST_P(ConvTbcBackward, Conforms) { runTbcCase(GetParam()); }

#define TBC_CASES(suite, table) \
  INSTANTIATE_TEST_SUITE_P(suite, ConvTbcBackward, ::testing::ValuesIn(table), TbcCaseName())

// Shapes T, B, C_in, C_out, K and pad, everything else derived.
TbcCall tbcShaped(int64_t T, int64_t B, int64_t Cin, int64_t Cout, int64_t K, int64_t pad) {
  TbcCall c;
  c.input = tensor({T, B, Cin});
  c.weight = tensor({K, Cin, Cout});
  c.bias = tensor({Cout});
  c.self = tensor({T + 2 * pad - K + 1, B, Cout});
  c.pad = pad;
  deriveOutputs(c);
  return c;
}

TbcCall allDtypes(TbcCall c, aclDataType inputs, aclDataType outputs) {
  c.self.dtype = c.input.dtype = c.weight.dtype = c.bias.dtype = inputs;
  c.gradInput.dtype = c.gradWeight.dtype = c.gradBias.dtype = outputs;
  return c;
}

const TbcCase kStep1[] = {
    {"self_null", with(tbc(), [](C c) { c.self = noTensor(); }), kNull, "self"},
    {"input_null", with(tbc(), [](C c) { c.input = noTensor(); }), kNull, "input"},
    {"weight_null", with(tbc(), [](C c) { c.weight = noTensor(); }), kNull, "weight"},
    {"bias_null", with(tbc(), [](C c) { c.bias = noTensor(); }), kNull, "bias"},
    {"gradInput_null", with(tbc(), [](C c) { c.gradInput = noTensor(); }), kNull, "gradInput"},
    {"gradWeight_null", with(tbc(), [](C c) { c.gradWeight = noTensor(); }), kNull, "gradWeight"},
    {"gradBias_null", with(tbc(), [](C c) { c.gradBias = noTensor(); }), kNull, "gradBias"},
    {"workspaceSize_null", with(tbc(), [](C c) { c.nullWorkspaceSize = true; }), kNull,
     "workspaceSize"},
    {"executor_null", with(tbc(), [](C c) { c.nullExecutor = true; }), kNull, "executor"},
    {"order_null_before_dtype",
     with(tbc(),
          [](C c) {
            c.gradBias = noTensor();
            c.self.dtype = ACL_DOUBLE;
          }),
     kNull, "gradBias"},
    {"order_null_before_empty_self",
     with(tbc(),
          [](C c) {
            c.bias = noTensor();
            c.self.shape[1] = 0;
          }),
     kNull, "bias"},
};
TBC_CASES(Step1Nulls, kStep1);

const TbcCase kStep2[] = {
    {"self_double", with(tbc(), [](C c) { c.self.dtype = ACL_DOUBLE; }), kInvalid, "self"},
    {"input_int32", with(tbc(), [](C c) { c.input.dtype = ACL_INT32; }), kInvalid, "input"},
    {"weight_complex64", with(tbc(), [](C c) { c.weight.dtype = ACL_COMPLEX64; }), kInvalid,
     "weight"},
    {"bias_complex128", with(tbc(), [](C c) { c.bias.dtype = ACL_COMPLEX128; }), kInvalid, "bias"},
    {"gradInput_undefined", with(tbc(), [](C c) { c.gradInput.dtype = ACL_DT_UNDEFINED; }),
     kInvalid, "gradInput"},
    {"gradWeight_hifloat8", with(tbc(), [](C c) { c.gradWeight.dtype = ACL_HIFLOAT8; }), kInvalid,
     "gradWeight"},
    {"gradBias_double", with(tbc(), [](C c) { c.gradBias.dtype = ACL_DOUBLE; }), kInvalid,
     "gradBias"},
    {"order_dtype_before_format",
     with(tbc(),
          [](C c) {
            c.self.format = ACL_FORMAT_NCHW;
            c.weight.dtype = ACL_INT32;
          }),
     kInvalid, "weight"},
    {"order_dtype_before_shape",
     with(tbc(),
          [](C c) {
            c.self.shape[0] = 9;
            c.bias.dtype = ACL_DOUBLE;
          }),
     kInvalid, "bias"},
    {"bias_fp16_accepted", with(tbc(), [](C c) { c.bias.dtype = ACL_FLOAT16; }), kOk, ""},
    {"bias_bf16_accepted", with(tbc(), [](C c) { c.bias.dtype = ACL_BF16; }), kOk, ""},
};
TBC_CASES(Step2Dtypes, kStep2);

const TbcCase kStep3[] = {
    {"self_nchw", with(tbc(), [](C c) { c.self.format = ACL_FORMAT_NCHW; }), kInvalid, "self"},
    {"input_nhwc", with(tbc(), [](C c) { c.input.format = ACL_FORMAT_NHWC; }), kInvalid, "input"},
    {"weight_ncdhw", with(tbc(), [](C c) { c.weight.format = ACL_FORMAT_NCDHW; }), kInvalid,
     "weight"},
    {"bias_ncl", with(tbc(), [](C c) { c.bias.format = ACL_FORMAT_NCL; }), kInvalid, "bias"},
    {"gradInput_nchw", with(tbc(), [](C c) { c.gradInput.format = ACL_FORMAT_NCHW; }), kInvalid,
     "gradInput"},
    {"gradWeight_nc1hwc0", with(tbc(), [](C c) { c.gradWeight.format = ACL_FORMAT_NC1HWC0; }),
     kInvalid, "gradWeight"},
    {"gradBias_ncl", with(tbc(), [](C c) { c.gradBias.format = ACL_FORMAT_NCL; }), kInvalid,
     "gradBias"},
    {"ncl_accepted_for_3d_tensors",
     with(tbc(),
          [](C c) {
            for (TensorDesc* t : {&c.self, &c.input, &c.weight, &c.gradInput, &c.gradWeight})
              t->format = ACL_FORMAT_NCL;
          }),
     kOk, ""},
    {"order_format_before_empty_self",
     with(tbc(),
          [](C c) {
            c.self.shape[1] = 0;
            c.weight.format = ACL_FORMAT_NHWC;
          }),
     kInvalid, "weight"},
};
TBC_CASES(Step3Formats, kStep3);

const TbcCase kStep4[] = {
    {"self_empty_time", with(tbc(), [](C c) { c.self.shape[0] = 0; }), kInvalid, "self"},
    {"self_empty_batch_consistent",
     with(tbc(),
          [](C c) {
            c.input.shape[1] = c.self.shape[1] = 0;
            deriveOutputs(c);
          }),
     kInvalid, "self"},
    {"self_empty_cout_consistent",
     with(tbc(),
          [](C c) {
            c.weight.shape[2] = c.self.shape[2] = c.bias.shape[0] = 0;
            deriveOutputs(c);
          }),
     kInvalid, "self"},
    {"order_empty_self_before_rank",
     with(tbc(),
          [](C c) {
            c.self.shape[0] = 0;
            c.bias.shape = {4, 1};
          }),
     kInvalid, "self"},
};
TBC_CASES(Step4EmptySelf, kStep4);

const TbcCase kStep5[] = {
    {"rank_self_2",
     with(tbc(),
          [](C c) {
            c.self.shape = {5, 8};
          }),
     kInvalid, "self"},
    {"rank_input_4",
     with(tbc(),
          [](C c) {
            c.input.shape = {5, 2, 3, 1};
            deriveOutputs(c);
          }),
     kInvalid, "input"},
    {"rank_weight_2",
     with(tbc(),
          [](C c) {
            c.weight.shape = {9, 4};
            deriveOutputs(c);
          }),
     kInvalid, "weight"},
    {"rank_bias_2",
     with(tbc(),
          [](C c) {
            c.bias.shape = {4, 1};
            deriveOutputs(c);
          }),
     kInvalid, "bias"},
    {"rank_gradBias_2",
     with(tbc(),
          [](C c) {
            c.gradBias.shape = {1, 4};
          }),
     kInvalid, "gradBias"},
    {"rank_gradInput_2",
     with(tbc(),
          [](C c) {
            c.gradInput.shape = {10, 3};
          }),
     kInvalid, "gradInput"},
    {"rank_gradWeight_4",
     with(tbc(),
          [](C c) {
            c.gradWeight.shape = {3, 3, 4, 1};
          }),
     kInvalid, "gradWeight"},
    {"input_channels_ne_weight1",
     with(tbc(),
          [](C c) {
            c.input.shape[2] = 2;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"bias_ne_weight2",
     with(tbc(),
          [](C c) {
            c.bias.shape[0] = 5;
            deriveOutputs(c);
          }),
     kInvalid, "bias"},
    {"pad_negative",
     with(tbc(),
          [](C c) {
            c.pad = -1;
            c.self.shape[0] = 1;  // T + 2*pad + 1 - K = 1: only the sign of pad is wrong
          }),
     kInvalid, "pad"},
    {"t_out_negative",
     with(tbc(),
          [](C c) {
            c.input.shape[0] = 1;
            c.weight.shape[0] = 5;
            c.self.shape[0] = 1;
            c.pad = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"self_time_mismatch", with(tbc(), [](C c) { c.self.shape[0] = 6; }), kInvalid, "self"},
    {"self_batch_mismatch", with(tbc(), [](C c) { c.self.shape[1] = 3; }), kInvalid, "self"},
    {"self_channels_mismatch", with(tbc(), [](C c) { c.self.shape[2] = 5; }), kInvalid, "self"},
    {"gradInput_shape_mismatch",
     with(tbc(),
          [](C c) {
            c.gradInput.shape = {5, 2, 4};
          }),
     kInvalid, "gradInput"},
    {"gradWeight_shape_mismatch",
     with(tbc(),
          [](C c) {
            c.gradWeight.shape = {4, 3, 3};
          }),
     kInvalid, "gradWeight"},
    {"gradBias_shape_mismatch", with(tbc(), [](C c) { c.gradBias.shape = {3}; }), kInvalid,
     "gradBias"},
};
TBC_CASES(Step5Shapes, kStep5);

const TbcCase kStep6[] = {
    {"cubeMathType_4", with(tbc(), [](C c) { c.cubeMathType = 4; }), kInvalid, "cubeMathType"},
    {"cubeMathType_negative", with(tbc(), [](C c) { c.cubeMathType = -1; }), kInvalid,
     "cubeMathType"},
    {"order_shape_before_cubeMathType",
     with(tbc(),
          [](C c) {
            c.gradBias.shape = {3};
            c.cubeMathType = 4;
          }),
     kInvalid, "gradBias"},
};
TBC_CASES(Step6CubeMathType, kStep6);

// Step 7 is 950-only: A2 accepts any float output dtype.
const TbcCase kCompute[] = {
    {"fp32", tbc(), kOk, ""},
    {"pad0", tbcShaped(6, 2, 3, 2, 3, 0), kOk, ""},
    {"pad_beyond_kernel", tbcShaped(2, 1, 2, 3, 2, 3), kOk, ""},
    {"pad_300", tbcShaped(1, 1, 1, 1, 1, 300), kOk, ""},
    {"kernel_equals_padded_length", tbcShaped(3, 2, 2, 2, 5, 1), kOk, ""},
    {"fp16", allDtypes(tbc(), ACL_FLOAT16, ACL_FLOAT16), kOk, ""},
    {"bf16", allDtypes(tbc(), ACL_BF16, ACL_BF16), kOk, ""},
    {"output_dtypes_differ_from_inputs",
     with(tbc(),
          [](C c) {
            c.gradInput.dtype = ACL_FLOAT16;
            c.gradWeight.dtype = ACL_BF16;
            c.gradBias.dtype = ACL_FLOAT16;
          }),
     kOk, ""},
    {"mixed_input_dtypes",
     with(tbc(),
          [](C c) {
            c.self.dtype = ACL_FLOAT16;
            c.input.dtype = ACL_BF16;
          }),
     kOk, ""},
    {"cube1_hf32",
     with(tbc(),
          [](C c) {
            c.cubeMathType = 1;
            c.data = DataPattern::Fine;
          }),
     kOk, ""},
    {"cube2_fp16",
     with(tbc(),
          [](C c) {
            c.cubeMathType = 2;
            c.data = DataPattern::Fine;
          }),
     kOk, ""},
    {"cube3_hf32",
     with(tbc(),
          [](C c) {
            c.cubeMathType = 3;
            c.data = DataPattern::Fine;
          }),
     kOk, ""},
    {"cube0_keep",
     with(tbc(),
          [](C c) {
            c.cubeMathType = 0;
            c.data = DataPattern::Fine;
          }),
     kOk, ""},
    {"strided_views",
     with(tbc(),
          [](C c) {
            c.self.strides = {4, 20, 1};  // stored batch-major [B, T_out, C_out]
            c.self.storageShape = {2, 5, 4};
            c.gradWeight.strides = {1, 3, 9};  // stored [C_out, C_in, K]
            c.gradWeight.storageShape = {4, 3, 3};
            c.gradInput.strides = {12, 6, 1};
            c.gradInput.offset = 2;
            c.gradInput.storageShape = {5, 2, 6};
          }),
     kOk, ""},
};
TBC_CASES(Compute, kCompute);

// Section 4.1 with the project decision: zero-filled grads, gradBias = sum(self).
const TbcCase kEmpty[] = {
    {"empty_weight",
     with(tbcShaped(5, 1, 2, 2, 1, 0),
          [](C c) {
            c.weight.shape = {0, 2, 2};
            c.self.shape = {6, 1, 2};
            deriveOutputs(c);
          }),
     kOk, ""},
    {"empty_input",
     with(tbcShaped(2, 1, 2, 2, 1, 1),
          [](C c) {
            c.input.shape = {0, 1, 2};
            c.self.shape = {2, 1, 2};
            deriveOutputs(c);
          }),
     kOk, ""},
    {"empty_input_and_weight",
     with(tbcShaped(1, 1, 2, 2, 1, 0),
          [](C c) {
            c.input.shape = {0, 1, 2};
            c.weight.shape = {0, 2, 2};
            c.self.shape = {1, 1, 2};
            deriveOutputs(c);
          }),
     kOk, ""},
    {"empty_input_channels", tbcShaped(5, 1, 0, 2, 1, 0), kOk, ""},
    {"empty_weight_fp16_self_bf16_gradBias",
     with(tbcShaped(5, 2, 2, 3, 1, 1),
          [](C c) {
            c.weight.shape = {0, 2, 3};
            c.self.shape = {8, 2, 3};
            deriveOutputs(c);
            c.self.dtype = ACL_FLOAT16;
            c.gradBias.dtype = ACL_BF16;
          }),
     kOk, ""},
};
TBC_CASES(EmptyPath, kEmpty);

// The doc example, hand-derived: all ones give gradInput 2, gradWeight 5, gradBias 5.
TEST(ConvTbcBackwardExample, DocSampleAllOnes) {
  TbcCall call;
  call.self = tensor({5, 1, 2});
  call.input = tensor({5, 1, 2});
  call.weight = tensor({1, 2, 2});
  call.bias = tensor({2});
  call.pad = 0;
  call.cubeMathType = 1;
  deriveOutputs(call);
  TbcInvocation invocation(call);
  invocation.setInputValues(0, std::vector<double>(10, 1.0));
  invocation.setInputValues(1, std::vector<double>(10, 1.0));
  invocation.setInputValues(2, std::vector<double>(4, 1.0));
  ASSERT_EQ(invocation.getWorkspaceSize(), kOk);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvTbcBackward(workspace.get(), invocation.workspaceSize(), invocation.executor(),
                                 testStream()),
            kOk);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  EXPECT_EQ(invocation.outputValues(0), std::vector<double>(10, 2.0));
  EXPECT_EQ(invocation.outputValues(1), std::vector<double>(4, 5.0));
  EXPECT_EQ(invocation.outputValues(2), std::vector<double>(2, 5.0));
}

TEST(ConvTbcBackwardPhase2, NullExecutorIs161001) {
  clearErrorMessages();
  EXPECT_EQ(aclnnConvTbcBackward(nullptr, 0, nullptr, testStream()), ACLNN_ERR_PARAM_NULLPTR);
  expectErrorMessageRecorded();
}

TEST(ConvTbcBackwardPhase2, OneShotExecutorRunTwiceIs161002) {
  TbcInvocation invocation(tbc());
  ASSERT_EQ(invocation.getWorkspaceSize(), kOk);
  DeviceBuffer workspace(invocation.workspaceSize());
  ASSERT_EQ(aclnnConvTbcBackward(workspace.get(), invocation.workspaceSize(), invocation.executor(),
                                 testStream()),
            kOk);
  ASSERT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
  clearErrorMessages();
  EXPECT_EQ(aclnnConvTbcBackward(workspace.get(), invocation.workspaceSize(), invocation.executor(),
                                 testStream()),
            ACLNN_ERR_PARAM_INVALID);
  expectErrorMessageRecorded();
  invocation.checkOutputs();
}

TEST(ConvTbcBackwardPhase2, NullWorkspaceWithNonZeroSizeIs161002) {
  TbcInvocation invocation(tbc());
  ASSERT_EQ(invocation.getWorkspaceSize(), kOk);
  clearErrorMessages();
  EXPECT_EQ(aclnnConvTbcBackward(nullptr, invocation.workspaceSize() + 64, invocation.executor(),
                                 testStream()),
            ACLNN_ERR_PARAM_INVALID);
  expectErrorMessageRecorded();
  invocation.checkOutputsUntouched();
  // Cleanup: the spec does not say whether a rejected launch consumes the executor.
  DeviceBuffer workspace(invocation.workspaceSize());
  const aclnnStatus retry = aclnnConvTbcBackward(workspace.get(), invocation.workspaceSize(),
                                                 invocation.executor(), testStream());
  EXPECT_TRUE(retry == kOk || retry == ACLNN_ERR_PARAM_INVALID) << retry;
  clearErrorMessages();
  EXPECT_EQ(aclrtSynchronizeStream(testStream()), ACL_SUCCESS);
}

}  // namespace
}  // namespace conformance
