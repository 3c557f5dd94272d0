// aclnnConvolution: convolution-forward.md section 3, one case per rule
// (steps 1-9, in order: the first failure wins), the empty-tensor rows of
// section 7 and the project decisions.

#include <cstdint>

#include "conformance_forward/forward_call.h"

namespace conformance {
namespace {

using C = ForwardCall&;

// Step 1: null pointers -> 161001, in upstream's order; bias may be null.
const ForwardCase kStep1[] = {
    {"input_null", with(conv2d(), [](C c) { c.input = noTensor(); }), kNull, "input"},
    {"weight_null", with(conv2d(), [](C c) { c.weight = noTensor(); }), kNull, "weight"},
    {"stride_null", with(conv2d(), [](C c) { c.stride.reset(); }), kNull, "stride"},
    {"padding_null", with(conv2d(), [](C c) { c.padding.reset(); }), kNull, "padding"},
    {"dilation_null", with(conv2d(), [](C c) { c.dilation.reset(); }), kNull, "dilation"},
    {"output_null", with(conv2d(), [](C c) { c.output = noTensor(); }), kNull, "output"},
    {"workspaceSize_null", with(conv2d(), [](C c) { c.nullWorkspaceSize = true; }), kNull,
     "workspaceSize"},
    {"executor_null", with(conv2d(), [](C c) { c.nullExecutor = true; }), kNull, "executor"},
    {"outputPadding_null_transposed",
     with(conv2dTransposed(), [](C c) { c.outputPadding.reset(); }), kNull, "outputPadding"},
    // Decision 10: ignored entirely when not transposed.
    {"outputPadding_null_not_transposed_ok", with(conv2d(), [](C c) { c.outputPadding.reset(); }),
     kOk, ""},
    {"bias_null_ok", with(conv2d(), [](C c) { c.bias = noTensor(); }), kOk, ""},
    {"order_output_null_before_input_dtype",
     with(conv2d(),
          [](C c) {
            c.output = noTensor();
            c.input.dtype = ACL_INT32;
          }),
     kNull, "output"},
    {"order_executor_null_before_outputPadding_null",
     with(conv2dTransposed(),
          [](C c) {
            c.nullExecutor = true;
            c.outputPadding.reset();
          }),
     kNull, "executor"},
};
FORWARD_CASES(ConvStep1Nulls, kStep1);

// Step 2: dtypes in {fp32, fp16, bf16}; the bias first; no equality rule.
const ForwardCase kStep2[] = {
    {"bias_double", with(conv2d(), [](C c) { c.bias.dtype = ACL_DOUBLE; }), kInvalid, "bias"},
    {"input_int32", with(conv2d(), [](C c) { c.input.dtype = ACL_INT32; }), kInvalid, "input"},
    {"weight_int8", with(conv2d(), [](C c) { c.weight.dtype = ACL_INT8; }), kInvalid, "weight"},
    {"output_double", with(conv2d(), [](C c) { c.output.dtype = ACL_DOUBLE; }), kInvalid, "output"},
    {"input_hifloat8_not_on_a2", with(conv2d(), [](C c) { c.input.dtype = ACL_HIFLOAT8; }),
     kInvalid, "input"},
    {"order_bias_before_input",
     with(conv2d(),
          [](C c) {
            c.bias.dtype = ACL_INT64;
            c.input.dtype = ACL_INT32;
          }),
     kInvalid, "bias"},
    {"mixed_fp16_fp32_bf16_ok",
     with(conv2d(),
          [](C c) {
            c.input.dtype = ACL_FLOAT16;
            c.weight.dtype = ACL_FLOAT;
            c.bias.dtype = ACL_BF16;
            c.output.dtype = ACL_BF16;
          }),
     kOk, ""},
    {"all_bf16_ok", with(conv2d(), [](C c) { setDtypes(c, ACL_BF16); }), kOk, ""},
    {"fp16_in_fp32_out_ok",
     with(conv2d(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.output.dtype = ACL_FLOAT;
          }),
     kOk, ""},
};
FORWARD_CASES(ConvStep2Dtypes, kStep2);

// Step 3: ranks and list lengths.
const ForwardCase kStep3[] = {
    {"input_rank2",
     with(conv2d(),
          [](C c) {
            c.input = tensor({2, 4});
          }),
     kInvalid, "input"},
    {"input_rank6",
     with(conv2d(),
          [](C c) {
            c.input = tensor({1, 1, 1, 1, 1, 1});
          }),
     kInvalid, "input"},
    {"output_rank2",
     with(conv2d(),
          [](C c) {
            c.output = tensor({2, 6});
          }),
     kInvalid, "output"},
    {"weight_rank_differs",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, 2, 3});
          }),
     kInvalid, "weight"},
    {"output_rank_differs",
     with(conv2d(),
          [](C c) {
            c.output = tensor({2, 6, 3, 3, 1});
          }),
     kInvalid, "output"},
    {"bias_rank2",
     with(conv2d(),
          [](C c) {
            c.bias = tensor({1, 6});
          }),
     kInvalid, "bias"},
    {"bias_rank4",
     with(conv2d(),
          [](C c) {
            c.bias = tensor({1, 6, 1, 1});
          }),
     kInvalid, "bias"},
    {"bias_wrong_channels", with(conv2d(), [](C c) { c.bias = tensor({5}); }), kInvalid, "bias"},
    // Transposed: bias[0] = weight C * groups = 3 * 2.
    {"transposed_bias_weight_n", with(conv2dTransposed(), [](C c) { c.bias = tensor({4}); }),
     kInvalid, "bias"},
    {"stride_length_1_in_2d", with(conv2d(), [](C c) { c.stride = std::vector<int64_t>{1}; }),
     kInvalid, "stride"},
    {"dilation_length_3_in_2d",
     with(conv2d(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 1, 1};
          }),
     kInvalid, "dilation"},
    {"padding_length_3_in_2d",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1};
          }),
     kInvalid, "padding"},
    {"padding_length_6_in_3d",
     with(conv3d(), [](C c) { c.padding = std::vector<int64_t>{0, 0, 1, 1, 0, 0}; }), kInvalid,
     "padding"},
    {"padding_length_2_in_1d_transposed",
     with(conv1dTransposed(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1};
          }),
     kInvalid, "padding"},
    {"outputPadding_length_4_in_2d_transposed",
     with(conv2dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{1, 0, 0, 0};
          }),
     kInvalid, "outputPadding"},
    {"outputPadding_any_length_not_transposed_ok",
     with(conv2d(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{7, 7, 7, 7, 7};
          }),
     kOk, ""},
    // 2D [top, bottom, left, right] = [1, 2, 0, 1]: H (5 + 3 - 3)/2 + 1 = 3, W (5 + 1 - 5) + 1 = 2.
    {"padding_4_values_2d_ok",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 2, 0, 1};
            c.output = tensor({2, 6, 3, 2});
          }),
     kOk, ""},
    // 2D transposed 4 values: H = 2*2 - (1 + 0) + 2 + 1 + 1 = 7, W = 4 - (2 + 1) + 2 + 0 + 1 = 4.
    {"padding_4_values_2d_transposed_ok",
     with(conv2dTransposed(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 0, 2, 1};
            c.output = tensor({2, 6, 7, 4});
          }),
     kOk, ""},
    // 1D [left, right] = [2, 0]: (9 + 2 - 3)/2 + 1 = 5.
    {"padding_2_values_1d_ok",
     with(conv1d(),
          [](C c) {
            c.padding = std::vector<int64_t>{2, 0};
          }),
     kOk, ""},
};
FORWARD_CASES(ConvStep3Dims, kStep3);

