// aclnnConvDepthwise2d: convolution-forward.md section 4, one case per rule
// (steps D1-D8 in order), the empty-tensor rows of section 7, decisions 2-3.

#include "conformance_forward/forward_call.h"

namespace conformance {
namespace {

using C = ForwardCall&;

const ForwardCase kDepthwise[] = {
    // D1
    {"self_null", with(depthwise(), [](C c) { c.input = noTensor(); }), kNull, "self"},
    {"weight_null", with(depthwise(), [](C c) { c.weight = noTensor(); }), kNull, "weight"},
    {"stride_null", with(depthwise(), [](C c) { c.stride.reset(); }), kNull, "stride"},
    {"padding_null", with(depthwise(), [](C c) { c.padding.reset(); }), kNull, "padding"},
    {"dilation_null", with(depthwise(), [](C c) { c.dilation.reset(); }), kNull, "dilation"},
    {"out_null", with(depthwise(), [](C c) { c.output = noTensor(); }), kNull, "out"},
    {"workspaceSize_null", with(depthwise(), [](C c) { c.nullWorkspaceSize = true; }), kNull,
     "workspaceSize"},
    {"executor_null", with(depthwise(), [](C c) { c.nullExecutor = true; }), kNull, "executor"},
    {"bias_null_ok", with(depthwise(), [](C c) { c.bias = noTensor(); }), kOk, ""},
    // Decision 3: kernelSize null -> 161001, but only at step D8 ...
    {"kernelSize_null", with(depthwise(), [](C c) { c.kernelSize.reset(); }), kNull, "kernelSize"},
    // ... so an earlier rule wins.
    {"order_stride_before_kernelSize_null",
     with(depthwise(),
          [](C c) {
            c.kernelSize.reset();
            c.stride = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "stride"},
    // D2
    {"bias_int32", with(depthwise(), [](C c) { c.bias.dtype = ACL_INT32; }), kInvalid, "bias"},
    {"bias_dtype_differs_from_self", with(depthwise(), [](C c) { c.bias.dtype = ACL_FLOAT16; }),
     kInvalid, "bias"},
    {"self_double", with(depthwise(), [](C c) { setDtypes(c, ACL_DOUBLE); }), kInvalid, "bias"},
    {"self_double_no_bias",
     with(depthwise(),
          [](C c) {
            setDtypes(c, ACL_DOUBLE);
            c.bias = noTensor();
          }),
     kInvalid, "self"},
    {"weight_differs_from_self", with(depthwise(), [](C c) { c.weight.dtype = ACL_FLOAT16; }),
     kInvalid, "weight"},
    {"out_differs_from_weight", with(depthwise(), [](C c) { c.output.dtype = ACL_BF16; }), kInvalid,
     "out"},
    {"all_fp16_ok", with(depthwise(), [](C c) { setDtypes(c, ACL_FLOAT16); }), kOk, ""},
    {"all_bf16_ok", with(depthwise(), [](C c) { setDtypes(c, ACL_BF16); }), kOk, ""},
    // D3
    {"self_rank3",
     with(depthwise(),
          [](C c) {
            c.input = tensor({2, 3, 5});
          }),
     kInvalid, "self"},
    {"weight_rank5",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({6, 1, 3, 3, 1});
          }),
     kInvalid, "weight"},
    {"out_rank3",
     with(depthwise(),
          [](C c) {
            c.output = tensor({2, 6, 10});
          }),
     kInvalid, "out"},
    {"bias_rank2",
     with(depthwise(),
          [](C c) {
            c.bias = tensor({1, 6});
          }),
     kInvalid, "bias"},
    {"stride_length_1", with(depthwise(), [](C c) { c.stride = std::vector<int64_t>{1}; }),
     kInvalid, "stride"},
    {"dilation_length_3",
     with(depthwise(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 1, 1};
          }),
     kInvalid, "dilation"},
    {"padding_length_4_symmetric_only",
     with(depthwise(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 0, 0};
          }),
     kInvalid, "padding"},
    // D4
    {"self_format_nhwc", with(depthwise(), [](C c) { c.input.format = ACL_FORMAT_NHWC; }), kInvalid,
     "self"},
    {"weight_format_nd", with(depthwise(), [](C c) { c.weight.format = ACL_FORMAT_ND; }), kInvalid,
     "weight"},
    {"out_format_nhwc", with(depthwise(), [](C c) { c.output.format = ACL_FORMAT_NHWC; }), kInvalid,
     "out"},
    {"bias_format_not_checked_ok", with(depthwise(), [](C c) { c.bias.format = ACL_FORMAT_NHWC; }),
     kOk, ""},
    // D5
    {"self_n_negative",
     with(depthwise(),
          [](C c) {
            c.input = tensor({-2, 3, 5, 5});
          }),
     kInvalid, "self"},
    {"weight_kernel_0",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({6, 1, 0, 3});
          }),
     kInvalid, "weight"},
    {"stride_0",
     with(depthwise(),
          [](C c) {
            c.stride = std::vector<int64_t>{1, 0};
          }),
     kInvalid, "stride"},
    {"dilation_0",
     with(depthwise(),
          [](C c) {
            c.dilation = std::vector<int64_t>{0, 1};
          }),
     kInvalid, "dilation"},
    {"padding_negative",
     with(depthwise(),
          [](C c) {
            c.padding = std::vector<int64_t>{-1, 0};
          }),
     kInvalid, "padding"},
    // W: 5 + 0 < 2*(3 - 1) + 1 = 5 fits; dilation 3 gives 7.
    {"kernel_larger_than_padded_self",
     with(depthwise(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 3};
          }),
     kInvalid, "weight"},
    {"weight_dim1_is_2",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({6, 2, 3, 3});
          }),
     kInvalid, "weight"},
    {"weight_dim0_not_multiple_of_channels",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({5, 1, 3, 3});
            c.bias = tensor({5});
            c.output = tensor({2, 5, 5, 2});
          }),
     kInvalid, "weight"},
    {"bias_channels_wrong", with(depthwise(), [](C c) { c.bias = tensor({3}); }), kInvalid, "bias"},
    // D6
    {"out_shape_wrong",
     with(depthwise(),
          [](C c) {
            c.output = tensor({2, 6, 5, 3});
          }),
     kInvalid, "out"},
    {"out_channels_wrong",
     with(depthwise(),
          [](C c) {
            c.output = tensor({2, 3, 5, 2});
          }),
     kInvalid, "out"},
    // D7
    {"cubeMathType_5", with(depthwise(), [](C c) { c.cubeMathType = 5; }), kInvalid,
     "cubeMathType"},
    {"cubeMathType_4_ok", with(depthwise(), [](C c) { c.cubeMathType = 4; }), kOk, ""},
    {"cubeMathType_1_ok", with(depthwise(), [](C c) { c.cubeMathType = 1; }), kOk, ""},
    // D8: decision 2 (fewer than 2 elements), the weight's H and W, extra elements ignored.
    {"kernelSize_one_element",
     with(depthwise(), [](C c) { c.kernelSize = std::vector<int64_t>{3}; }), kInvalid,
     "kernelSize"},
    {"kernelSize_h_wrong",
     with(depthwise(),
          [](C c) {
            c.kernelSize = std::vector<int64_t>{2, 3};
          }),
     kInvalid, "kernelSize[0]"},
    {"kernelSize_w_wrong",
     with(depthwise(),
          [](C c) {
            c.kernelSize = std::vector<int64_t>{3, 1};
          }),
     kInvalid, "kernelSize[1]"},
    {"kernelSize_extra_elements_ok",
     with(depthwise(),
          [](C c) {
            c.kernelSize = std::vector<int64_t>{3, 3, 9};
          }),
     kOk, ""},
    {"order_cubeMathType_before_kernelSize",
     with(depthwise(),
          [](C c) {
            c.cubeMathType = 7;
            c.kernelSize = std::vector<int64_t>{1, 1};
          }),
     kInvalid, "cubeMathType"},
    // Section 7.
    {"batch_0_ok",
     with(depthwise(),
          [](C c) {
            c.input = tensor({0, 3, 5, 5});
            c.output = tensor({0, 6, 5, 2});
          }),
     kOk, ""},
    {"self_channels_0_nonempty_out",
     with(depthwise(),
          [](C c) {
            c.input = tensor({2, 0, 5, 5});
          }),
     kInvalid, "out"},
    {"weight_dim1_0_nonempty_out",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({6, 0, 3, 3});
          }),
     kInvalid, "out"},
    // Values (grid data, exact).
    {"compute_multiplier_2", depthwise(), kOk, ""},
    {"compute_multiplier_1_dilated",
     with(depthwise(),
          [](C c) {
            c.weight = tensor({3, 1, 2, 2});
            c.kernelSize = std::vector<int64_t>{2, 2};
            c.bias = tensor({3});
            c.dilation = std::vector<int64_t>{2, 1};
            c.stride = std::vector<int64_t>{1, 1};
            c.padding = std::vector<int64_t>{0, 1};
            c.output = tensor({2, 3, 3, 6});
          }),
     kOk, ""},
    {"compute_fp16_cubeMathType_2",
     with(depthwise(),
          [](C c) {
            setDtypes(c, ACL_FLOAT16);
            c.cubeMathType = 2;
          }),
     kOk, ""},
};
FORWARD_CASES(Depthwise2d, kDepthwise);

}  // namespace
}  // namespace conformance
