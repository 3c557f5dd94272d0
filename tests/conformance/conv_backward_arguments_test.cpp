// convolution-backward.md section 3 steps 1, 2, 4, 5 and 6, and project
// decision 3: argument-level rules that precede any shape reasoning.

#include "conv_case_table.h"

namespace conformance {
namespace {

using C = ConvCall&;

// Step 1 (and decision 3): null pointers and the mask length -> 161001.
const ConvCase kStep1[] = {
    {"gradOutput_null", with(conv2d(), [](C c) { c.gradOutput = noTensor(); }), kNull,
     "gradOutput"},
    {"input_null", with(conv2d(), [](C c) { c.input = noTensor(); }), kNull, "input"},
    {"weight_null", with(conv2d(), [](C c) { c.weight = noTensor(); }), kNull, "weight"},
    {"stride_null", with(conv2d(), [](C c) { c.stride.reset(); }), kNull, "stride"},
    {"padding_null", with(conv2d(), [](C c) { c.padding.reset(); }), kNull, "padding"},
    {"dilation_null", with(conv2d(), [](C c) { c.dilation.reset(); }), kNull, "dilation"},
    {"outputPadding_null", with(conv2d(), [](C c) { c.outputPadding.reset(); }), kNull,
     "outputPadding"},
    {"outputMask_null", with(conv2d(), [](C c) { c.outputMask.reset(); }), kNull, "outputMask"},
    {"outputMask_length_2",
     with(conv2d(),
          [](C c) {
            c.outputMask = std::vector<bool>{true, true};
          }),
     kNull, "outputMask"},
    {"outputMask_length_4",
     with(conv2d(),
          [](C c) {
            c.outputMask = std::vector<bool>{true, true, true, false};
          }),
     kNull, "outputMask"},
    {"outputMask_length_0", with(conv2d(), [](C c) { c.outputMask = std::vector<bool>{}; }), kNull,
     "outputMask"},
    {"mask0_gradInput_null", with(conv2d(), [](C c) { c.gradInput = noTensor(); }), kNull,
     "gradInput"},
    {"mask1_gradWeight_null", with(conv2d(), [](C c) { c.gradWeight = noTensor(); }), kNull,
     "gradWeight"},
    {"mask2_gradBias_null", with(conv2d(), [](C c) { c.gradBias = noTensor(); }), kNull,
     "gradBias"},
    {"workspaceSize_null", with(conv2d(), [](C c) { c.nullWorkspaceSize = true; }), kNull,
     "workspaceSize"},
    {"executor_null", with(conv2d(), [](C c) { c.nullExecutor = true; }), kNull, "executor"},
    // Step 1.4: biasSizes is not null-checked; it is never read in the compute path.
    {"biasSizes_null_compute_path_ok", with(conv2d(), [](C c) { c.biasSizes.reset(); }), kOk, ""},
    // Order: step 1 before every later step.
    {"order_weight_null_before_gradOutput_dtype",
     with(conv2d(),
          [](C c) {
            c.weight = noTensor();
            c.gradOutput.dtype = ACL_DOUBLE;
          }),
     kNull, "weight"},
    {"order_mask_length_before_input_format",
     with(conv2d(),
          [](C c) {
            c.outputMask = std::vector<bool>{true, true};
            c.input.format = ACL_FORMAT_ND;
          }),
     kNull, "outputMask"},
    {"order_gradBias_null_before_stride_value",
     with(conv2d(),
          [](C c) {
            c.gradBias = noTensor();
            c.stride = std::vector<int64_t>{0, 1};
          }),
     kNull, "gradBias"},
    {"order_gradInput_null_before_gradWeight_dtype",
     with(conv2d(),
          [](C c) {
            c.gradInput = noTensor();
            c.gradWeight.dtype = ACL_INT32;
          }),
     kNull, "gradInput"},
    {"order_outputPadding_null_before_groups",
     with(conv2d(),
          [](C c) {
            c.outputPadding.reset();
            c.groups = 0;
          }),
     kNull, "outputPadding"},
};
CONV_CASES(Step1Nulls, kStep1);

// Step 2: dtype membership {fp32, fp16, bf16}; outputs checked whenever non-null.
const ConvCase kStep2[] = {
    {"gradOutput_double", with(conv2d(), [](C c) { c.gradOutput.dtype = ACL_DOUBLE; }), kInvalid,
     "gradOutput"},
    {"input_int32", with(conv2d(), [](C c) { c.input.dtype = ACL_INT32; }), kInvalid, "input"},
    {"weight_int8", with(conv2d(), [](C c) { c.weight.dtype = ACL_INT8; }), kInvalid, "weight"},
    {"weight_hifloat8_not_on_a2", with(conv2d(), [](C c) { c.weight.dtype = ACL_HIFLOAT8; }),
     kInvalid, "weight"},
    {"input_complex64", with(conv2d(), [](C c) { c.input.dtype = ACL_COMPLEX64; }), kInvalid,
     "input"},
    {"input_undefined", with(conv2d(), [](C c) { c.input.dtype = ACL_DT_UNDEFINED; }), kInvalid,
     "input"},
    {"gradInput_double", with(conv2d(), [](C c) { c.gradInput.dtype = ACL_DOUBLE; }), kInvalid,
     "gradInput"},
    {"gradInput_double_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradInput.dtype = ACL_DOUBLE;
            c.outputMask = mask(0, 1, 1);
          }),
     kInvalid, "gradInput"},
    {"gradWeight_int32", with(conv2d(), [](C c) { c.gradWeight.dtype = ACL_INT32; }), kInvalid,
     "gradWeight"},
    {"gradWeight_int32_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradWeight.dtype = ACL_INT32;
            c.outputMask = mask(1, 0, 1);
          }),
     kInvalid, "gradWeight"},
    {"gradBias_double", with(conv2d(), [](C c) { c.gradBias.dtype = ACL_DOUBLE; }), kInvalid,
     "gradBias"},
    {"gradBias_int64_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradBias.dtype = ACL_INT64;
            c.outputMask = mask(1, 1, 0);
          }),
     kInvalid, "gradBias"},
    // Order: dtypes in argument order, before formats and parameter values.
    {"order_gradOutput_dtype_before_weight_dtype",
     with(conv2d(),
          [](C c) {
            c.gradOutput.dtype = ACL_INT32;
            c.weight.dtype = ACL_DOUBLE;
          }),
     kInvalid, "gradOutput"},
    {"order_gradBias_dtype_before_input_format",
     with(conv2d(),
          [](C c) {
            c.gradBias.dtype = ACL_DOUBLE;
            c.input.format = ACL_FORMAT_NHWC;
          }),
     kInvalid, "gradBias"},
    {"order_weight_dtype_before_stride_value",
     with(conv2d(),
          [](C c) {
            c.weight.dtype = ACL_DOUBLE;
            c.stride = std::vector<int64_t>{0, 0};
          }),
     kInvalid, "weight"},
};
CONV_CASES(Step2Dtypes, kStep2);