// Step 4: formats (decision 6: private formats fail here).
const ForwardCase kStep4[] = {
    {"output_format_differs", with(conv2d(), [](C c) { c.output.format = ACL_FORMAT_ND; }),
     kInvalid, "output"},
    {"bias_format_nhwc", with(conv2d(), [](C c) { c.bias.format = ACL_FORMAT_NHWC; }), kInvalid,
     "bias"},
    {"bias_format_ncdhw_ok", with(conv2d(), [](C c) { c.bias.format = ACL_FORMAT_NCDHW; }), kOk,
     ""},
    {"1d_weight_nd", with(conv1d(), [](C c) { c.weight.format = ACL_FORMAT_ND; }), kInvalid,
     "weight"},
    {"1d_input_output_nd",
     with(conv1d(),
          [](C c) {
            c.input.format = ACL_FORMAT_ND;
            c.output.format = ACL_FORMAT_ND;
          }),
     kInvalid, "input"},
    {"2d_weight_nhwc", with(conv2d(), [](C c) { c.weight.format = ACL_FORMAT_NHWC; }), kInvalid,
     "weight"},
    {"2d_weight_fractal_z", with(conv2d(), [](C c) { c.weight.format = ACL_FORMAT_FRACTAL_Z; }),
     kInvalid, "weight"},
    // Not transposed, the weight is checked before the input.
    {"2d_order_weight_before_input",
     with(conv2d(),
          [](C c) {
            c.weight.format = ACL_FORMAT_NHWC;
            c.input.format = c.output.format = ACL_FORMAT_NHWC;
          }),
     kInvalid, "weight"},
    {"2d_transposed_order_input_before_weight",
     with(conv2dTransposed(),
          [](C c) {
            c.weight.format = ACL_FORMAT_NHWC;
            c.input.format = c.output.format = ACL_FORMAT_NHWC;
          }),
     kInvalid, "input"},
    {"3d_weight_nchw", with(conv3d(), [](C c) { c.weight.format = ACL_FORMAT_NCHW; }), kInvalid,
     "weight"},
    {"3d_input_ndhwc_output_ncdhw", with(conv3d(), [](C c) { c.input.format = ACL_FORMAT_NDHWC; }),
     kInvalid, "output"},
    // Decision 11: NDHWC tensors are read by their letters. Input [N, D, H, W, C].
    {"3d_ndhwc_everything_ok",
     with(conv3d(),
          [](C c) {
            c.input = tensor({1, 4, 5, 3, 4});
            c.input.format = ACL_FORMAT_NDHWC;
            c.weight = tensor({4, 2, 3, 1, 2});
            c.weight.format = ACL_FORMAT_NDHWC;
            c.output = tensor({1, 3, 3, 3, 4});
            c.output.format = ACL_FORMAT_NDHWC;
          }),
     kOk, ""},
    {"3d_ndhwc_weight_only_ok",
     with(conv3d(),
          [](C c) {
            c.weight = tensor({4, 2, 3, 1, 2});
            c.weight.format = ACL_FORMAT_NDHWC;
          }),
     kOk, ""},
    {"3d_transposed_ndhwc_ok",
     with(conv3dTransposed(),
          [](C c) {
            c.input = tensor({1, 2, 3, 2, 2});
            c.input.format = ACL_FORMAT_NDHWC;
            c.output = tensor({1, 5, 2, 3, 2});
            c.output.format = ACL_FORMAT_NDHWC;
          }),
     kOk, ""},
};
FORWARD_CASES(ConvStep4Formats, kStep4);

