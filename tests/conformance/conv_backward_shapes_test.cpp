// convolution-backward.md section 3 steps 8, 9 and 10, with project
// decisions 2 (1D/2D gradOutput mismatch -> 161002) and 5 (64-bit overflow).

#include "conv_case_table.h"

namespace conformance {
namespace {

using C = ConvCall&;

// A view of `shape` over a single stored element (every stride 0), so that
// absurd shapes cost no memory.
TensorDesc hugeView(std::vector<int64_t> shape) {
  TensorDesc desc = tensor(shape);
  desc.strides.assign(shape.size(), 0);
  desc.storageShape = {1};
  return desc;
}

// Step 8: ranks, non-empty gradOutput, output shapes, array lengths.
const ConvCase kStep8[] = {
    {"rank_gradOutput_ne_input",
     with(conv2d(),
          [](C c) {
            c.gradOutput = tensor({2, 6, 9});
          }),
     kInvalid, ""},
    {"rank_input_ne_weight",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, 2, 3});
            c.gradWeight = c.weight;
          }),
     kInvalid, ""},
    {"rank_weight_3d_input_2d",
     with(conv2d(),
          [](C c) {
            c.weight = tensor({6, 2, 3, 3, 1});
            c.gradWeight = c.weight;
          }),
     kInvalid, ""},
    {"gradOutput_empty_batch",
     with(conv2d(),
          [](C c) {
            c.gradOutput.shape = {0, 6, 3, 3};
          }),
     kInvalid, "gradOutput"},
    {"gradOutput_empty_spatial",
     with(conv2d(),
          [](C c) {
            c.gradOutput.shape = {2, 6, 0, 3};
          }),
     kInvalid, "gradOutput"},
    {"gradInput_shape_mismatch",
     with(conv2d(),
          [](C c) {
            c.gradInput.shape = {2, 4, 5, 4};
          }),
     kInvalid, "gradInput"},
    {"gradInput_shape_mismatch_masked_off",
     with(conv2d(),
          [](C c) {
            c.gradInput.shape = {2, 4, 5, 4};
            c.outputMask = mask(0, 1, 1);
          }),
     kInvalid, "gradInput"},
    {"gradWeight_shape_mismatch",
     with(conv2d(),
          [](C c) {
            c.gradWeight.shape = {6, 4, 3, 3};
          }),
     kInvalid, "gradWeight"},
    {"gradWeight_shape_mismatch_masked_off",
     with(conv3d(),
          [](C c) {
            c.gradWeight.shape = {4, 2, 2, 3, 2};
            c.outputMask = mask(1, 0, 1);
          }),
     kInvalid, "gradWeight"},
    {"gradBias_rank2",
     with(conv2d(),
          [](C c) {
            c.gradBias.shape = {6, 1};
          }),
     kInvalid, "gradBias"},
    {"gradBias_length_mismatch", with(conv2d(), [](C c) { c.gradBias.shape = {5}; }), kInvalid,
     "gradBias"},
    {"gradBias_length_mismatch_masked_off",
     with(conv1d(),
          [](C c) {
            c.gradBias.shape = {7};
            c.outputMask = mask(1, 1, 0);
          }),
     kInvalid, "gradBias"},
    {"gradBias_transposed_uses_gradOutput_channels",
     with(conv2dTransposed(), [](C c) { c.gradBias.shape = {4}; }), kInvalid, "gradBias"},
    {"stride_length_1_in_2d", with(conv2d(), [](C c) { c.stride = std::vector<int64_t>{1}; }),
     kInvalid, "stride"},
    {"stride_length_0", with(conv1d(), [](C c) { c.stride = std::vector<int64_t>{}; }), kInvalid,
     "stride"},
    {"dilation_length_3_in_2d",
     with(conv2d(),
          [](C c) {
            c.dilation = std::vector<int64_t>{1, 2, 1};
          }),
     kInvalid, "dilation"},
    {"padding_length_3_in_2d",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1};
          }),
     kInvalid, "padding"},
    {"padding_length_4_in_1d",
     with(conv1d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1, 1};
          }),
     kInvalid, "padding"},
    {"padding_length_4_in_3d",
     with(conv3d(),
          [](C c) {
            c.padding = std::vector<int64_t>{0, 1, 0, 0};
          }),
     kInvalid, "padding"},
    {"outputPadding_length_1_in_2d",
     with(conv2d(), [](C c) { c.outputPadding = std::vector<int64_t>{0}; }), kInvalid,
     "outputPadding"},
    {"outputPadding_length_4_in_3d",
     with(conv3d(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 0, 0, 0};
          }),
     kInvalid, "outputPadding"},
    {"outputPadding_length_4_in_1d_transposed",
     with(conv1dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{2, 0, 0, 0};
          }),
     kInvalid, "outputPadding"},
};
CONV_CASES(Step8Structure, kStep8);

