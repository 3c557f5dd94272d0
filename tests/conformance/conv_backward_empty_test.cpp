// convolution-backward.md section 3 step 11 and the section 7 table, with
// project decision 4: in the empty path gradBias is the true sum of
// gradOutput, gradWeight is zero and gradInput is never written.

#include "conv_case_table.h"

namespace conformance {
namespace {

using C = ConvCall&;

// conv2d() with batch 0: input [0,4,5,5], weight [6,2,3,3], gradOutput [0,6,3,3].
ConvCall emptyBatch() {
  return with(conv2d(), [](C c) {
    c.input.shape[0] = c.gradOutput.shape[0] = 0;
    deriveOutputs(c);
  });
}

// conv2dTransposed() with batch 0: input [0,4,3,3], gradOutput [0,6,6,7].
ConvCall emptyBatchTransposed() {
  return with(conv2dTransposed(), [](C c) {
    c.input.shape[0] = c.gradOutput.shape[0] = 0;
    deriveOutputs(c);
  });
}

// input [2,4,0,5] with a 1x1 kernel and padding 1: gradOutput [2,6,2,7] is non-empty.
ConvCall emptySpatial() {
  return with(conv2d(), [](C c) {
    c.input.shape = {2, 4, 0, 5};
    c.weight.shape = {6, 2, 1, 1};
    c.gradOutput.shape = {2, 6, 2, 7};
    c.stride = c.dilation = std::vector<int64_t>{1, 1};
    c.padding = std::vector<int64_t>{1, 1};
    deriveOutputs(c);
  });
}

// One case per row of the section 7 table.
const ConvCase kSection7[] = {
    {"row1_batch0_not_transposed", emptyBatch(), kOk, ""},
    {"row2_input_channels0_gradBias_true_sum",
     with(conv2d(),
          [](C c) {
            c.input.shape[1] = 0;
            c.weight.shape[1] = 0;
            c.groups = 1;
            deriveOutputs(c);
          }),
     kOk, ""},
    {"row3_input_channels0_weight_channels_nonzero",
     with(conv2d(),
          [](C c) {
            c.input.shape[1] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"row4_weight_cout0_mask0_true",
     with(conv2d(),
          [](C c) {
            c.weight.shape[0] = c.gradOutput.shape[1] = 0;
            c.biasSizes = std::vector<int64_t>{0};
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"row5_weight_cout0_mask0_false",
     with(conv2d(),
          [](C c) {
            c.weight.shape[0] = c.gradOutput.shape[1] = 0;
            c.biasSizes = std::vector<int64_t>{0};
            deriveOutputs(c);
            c.outputMask = mask(0, 1, 1);
          }),
     kOk, ""},
    {"row6_transposed_batch0", emptyBatchTransposed(), kOk, ""},
    {"row7_transposed_input_channels0",
     with(conv2dTransposed(),
          [](C c) {
            c.input.shape[1] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"row7_transposed_input_channels0_weight0",
     with(conv2dTransposed(),
          [](C c) {
            c.input.shape[1] = 0;
            c.weight.shape[0] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"row8_only_spatial_empty_mask0_true", emptySpatial(), kInvalid, ""},
    {"row9_gradOutput_empty_input_weight_nonempty",
     with(conv2d(),
          [](C c) {
            c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"row10_biasSizes_null", with(emptyBatch(), [](C c) { c.biasSizes.reset(); }), kInvalid,
     "biasSizes"},
    {"row10_biasSizes_length2",
     with(emptyBatch(),
          [](C c) {
            c.biasSizes = std::vector<int64_t>{6, 6};
          }),
     kInvalid, "biasSizes"},
    {"row10_biasSizes_wrong_value",
     with(emptyBatch(), [](C c) { c.biasSizes = std::vector<int64_t>{5}; }), kInvalid, "biasSizes"},
};
CONV_CASES(Section7EmptyTable, kSection7);

// Step 11 sub-rules beyond the table, and what the empty path does not check.
const ConvCase kStep11[] = {
    // 11.1
    {"biasSizes_transposed_must_be_weight1_times_groups",
     with(emptyBatchTransposed(), [](C c) { c.biasSizes = std::vector<int64_t>{4}; }), kInvalid,
     "biasSizes"},
    {"biasSizes_null_mask2_false",
     with(emptyBatch(),
          [](C c) {
            c.biasSizes.reset();
            c.outputMask = mask(1, 1, 0);
          }),
     kOk, ""},
    {"biasSizes_empty_array", with(emptyBatch(), [](C c) { c.biasSizes = std::vector<int64_t>{}; }),
     kInvalid, "biasSizes"},
    // 11.2
    {"only_spatial_empty_mask0_false_gradBias_true_sum",
     with(emptySpatial(), [](C c) { c.outputMask = mask(0, 1, 1); }), kOk, ""},
    {"weight_empty_input_nonempty_mask0_true",
     with(conv2d(),
          [](C c) {
            c.weight.shape[2] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    // 11.3
    {"stride_length_wrong", with(emptyBatch(), [](C c) { c.stride = std::vector<int64_t>{1}; }),
     kInvalid, "stride"},
    {"outputPadding_length_wrong",
     with(emptyBatch(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 0, 0};
          }),
     kInvalid, "outputPadding"},
    {"padding_length_4_accepted",
     with(emptyBatch(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1, 1};
          }),
     kOk, ""},
    // 11.4
    {"weight0_not_multiple_of_groups",
     with(emptyBatch(),
          [](C c) {
            c.weight.shape[0] = c.gradOutput.shape[1] = 3;
            c.biasSizes = std::vector<int64_t>{3};
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"input_channels_not_multiple_of_weight1",
     with(emptyBatch(),
          [](C c) {
            c.input.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"channel_ratio_ne_groups", with(emptyBatch(), [](C c) { c.groups = 1; }), kInvalid, ""},
    {"weight1_zero_input_channels_nonzero",
     with(emptyBatch(),
          [](C c) {
            c.weight.shape[1] = 0;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"transposed_batch0_skips_channel_ratio",
     with(emptyBatchTransposed(),
          [](C c) {
            c.gradOutput.shape[1] = 5;  // 5 is not a multiple of weight[1] = 3
            deriveOutputs(c);
            c.gradBias = noTensor();
            c.outputMask = mask(1, 1, 0);
          }),
     kOk, ""},
    // 11.5
    {"transposed_weight0_ne_input_channels",
     with(emptyBatchTransposed(),
          [](C c) {
            c.input.shape[1] = 5;
            deriveOutputs(c);
          }),
     kInvalid, ""},
    // 11.6: input_i + 2*padding[i-2] - (dilation*(k-1)+1) >= 0.
    {"kernel_exceeds_padded_input",
     with(emptyBatch(),
          [](C c) {
            c.input.shape = {0, 4, 2, 2};
            c.padding = std::vector<int64_t>{0, 0};
            c.dilation = std::vector<int64_t>{1, 1};
            deriveOutputs(c);
          }),
     kInvalid, ""},
    {"kernel_fits_with_padding",
     with(emptyBatch(),
          [](C c) {
            c.input.shape = {0, 4, 1, 1};
            c.dilation = std::vector<int64_t>{1, 1};
            deriveOutputs(c);
          }),
     kOk, ""},
    // Quirk 9.7: a 4-element padding is read as padding[0] for H, padding[1] for W.
    // [0,1,1,1] fits by its true meaning (H 2+0+1-3 = 0, W 1+1+1-3 = 0) but not by
    // the quirk (H 2+0-3 < 0).
    {"quirk_padding4_positional_rejects",
     with(emptyBatch(),
          [](C c) {
            c.input.shape = {0, 4, 2, 1};
            c.padding = std::vector<int64_t>{0, 1, 1, 1};
            c.dilation = std::vector<int64_t>{1, 1};
            deriveOutputs(c);
          }),
     kInvalid, ""},
    // [1,1,0,0] does not fit by its true meaning (W 1+0+0-3 < 0) but fits by the
    // quirk (H 1+2-3 = 0, W 1+2-3 = 0).
    {"quirk_padding4_positional_accepts",
     with(emptyBatch(),
          [](C c) {
            c.input.shape = {0, 4, 1, 1};
            c.padding = std::vector<int64_t>{1, 1, 0, 0};
            c.dilation = std::vector<int64_t>{1, 1};
            deriveOutputs(c);
          }),
     kOk, ""},
    // 11.7: not checked in the empty path.
    {"no_rank_equality_check",
     with(emptyBatch(),
          [](C c) {
            c.gradOutput = tensor({0, 6, 3});
          }),
     kOk, ""},
    {"no_gradOutput_spatial_check",
     with(emptyBatch(),
          [](C c) {
            c.gradOutput.shape = {0, 6, 7, 1};
          }),
     kOk, ""},
    {"no_gradOutput_batch_check",
     with(emptyBatch(),
          [](C c) {
            c.gradOutput.shape = {3, 6, 3, 3};
          }),
     kOk, ""},
    {"no_gradInput_shape_check_and_never_written",
     with(emptyBatch(),
          [](C c) {
            c.gradInput.shape = {1, 2, 2, 2};
          }),
     kOk, ""},
    {"no_gradWeight_shape_check_zero_filled",
     with(emptyBatch(),
          [](C c) {
            c.gradWeight.shape = {2, 2, 2, 2};
          }),
     kOk, ""},
    // Step 7 precedes step 8: a step-8 error does not matter once input is empty.
    {"order_empty_exit_before_gradOutput_empty_check",
     with(emptyBatch(),
          [](C c) {
            c.gradOutput.shape = {0, 6, 0, 3};
          }),
     kOk, ""},
    // Step 12 is a compute-path error; the empty path runs no kernel.
    {"step12_condition_in_empty_path",
     with(conv3d(),
          [](C c) {
            c.input.shape[0] = c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
            setDtypes(c, ACL_BF16, ACL_FLOAT);
          }),
     kOk, ""},
    {"empty_path_masks_respected", with(emptyBatch(), [](C c) { c.outputMask = mask(0, 0, 1); }),
     kOk, ""},
    {"empty_path_3d_transposed_batch0",
     with(conv3dTransposed(),
          [](C c) {
            c.input.shape[0] = c.gradOutput.shape[0] = 0;
            deriveOutputs(c);
          }),
     kOk, ""},
    {"empty_path_1d_kernel0_gradBias_true_sum",
     with(conv1d(),
          [](C c) {
            c.weight.shape[2] = 0;
            c.padding = std::vector<int64_t>{0};
            c.gradOutput.shape[2] = 10;  // never checked in the empty path
            deriveOutputs(c);
            c.outputMask = mask(0, 1, 1);
          }),
     kOk, ""},
    {"empty_path_fp16_gradOutput_bf16_gradBias",
     with(emptySpatial(),
          [](C c) {
            c.outputMask = mask(0, 1, 1);
            c.gradOutput.dtype = ACL_FLOAT16;
            c.gradBias.dtype = ACL_BF16;
          }),
     kOk, ""},
    // Upstream UT (transposed, all fp16, mask TTT): gradOutput has no
    // elements, so every channel's true sum is zero and a 1-channel gradBias
    // is zero-filled although gradOutput has 100 channels (issue #7, item 8).
    {"upstream_transposed_empty_gradOutput_short_gradBias",
     with(conv3dTransposed(),
          [](C c) {
            c.gradOutput.shape = {100, 100, 0, 1, 1};
            c.input.shape = {0, 1, 0, 1, 1};
            c.weight.shape = {1, 1, 0, 1, 1};
            c.stride = c.dilation = std::vector<int64_t>{1, 1, 1};
            c.padding = c.outputPadding = std::vector<int64_t>{0, 0, 0};
            c.biasSizes = std::vector<int64_t>{1};
            deriveOutputs(c);
            c.gradBias.shape = {1};
            setDtypes(c, ACL_FLOAT16, ACL_FLOAT16);
          }),
     kOk, ""},
    // The same with a longer gradBias: still all zeros, nothing past it written.
    {"empty_gradOutput_long_gradBias_zero_filled",
     with(emptyBatch(), [](C c) { c.gradBias.shape = {9}; }), kOk, ""},
    // A non-empty gradOutput has real sums: gradBias must hold one per channel.
    {"empty_path_nonempty_gradOutput_gradBias_length_mismatch",
     with(emptySpatial(),
          [](C c) {
            c.outputMask = mask(0, 1, 1);
            c.gradBias.shape = {5};
          }),
     kInvalid, "gradBias"},
};
CONV_CASES(Step11EmptyPath, kStep11);

}  // namespace
}  // namespace conformance