// Step 5: values.
const ForwardCase kStep5[] = {
    {"input_n_negative",
     with(conv2d(),
          [](C c) {
            c.input = tensor({-1, 4, 5, 5});
          }),
     kInvalid, "input"},
    {"input_spatial_negative",
     with(conv2d(),
          [](C c) {
            c.input = tensor({2, 4, -5, 5});
          }),
     kInvalid, "input"},
    {"weight_c_negative",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, -2, 3, 3});
          }),
     kInvalid, "weight"},
    {"kernel_extent_0",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, 2, 0, 3});
          }),
     kInvalid, "weight"},
    {"kernel_extent_0_transposed",
     with(conv2dTransposed(),
          [](C c) {
            c.weight = tensor({4, 3, 3, 0});
          }),
     kInvalid, "weight"},
    {"stride_0",
     with(conv2d(),
          [](C c) {
            c.stride = std::vector<int64_t>{2, 0};
          }),
     kInvalid, "stride"},
    {"stride_negative", with(conv1d(), [](C c) { c.stride = std::vector<int64_t>{-2}; }), kInvalid,
     "stride"},
    {"dilation_0",
     with(conv3d(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 0, 2};
          }),
     kInvalid, "dilation"},
    {"padding_negative",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, -1};
          }),
     kInvalid, "padding"},
    {"order_stride_before_dilation",
     with(conv2d(),
          [](C c) {
            c.stride = std::vector<int64_t>{0, 1};
            c.dilation = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "stride"},
    // 5(d): W = 5 + 2 < dilated kernel 2*(5 - 1) + 1 = 9.
    {"kernel_larger_than_padded_input",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, 2, 3, 5});
          }),
     kInvalid, "weight"},
    {"groups_0", with(conv2d(), [](C c) { c.groups = 0; }), kInvalid, "groups"},
    {"groups_negative", with(conv2d(), [](C c) { c.groups = -2; }), kInvalid, "groups"},
    {"channels_weight_c_times_groups", with(conv2d(), [](C c) { c.groups = 1; }), kInvalid,
     "input"},
    {"transposed_weight_n_not_input_c",
     with(conv2dTransposed(),
          [](C c) {
            c.input = tensor({2, 5, 3, 3});
          }),
     kInvalid, "weight"},
    // outputPadding must be smaller than stride OR dilation.
    {"transposed_outputPadding_not_below_stride_or_dilation",
     with(conv2dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{2, 0};
          }),
     kInvalid, "outputPadding"},
    // op 1 >= stride 1 but < dilation 2: valid (PyTorch's rule). W: 2 - 0 + 2*2 + 1 + 1 = 8.
    {"transposed_outputPadding_below_dilation_ok",
     with(conv2dTransposed(),
          [](C c) {
            c.stride = std::vector<int64_t>{2, 1};
            c.dilation = std::vector<int64_t>{1, 2};
            c.outputPadding = std::vector<int64_t>{1, 1};
            c.output = tensor({2, 6, 6, 8});
          }),
     kOk, ""},
    {"transposed_outputPadding_negative",
     with(conv2dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{1, -1};
          }),
     kInvalid, "outputPadding"},
    // 5(g): weight N = 5 not divisible by groups 2 (input C 4 = 2 * 2 holds).
    {"weight_n_not_divisible_by_groups",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({5, 2, 3, 3});
            c.bias = tensor({5});
            c.output = tensor({2, 5, 3, 3});
          }),
     kInvalid, "groups"},
    // 5(i): transposed with input C = 0 (weight [0, 3, ...] keeps 5(f) happy).
    {"transposed_input_channels_0",
     with(conv2dTransposed(),
          [](C c) {
            c.input = tensor({2, 0, 3, 3});
            c.weight = tensor({0, 3, 3, 3});
            c.output = tensor({2, 6, 6, 7});
          }),
     kInvalid, "input"},
    // 5(j) is not enforced (decision 4): (3 - 1) * 200 - 1 > 255.
    // L = 3*3 - 2 + 400 + 2 + 1 = 410.
    {"transposed_backprop_pad_limit_not_enforced_ok",
     with(conv1dTransposed(),
          [](C c) {
            c.dilation = std::vector<int64_t>{200};
            c.output = tensor({2, 2, 410});
          }),
     kOk, ""},
    // Decision 4: no chip limits (stride 70 > 63, kernel 300 > 255).
    {"no_chip_limits_ok",
     with(conv1d(),
          [](C c) {
            c.input = tensor({1, 4, 300});
            c.weight = tensor({6, 4, 300});
            c.stride = std::vector<int64_t>{70};
            c.padding = std::vector<int64_t>{0};
            c.output = tensor({1, 6, 1});
          }),
     kOk, ""},
};
FORWARD_CASES(ConvStep5Values, kStep5);