// Step 4: storage formats keyed by each tensor's own view rank.
const ConvCase kStep4[] = {
    {"gradOutput_nd_rank4", with(conv2d(), [](C c) { c.gradOutput.format = ACL_FORMAT_ND; }),
     kInvalid, "gradOutput"},
    {"input_nhwc", with(conv2d(), [](C c) { c.input.format = ACL_FORMAT_NHWC; }), kInvalid,
     "input"},
    {"input_ncl_rank4", with(conv2d(), [](C c) { c.input.format = ACL_FORMAT_NCL; }), kInvalid,
     "input"},
    {"weight_nchw_rank5", with(conv3d(), [](C c) { c.weight.format = ACL_FORMAT_NCHW; }), kInvalid,
     "weight"},
    {"input_ndhwc_rank5", with(conv3d(), [](C c) { c.input.format = ACL_FORMAT_NDHWC; }), kInvalid,
     "input"},
    {"gradOutput_nchw_rank3", with(conv1d(), [](C c) { c.gradOutput.format = ACL_FORMAT_NCHW; }),
     kInvalid, "gradOutput"},
    {"input_rank2",
     with(conv2d(),
          [](C c) {
            c.input = tensor({2, 4});
          }),
     kInvalid, "input"},
    {"input_rank6",
     with(conv2d(),
          [](C c) {
            c.input = tensor({2, 4, 1, 1, 5, 5});
          }),
     kInvalid, "input"},
    {"input_rank0", with(conv2d(), [](C c) { c.input = tensor({}); }), kInvalid, "input"},
    {"weight_rank1", with(conv2d(), [](C c) { c.weight = tensor({6}); }), kInvalid, "weight"},
    {"gradInput_nhwc_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradInput.format = ACL_FORMAT_NHWC;
            c.outputMask = mask(0, 1, 1);
          }),
     kInvalid, "gradInput"},
    {"gradWeight_nd_rank4_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradWeight.format = ACL_FORMAT_ND;
            c.outputMask = mask(1, 0, 1);
          }),
     kInvalid, "gradWeight"},
    {"gradBias_nchw_not_transposed",
     with(conv2d(), [](C c) { c.gradBias.format = ACL_FORMAT_NCHW; }), kInvalid, "gradBias"},
    {"gradBias_ncl_not_transposed_masked_off",
     with(conv1d(),
          [](C c) {
            c.gradBias.format = ACL_FORMAT_NCL;
            c.outputMask = mask(1, 1, 0);
          }),
     kInvalid, "gradBias"},
    // Accepted: rank 3 may be ND, transposed gradBias format is not checked.
    {"rank3_nd_accepted",
     with(conv1d(),
          [](C c) {
            for (TensorDesc* t : {&c.gradOutput, &c.input, &c.weight, &c.gradInput, &c.gradWeight})
              t->format = ACL_FORMAT_ND;
          }),
     kOk, ""},
    {"gradBias_nchw_transposed_accepted",
     with(conv2dTransposed(), [](C c) { c.gradBias.format = ACL_FORMAT_NCHW; }), kOk, ""},
    // Order: formats before parameter values.
    {"order_input_format_before_padding_value",
     with(conv2d(),
          [](C c) {
            c.input.format = ACL_FORMAT_NHWC;
            c.padding = std::vector<int64_t>{-1, 0};
          }),
     kInvalid, "input"},
};
CONV_CASES(Step4Formats, kStep4);