// Depthwise helper: input [1, C, 4, 4], weight [Cout, 1, 3, 3], stride 1, pad 0.
ConvCall depthwise(int64_t channels, int64_t outChannels, int groups) {
  return with(conv2d(), [=](C c) {
    c.input.shape = {1, channels, 4, 4};
    c.weight.shape = {outChannels, 1, 3, 3};
    c.gradOutput.shape = {1, outChannels, 2, 2};
    c.groups = groups;
    c.stride = c.dilation = std::vector<int64_t>{1, 1};
    c.padding = std::vector<int64_t>{0, 0};
    deriveOutputs(c);
  });
}

// Step 9: channels and groups, X = transposed ? gradOutput : input, Y the other.
const ConvCase kStep9[] = {
    {"gradOutput_channels_ne_weight0",
     with(conv2d(),
          [](C c) {
            c.gradOutput.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"input_channels_not_multiple_of_weight1",
     with(conv2d(),
          [](C c) {
            c.input.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"groups_ne_channel_ratio", with(conv2d(), [](C c) { c.groups = 1; }), kInvalid, "groups"},
    {"groups_above_channel_ratio", with(conv2d(), [](C c) { c.groups = 3; }), kInvalid, "groups"},
    {"depthwise_cout_not_multiple_of_groups", depthwise(3, 4, 3), kInvalid, ""},
    {"depthwise_cout_below_groups", depthwise(4, 2, 4), kInvalid, ""},
    {"transposed_input_channels_ne_weight0",
     with(conv2dTransposed(),
          [](C c) {
            c.input.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"transposed_gradOutput_channels_not_multiple",
     with(conv2dTransposed(),
          [](C c) {
            c.gradOutput.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"transposed_groups_ne_channel_ratio", with(conv2dTransposed(), [](C c) { c.groups = 1; }),
     kInvalid, "groups"},
    // Transposed depthwise: X = gradOutput has C == groups (6), Y = input has 4 < 6.
    {"transposed_depthwise_input_below_groups",
     with(conv2dTransposed(),
          [](C c) {
            c.input.shape = {1, 4, 3, 3};
            c.weight.shape = {4, 1, 3, 3};
            c.gradOutput.shape = {1, 6, 5, 5};
            c.groups = 6;
            c.stride = c.dilation = std::vector<int64_t>{1, 1};
            c.padding = c.outputPadding = std::vector<int64_t>{0, 0};
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"depthwise_valid", depthwise(3, 6, 3), kOk, ""},
    {"order_channels_before_spatial",
     with(conv3d(),
          [](C c) {
            c.gradOutput.shape = {1, 5, 9, 9, 9};
            deriveOutputs(c);
          }),
     kInvalid, ""},
};
CONV_CASES(Step9Channels, kStep9);

// Step 10 (3D in HEAD) and decision 2 (1D/2D, spatial and batch).
const ConvCase kStep10[] = {
    {"conv3d_gradOutput_depth_mismatch", with(conv3d(), [](C c) { c.gradOutput.shape[2] = 2; }),
     kInvalid, "gradOutput"},
    {"conv3d_gradOutput_height_mismatch", with(conv3d(), [](C c) { c.gradOutput.shape[3] = 4; }),
     kInvalid, "gradOutput"},
    {"conv3d_gradOutput_width_mismatch", with(conv3d(), [](C c) { c.gradOutput.shape[4] = 2; }),
     kInvalid, "gradOutput"},
    {"conv3d_kernel_exceeds_padded_input",
     with(conv3d(),
          [](C c) {
            c.input.shape[2] = 1;
            c.gradOutput.shape[2] = 1;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"conv3d_transposed_gradOutput_mismatch",
     with(conv3dTransposed(),
          [](C c) {
            c.gradOutput.shape[2] = 6;
            deriveOutputs(c);
          }),
     kInvalid, "gradOutput"},
    {"conv3d_gradOutput_batch_mismatch", with(conv3d(), [](C c) { c.gradOutput.shape[0] = 2; }),
     kInvalid, "gradOutput"},
    {"conv1d_gradOutput_length_mismatch", with(conv1d(), [](C c) { c.gradOutput.shape[2] = 4; }),
     kInvalid, "gradOutput"},
    {"conv1d_gradOutput_batch_mismatch", with(conv1d(), [](C c) { c.gradOutput.shape[0] = 3; }),
     kInvalid, "gradOutput"},
    {"conv2d_gradOutput_height_mismatch", with(conv2d(), [](C c) { c.gradOutput.shape[2] = 2; }),
     kInvalid, "gradOutput"},
    {"conv2d_gradOutput_width_mismatch", with(conv2d(), [](C c) { c.gradOutput.shape[3] = 4; }),
     kInvalid, "gradOutput"},
    {"conv2d_gradOutput_batch_mismatch", with(conv2d(), [](C c) { c.gradOutput.shape[0] = 1; }),
     kInvalid, "gradOutput"},
    {"conv1d_transposed_gradOutput_length_mismatch",
     with(conv1dTransposed(), [](C c) { c.gradOutput.shape[2] = 15; }), kInvalid, "gradOutput"},
    {"conv2d_transposed_gradOutput_height_mismatch",
     with(conv2dTransposed(), [](C c) { c.gradOutput.shape[2] = 8; }), kInvalid, "gradOutput"},
    {"conv2d_transposed_gradOutput_batch_mismatch",
     with(conv2dTransposed(), [](C c) { c.gradOutput.shape[0] = 1; }), kInvalid, "gradOutput"},
    // 4-element padding [top, bottom, left, right] = [1, 0, 0, 2] on input 4x5, kernel 3x3:
    // the true output is 3x5 (accepted in the success table). 4x3 is what indexing
    // padding by spatial position (H: 1+1, W: 0+0) would give; it is inconsistent.
    {"conv2d_padding4_positional_shape_rejected",
     with(conv2d(),
          [](C c) {
            c.input.shape = {1, 2, 4, 5};
            c.weight.shape = {2, 2, 3, 3};
            c.gradOutput.shape = {1, 2, 4, 3};
            c.groups = 1;
            c.stride = c.dilation = std::vector<int64_t>{1, 1};
            c.padding = std::vector<int64_t>{1, 0, 0, 2};
            deriveOutputs(c);
          }),
     kInvalid, "gradOutput"},
};
CONV_CASES(Step10Spatial, kStep10);

// Decision 5: element counts or byte sizes beyond 64-bit arithmetic.
const ConvCase kOverflow[] = {
    {"element_count_overflow",
     with(conv2d(),
          [](C c) {
            const int64_t n = int64_t{1} << 62;
            c.input = hugeView({n, 4, 5, 5});
            c.gradOutput = hugeView({n, 6, 3, 3});
            c.gradInput = hugeView({n, 4, 5, 5});
          }),
     kInvalid, ""},
    {"byte_size_overflow",
     with(conv2d(),
          [](C c) {
            const int64_t n = int64_t{1} << 62;  // 2^62 fp32 elements = 2^64 bytes
            c.input = hugeView({n, 1, 1, 1});
            c.weight = tensor({1, 1, 1, 1});
            c.gradOutput = hugeView({n, 1, 1, 1});
            c.groups = 1;
            c.stride = c.dilation = std::vector<int64_t>{1, 1};
            c.padding = std::vector<int64_t>{0, 0};
            c.gradInput = hugeView({n, 1, 1, 1});
            c.gradWeight = tensor({1, 1, 1, 1});
            c.gradBias = tensor({1});
          }),
     kInvalid, ""},
};
CONV_CASES(Decision5Overflow, kOverflow);

}  // namespace
}  // namespace conformance