// Step 6: the output shape (with decisions 2 and 4).
const ForwardCase kStep6[] = {
    {"output_spatial_wrong",
     with(conv2d(),
          [](C c) {
            c.output = tensor({2, 6, 3, 4});
          }),
     kInvalid, "output"},
    {"output_batch_wrong",
     with(conv2d(),
          [](C c) {
            c.output = tensor({3, 6, 3, 3});
          }),
     kInvalid, "output"},
    {"output_channels_wrong",
     with(conv2d(),
          [](C c) {
            c.output = tensor({2, 5, 3, 3});
            c.bias = noTensor();
          }),
     kInvalid, "output"},
    {"transposed_output_wrong",
     with(conv1dTransposed(),
          [](C c) {
            c.output = tensor({2, 2, 13});
          }),
     kInvalid, "output"},
    {"3d_output_depth_wrong",
     with(conv3d(),
          [](C c) {
            c.output = tensor({1, 4, 2, 3, 3});
          }),
     kInvalid, "output"},
    // Empty input W = 0 with padding: inferred (0 + 2 - 3)/1 + 1 = 0 -> fine below; here
    // padding 2 gives W' = 2, a non-empty output for an empty input (step 6.2).
    {"empty_input_nonempty_output",
     with(conv1d(),
          [](C c) {
            c.input = tensor({2, 4, 0});
            c.padding = std::vector<int64_t>{2};
            c.stride = std::vector<int64_t>{1};
            c.output = tensor({2, 6, 2});
          }),
     kInvalid, "output"},
    // Transposed extent (1 - 1) - 6 + 0 + 0 + 1 = -5: matching negative output fails (decision 2).
    {"transposed_negative_output_extent",
     with(conv1dTransposed(),
          [](C c) {
            c.input = tensor({1, 3, 1});
            c.weight = tensor({3, 2, 1});
            c.padding = std::vector<int64_t>{3};
            c.dilation = std::vector<int64_t>{1};
            c.outputPadding = std::vector<int64_t>{0};
            c.output = tensor({1, 2, -5});
            c.output.storageShape = {1};
            c.output.strides = {0, 0, 0};
          }),
     kInvalid, "output"},
    // Inferred extent overflows 64 bits (decision 4).
    {"transposed_inferred_extent_overflows",
     with(conv1dTransposed(),
          [](C c) {
            c.stride = std::vector<int64_t>{INT64_MAX / 2};
            c.outputPadding = std::vector<int64_t>{0};
          }),
     kInvalid, "output"},
    // Element count overflows 64 bits (decision 4): a stride-0 view over one element.
    {"input_element_count_overflows",
     with(conv2d(),
          [](C c) {
            c.input = tensor({int64_t{1} << 40, 4, int64_t{1} << 20, 5});
            c.input.strides = {0, 0, 0, 0};
            c.input.storageShape = {1};
          }),
     kInvalid, "input"},
};
FORWARD_CASES(ConvStep6OutputShape, kStep6);

