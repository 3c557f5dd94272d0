// aclnnConvTbc: convolution-forward.md section 5, one case per rule (steps
// T1-T8 in order), the empty-tensor rows of section 7, decisions 2, 3 and 9.

#include "conformance_forward/forward_call.h"

namespace conformance {
namespace {

using C = ForwardCall&;

const ForwardCase kTbc[] = {
    // T1
    {"self_null", with(tbc(), [](C c) { c.input = noTensor(); }), kNull, "self"},
    {"weight_null", with(tbc(), [](C c) { c.weight = noTensor(); }), kNull, "weight"},
    {"bias_null_mandatory", with(tbc(), [](C c) { c.bias = noTensor(); }), kNull, "bias"},
    {"output_null", with(tbc(), [](C c) { c.output = noTensor(); }), kNull, "output"},
    // T2
    {"bias_int32", with(tbc(), [](C c) { c.bias.dtype = ACL_INT32; }), kInvalid, "bias"},
    {"self_double",
     with(tbc(), [](C c) { c.input.dtype = c.weight.dtype = c.output.dtype = ACL_DOUBLE; }),
     kInvalid, "self"},
    {"weight_differs_from_self", with(tbc(), [](C c) { c.weight.dtype = ACL_FLOAT16; }), kInvalid,
     "weight"},
    {"output_differs_from_weight", with(tbc(), [](C c) { c.output.dtype = ACL_BF16; }), kInvalid,
     "output"},
    {"bias_dtype_free_ok", with(tbc(), [](C c) { c.bias.dtype = ACL_FLOAT16; }), kOk, ""},
    {"bf16_with_fp16_bias_ok",
     with(tbc(),
          [](C c) {
            c.input.dtype = c.weight.dtype = c.output.dtype = ACL_BF16;
            c.bias.dtype = ACL_FLOAT16;
          }),
     kOk, ""},
    // T3 (decision 2)
    {"self_rank2",
     with(tbc(),
          [](C c) {
            c.input = tensor({5, 6});
          }),
     kInvalid, "self"},
    {"weight_rank4",
     with(tbc(),
          [](C c) {
            c.weight = tensor({3, 3, 4, 1});
          }),
     kInvalid, "weight"},
    {"output_rank2",
     with(tbc(),
          [](C c) {
            c.output = tensor({5, 8});
          }),
     kInvalid, "output"},
    {"bias_rank2",
     with(tbc(),
          [](C c) {
            c.bias = tensor({1, 4});
          }),
     kInvalid, "bias"},
    // T4
    {"self_format_nchw", with(tbc(), [](C c) { c.input.format = ACL_FORMAT_NCHW; }), kInvalid,
     "self"},
    {"weight_format_ncdhw", with(tbc(), [](C c) { c.weight.format = ACL_FORMAT_NCDHW; }), kInvalid,
     "weight"},
    {"output_format_nhwc", with(tbc(), [](C c) { c.output.format = ACL_FORMAT_NHWC; }), kInvalid,
     "output"},
    {"ncl_formats_ok",
     with(tbc(), [](C c) { c.input.format = c.weight.format = c.output.format = ACL_FORMAT_NCL; }),
     kOk, ""},
    {"bias_format_not_checked_ok", with(tbc(), [](C c) { c.bias.format = ACL_FORMAT_NCHW; }), kOk,
     ""},
    // T5
    {"self_negative_dim",
     with(tbc(),
          [](C c) {
            c.input = tensor({5, -2, 3});
          }),
     kInvalid, "self"},
    {"output_negative_dim",
     with(tbc(),
          [](C c) {
            c.output = tensor({5, 2, -4});
          }),
     kInvalid, "output"},
    {"bias_channels_wrong", with(tbc(), [](C c) { c.bias = tensor({3}); }), kInvalid, "bias"},
    {"kernel_0",
     with(tbc(),
          [](C c) {
            c.weight = tensor({0, 3, 4});
            c.output = tensor({8, 2, 4});
          }),
     kInvalid, "weight"},
    {"pad_negative", with(tbc(), [](C c) { c.pad = -1; }), kInvalid, "pad"},
    // T + pad < K: T = 1, K = 3, pad = 1 (T_out would be 1): rejected as upstream does.
    {"single_pad_rule",
     with(tbc(),
          [](C c) {
            c.input = tensor({1, 2, 3});
            c.output = tensor({1, 2, 4});
          }),
     kInvalid, "weight"},
    {"weight_channels_not_self_channels",
     with(tbc(),
          [](C c) {
            c.weight = tensor({3, 2, 4});
          }),
     kInvalid, "weight"},
    // T6
    {"output_time_wrong",
     with(tbc(),
          [](C c) {
            c.output = tensor({4, 2, 4});
          }),
     kInvalid, "output"},
    {"output_batch_wrong",
     with(tbc(),
          [](C c) {
            c.output = tensor({5, 3, 4});
          }),
     kInvalid, "output"},
    {"output_channels_wrong",
     with(tbc(),
          [](C c) {
            c.output = tensor({5, 2, 5});
          }),
     kInvalid, "output"},
    // T7
    {"cubeMathType_5", with(tbc(), [](C c) { c.cubeMathType = 5; }), kInvalid, "cubeMathType"},
    {"cubeMathType_4_ok", with(tbc(), [](C c) { c.cubeMathType = 4; }), kOk, ""},
    // T8 + decision 3: workspaceSize and executor checked last.
    {"workspaceSize_null", with(tbc(), [](C c) { c.nullWorkspaceSize = true; }), kNull,
     "workspaceSize"},
    {"executor_null", with(tbc(), [](C c) { c.nullExecutor = true; }), kNull, "executor"},
    {"order_cubeMathType_before_workspaceSize_null",
     with(tbc(),
          [](C c) {
            c.nullWorkspaceSize = true;
            c.cubeMathType = 6;
          }),
     kInvalid, "cubeMathType"},
    // Section 7 / decision 9.
    {"time_0_bias_broadcast_ok",
     with(tbc(),
          [](C c) {
            c.input = tensor({0, 2, 3});
            c.output = tensor({0 + 2 - 3 + 1, 2, 4});
            c.pad = 1;
          }),
     kOk, ""},
    {"input_channels_0_bias_broadcast_ok",
     with(tbc(),
          [](C c) {
            c.input = tensor({5, 2, 0});
            c.weight = tensor({3, 0, 4});
          }),
     kOk, ""},
    {"batch_0_ok",
     with(tbc(),
          [](C c) {
            c.input = tensor({5, 0, 3});
            c.output = tensor({5, 0, 4});
          }),
     kOk, ""},
    {"output_channels_0_ok",
     with(tbc(),
          [](C c) {
            c.weight = tensor({3, 3, 0});
            c.bias = tensor({0});
            c.output = tensor({5, 2, 0});
          }),
     kOk, ""},
    {"time_out_0_ok",
     with(tbc(),
          [](C c) {
            c.input = tensor({0, 2, 3});
            c.weight = tensor({1, 3, 4});
            c.pad = 0;
            c.output = tensor({0, 2, 4});
          }),
     kOk, ""},
    // Values (grid data, exact).
    {"compute_pad_1", tbc(), kOk, ""},
    {"compute_pad_0_fp16",
     with(tbc(),
          [](C c) {
            c.pad = 0;
            c.output = tensor({3, 2, 4}, ACL_FLOAT16);
            c.input.dtype = c.weight.dtype = ACL_FLOAT16;
          }),
     kOk, ""},
    {"compute_strided_self",
     with(tbc(),
          [](C c) {
            c.input.strides = {1, 5, 10};  // [T, B, C] stored as [C, B, T]
            c.input.storageShape = {30};
          }),
     kOk, ""},
};
FORWARD_CASES(ConvTbc, kTbc);

}  // namespace
}  // namespace conformance