// Step 5: parameter values (before any array-length check).
const ConvCase kStep5[] = {
    {"stride_zero",
     with(conv2d(),
          [](C c) {
            c.stride = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "stride"},
    {"stride_negative", with(conv1d(), [](C c) { c.stride = std::vector<int64_t>{-2}; }), kInvalid,
     "stride"},
    {"padding_negative",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, -1};
          }),
     kInvalid, "padding"},
    {"padding4_negative",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1, -1};
          }),
     kInvalid, "padding"},
    {"dilation_zero",
     with(conv2d(),
          [](C c) {
            c.dilation = std::vector<int64_t>{0, 2};
          }),
     kInvalid, "dilation"},
    {"dilation_negative_3d",
     with(conv3d(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, -1, 2};
          }),
     kInvalid, "dilation"},
    {"transposed_outputPadding_negative",
     with(conv2dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{1, -1};
          }),
     kInvalid, "outputPadding"},
    {"transposed3d_outputPadding_equal_stride",
     with(conv3dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{2, 0, 1};
          }),
     kInvalid, "outputPadding"},
    // HEAD rule: outputPadding < stride; the variant's "or < dilation" is not applied.
    // gradOutput H = 3 satisfies the step-10 floor relation, so only step 5 can reject.
    {"transposed3d_outputPadding_below_dilation_not_stride",
     with(conv3dTransposed(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 2, 1};
            c.outputPadding = std::vector<int64_t>{1, 1, 1};
            c.gradOutput.shape = {1, 2, 5, 3, 3};
          }),
     kInvalid, "outputPadding"},
    {"not_transposed_outputPadding_nonzero",
     with(conv2d(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "outputPadding"},
    {"not_transposed_outputPadding4_nonzero",
     with(conv2d(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 0, 1, 0};
          }),
     kInvalid, "outputPadding"},
    {"groups_zero", with(conv2d(), [](C c) { c.groups = 0; }), kInvalid, "groups"},
    {"groups_negative", with(conv2d(), [](C c) { c.groups = -2; }), kInvalid, "groups"},
    // Order: values are checked before lengths (a wrong-length array with a bad value).
    {"order_stride_value_before_stride_length",
     with(conv2d(),
          [](C c) {
            c.stride = std::vector<int64_t>{1, 1, 0};
          }),
     kInvalid, "stride"},
    {"order_dilation_value_before_padding_length",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1};
            c.dilation = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "dilation"},
    {"order_groups_before_cubeMathType",
     with(conv2d(),
          [](C c) {
            c.groups = 0;
            c.cubeMathType = 9;
          }),
     kInvalid, "groups"},
};
CONV_CASES(Step5Values, kStep5);

// Step 6: cubeMathType in [0, 3]; the per-dtype check always passes on A2.
const ConvCase kStep6[] = {
    {"cubeMathType_4", with(conv2d(), [](C c) { c.cubeMathType = 4; }), kInvalid, "cubeMathType"},
    {"cubeMathType_negative", with(conv2d(), [](C c) { c.cubeMathType = -1; }), kInvalid,
     "cubeMathType"},
    {"cubeMathType_127", with(conv1d(), [](C c) { c.cubeMathType = 127; }), kInvalid,
     "cubeMathType"},
    // Order: steps 2 to 6 run before the empty-tensor early exit of step 7.
    {"order_cubeMathType_before_empty_exit",
     with(conv2d(),
          [](C c) {
            c.input.shape[0] = c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
            c.cubeMathType = 4;
          }),
     kInvalid, "cubeMathType"},
    {"order_format_before_empty_exit",
     with(conv2d(),
          [](C c) {
            c.input.shape[0] = c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
            c.weight.format = ACL_FORMAT_NHWC;
          }),
     kInvalid, "weight"},
    {"order_dtype_before_empty_exit",
     with(conv2d(),
          [](C c) {
            c.weight.shape[0] = c.gradOutput.shape[1] = 0;
            deriveOutputs(c);
            c.gradBias.dtype = ACL_INT32;
          }),
     kInvalid, "gradBias"},
    {"order_stride_before_empty_exit",
     with(conv2d(),
          [](C c) {
            c.input.shape[0] = c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
            c.stride = std::vector<int64_t>{1, 0};
          }),
     kInvalid, "stride"},
};
CONV_CASES(Step6CubeMathType, kStep6);

}  // namespace
}  // namespace conformance