// Step 7: cubeMathType 0-4 (4 = USE_FP32_ADD is accepted and acts as 0).
const ForwardCase kStep7[] = {
    {"cubeMathType_5", with(conv2d(), [](C c) { c.cubeMathType = 5; }), kInvalid, "cubeMathType"},
    {"cubeMathType_negative", with(conv2d(), [](C c) { c.cubeMathType = -1; }), kInvalid,
     "cubeMathType"},
    {"cubeMathType_4_ok", with(conv2d(), [](C c) { c.cubeMathType = 4; }), kOk, ""},
    {"cubeMathType_1_ok", with(conv3d(), [](C c) { c.cubeMathType = 1; }), kOk, ""},
    {"cubeMathType_2_ok", with(conv1dTransposed(), [](C c) { c.cubeMathType = 2; }), kOk, ""},
    {"cubeMathType_3_ok", with(conv3dTransposed(), [](C c) { c.cubeMathType = 3; }), kOk, ""},
    {"order_output_shape_before_cubeMathType",
     with(conv2d(),
          [](C c) {
            c.cubeMathType = 9;
            c.output = tensor({2, 6, 3, 4});
          }),
     kInvalid, "output"},
};
FORWARD_CASES(ConvStep7CubeMathType, kStep7);

// Step 9.2 (decision 5): transposed fp16/bf16 compute with an fp32 output -> 361001.
const ForwardCase kStep9[] = {
    {"transposed_fp16_to_fp32",
     with(conv2dTransposed(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.output.dtype = ACL_FLOAT;
          }),
     kRuntime, "output"},
    {"transposed_bf16_to_fp32",
     with(conv1dTransposed(),
          [](C c) {
            setDtypes(c, ACL_BF16);
            c.output.dtype = ACL_FLOAT;
          }),
     kRuntime, "output"},
    {"transposed_fp16_to_fp32_cubeMathType_2_ok",
     with(conv2dTransposed(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.output.dtype = ACL_FLOAT;
            c.cubeMathType = 2;
          }),
     kOk, ""},
    {"transposed_fp16_bf16_mix_is_fp32_ok",
     with(conv3dTransposed(),
          [](C c) {
            c.input.dtype = ACL_FLOAT16;
            c.weight.dtype = ACL_BF16;
          }),
     kOk, ""},
    {"transposed_fp16_to_bf16_ok",
     with(conv2dTransposed(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.output.dtype = ACL_BF16;
          }),
     kOk, ""},
    // Only when input, weight and output are all non-empty.
    {"transposed_fp16_to_fp32_empty_ok",
     with(conv2dTransposed(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.output.dtype = ACL_FLOAT;
            c.input = tensor({0, 4, 3, 3}, ACL_FLOAT16);
            c.output = tensor({0, 6, 6, 7});
          }),
     kOk, ""},
};
FORWARD_CASES(ConvStep9TransposedKernel, kStep9);

// Section 7: empty tensors.
const ForwardCase kEmpty[] = {
    {"batch_0_ok",
     with(conv2d(),
          [](C c) {
            c.input = tensor({0, 4, 5, 5});
            c.output = tensor({0, 6, 3, 3});
          }),
     kOk, ""},
    {"transposed_batch_0_ok",
     with(conv2dTransposed(),
          [](C c) {
            c.input = tensor({0, 4, 3, 3});
            c.output = tensor({0, 6, 6, 7});
          }),
     kOk, ""},
    // input C = weight C = 0 (groups 1): output [2, 6, 5] non-empty.
    {"channels_0_nonempty_output",
     with(conv1d(),
          [](C c) {
            c.input = tensor({2, 0, 9});
            c.weight = tensor({6, 0, 3});
          }),
     kInvalid, "output"},
    {"input_channels_0_weight_not",
     with(conv1d(),
          [](C c) {
            c.input = tensor({2, 0, 9});
          }),
     kInvalid, "input"},
    {"weight_channels_0_input_not",
     with(conv1d(),
          [](C c) {
            c.weight = tensor({6, 0, 3});
          }),
     kInvalid, "input"},
    // L' = (1 - 1)*1 - 2 + 1 + 0 + 1 = 0: nothing to compute.
    {"transposed_extent_0_ok",
     with(conv1dTransposed(),
          [](C c) {
            c.input = tensor({1, 3, 1});
            c.weight = tensor({3, 2, 2});
            c.stride = std::vector<int64_t>{1};
            c.dilation = std::vector<int64_t>{1};
            c.outputPadding = std::vector<int64_t>{0};
            c.output = tensor({1, 2, 0});
          }),
     kOk, ""},
    {"output_channels_0_ok",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({0, 2, 3, 3});
            c.bias = tensor({0});
            c.output = tensor({2, 0, 3, 3});
          }),
     kOk, ""},
    {"transposed_output_channels_0_ok",
     with(conv2dTransposed(),
          [](C c) {
            c.weight = tensor({4, 0, 3, 3});
            c.bias = tensor({0});
            c.output = tensor({2, 0, 6, 7});
          }),
     kOk, ""},
    {"empty_input_spatial_empty_output_ok",
     with(conv1d(),
          [](C c) {
            c.input = tensor({2, 4, 0});
            c.padding = std::vector<int64_t>{1};
            c.stride = std::vector<int64_t>{1};
            c.output = tensor({2, 6, 0});
          }),
     kOk, ""},
    // Section 6.6: the division truncates toward zero. W = 0, k = 1, stride 2:
    // trunc(-1 / 2) + 1 = 1, so with N = 0 the output must be [0, 6, 1] ...
    {"truncation_toward_zero_ok",
     with(conv1d(),
          [](C c) {
            c.input = tensor({0, 4, 0});
            c.weight = tensor({6, 4, 1});
            c.padding = std::vector<int64_t>{0};
            c.output = tensor({0, 6, 1});
          }),
     kOk, ""},
    // ... and floor's [0, 6, 0] is rejected.
    {"truncation_toward_zero_floor_shape_rejected",
     with(conv1d(),
          [](C c) {
            c.input = tensor({0, 4, 0});
            c.weight = tensor({6, 4, 1});
            c.padding = std::vector<int64_t>{0};
            c.output = tensor({0, 6, 0});
          }),
     kInvalid, "output"},
};
FORWARD_CASES(ConvEmpty, kEmpty);

// Valid baselines compute the reference's values exactly (grid data).
const ForwardCase kCompute[] = {
    {"conv1d", conv1d(), kOk, ""},
    {"conv2d", conv2d(), kOk, ""},
    {"conv3d", conv3d(), kOk, ""},
    {"conv1d_transposed", conv1dTransposed(), kOk, ""},
    {"conv2d_transposed", conv2dTransposed(), kOk, ""},
    {"conv3d_transposed", conv3dTransposed(), kOk, ""},
    {"conv2d_fp16_cubeMathType_2",
     with(conv2d(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.cubeMathType = 2;
          }),
     kOk, ""},
    // Strided, offset views for every tensor.
    {"conv2d_strided_views",
     with(conv2d(),
          [](C c) {
            c.input.strides = {200, 50, 10, 2};
            c.input.offset = 3;
            c.input.storageShape = {410};
            c.output.strides = {1, 2, 36, 12};
            c.output.offset = 1;
            c.output.storageShape = {110};
            c.bias.strides = {3};
            c.bias.storageShape = {18};
          }),
     kOk, ""},
};
FORWARD_CASES(ConvCompute, kCompute);

}  // namespace
}  // namespace conformance
