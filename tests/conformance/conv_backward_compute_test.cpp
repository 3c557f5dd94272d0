// Accepted calls, run through phase 2 and checked against the float64
// oracle: masks, biasSizes, padding forms, transposed 1D/2D/3D, dtypes,
// cubeMathType, strided views, unenforced chip limits (decision 5), and the
// step-12 rule (decision 8).

#include "conv_case_table.h"

namespace conformance {
namespace {

using C = ConvCall&;

ConvCall withDtypes(ConvCall base, aclDataType inputs, aclDataType outputs) {
  setDtypes(base, inputs, outputs);
  return base;
}

ConvCall withCube(ConvCall base, aclDataType dtype, int8_t cubeMathType, DataPattern data) {
  setDtypes(base, dtype, ACL_FLOAT);
  base.cubeMathType = cubeMathType;
  base.data = data;
  return base;
}

// A single-channel 1D convolution, stride 1, for the chip-limit cases.
ConvCall simple1d(int64_t length, int64_t kernel, int64_t padding, int64_t dilation,
                  int64_t channels = 1) {
  ConvCall c = conv1d();
  c.input.shape = {1, channels, length};
  c.weight.shape = {1, channels, kernel};
  c.gradOutput.shape = {1, 1, length + 2 * padding - dilation * (kernel - 1)};
  c.stride = std::vector<int64_t>{1};
  c.padding = std::vector<int64_t>{padding};
  c.dilation = std::vector<int64_t>{dilation};
  deriveOutputs(c);
  return c;
}

TensorDesc view(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset,
                std::vector<int64_t> storage) {
  TensorDesc desc = tensor(std::move(shape));
  desc.strides = std::move(strides);
  desc.offset = offset;
  desc.storageShape = std::move(storage);
  return desc;
}

const ConvCase kMasks[] = {
    {"mask_all_false_outputs_untouched", with(conv2d(), [](C c) { c.outputMask = mask(0, 0, 0); }),
     kOk, ""},
    {"mask_all_false_null_outputs",
     with(conv2d(),
          [](C c) {
            c.outputMask = mask(0, 0, 0);
            c.gradInput = c.gradWeight = c.gradBias = noTensor();
          }),
     kOk, ""},
    {"mask_gradInput_only_null_others",
     with(conv2d(),
          [](C c) {
            c.outputMask = mask(1, 0, 0);
            c.gradWeight = c.gradBias = noTensor();
          }),
     kOk, ""},
    {"mask_gradWeight_only_null_others",
     with(conv3d(),
          [](C c) {
            c.outputMask = mask(0, 1, 0);
            c.gradInput = c.gradBias = noTensor();
          }),
     kOk, ""},
    {"mask_gradBias_only_null_others",
     with(conv1d(),
          [](C c) {
            c.outputMask = mask(0, 0, 1);
            c.gradInput = c.gradWeight = noTensor();
          }),
     kOk, ""},
    {"mask_gradWeight_off_but_present", with(conv2d(), [](C c) { c.outputMask = mask(1, 0, 1); }),
     kOk, ""},
    {"mask_transposed3d_gradWeight_only",
     with(conv3dTransposed(), [](C c) { c.outputMask = mask(0, 1, 0); }), kOk, ""},
};
CONV_CASES(ComputeMasks, kMasks);

const ConvCase kBiasSizes[] = {
    {"biasSizes_null_mask2_false_gradBias_null",
     with(conv2d(),
          [](C c) {
            c.biasSizes.reset();
            c.outputMask = mask(1, 1, 0);
            c.gradBias = noTensor();
          }),
     kOk, ""},
    {"biasSizes_null_mask2_true", with(conv3d(), [](C c) { c.biasSizes.reset(); }), kOk, ""},
    {"biasSizes_value_ignored_2048",
     with(conv2d(), [](C c) { c.biasSizes = std::vector<int64_t>{2048}; }), kOk, ""},
    {"biasSizes_length_ignored",
     with(conv1d(),
          [](C c) {
            c.biasSizes = std::vector<int64_t>{1, 2, 3};
          }),
     kOk, ""},
};
CONV_CASES(ComputeBiasSizes, kBiasSizes);

const ConvCase kGeometry[] = {
    {"conv1d", conv1d(), kOk, ""},
    {"conv2d_groups2", conv2d(), kOk, ""},
    {"conv3d_groups2", conv3d(), kOk, ""},
    {"conv1d_transposed", conv1dTransposed(), kOk, ""},
    {"conv2d_transposed_groups2", conv2dTransposed(), kOk, ""},
    {"conv3d_transposed", conv3dTransposed(), kOk, ""},
    // Transposed 1D depthwise-like: gradOutput C == groups, input C = 4 = 2 * groups.
    {"conv1d_transposed_groups2",
     with(conv1dTransposed(),
          [](C c) {
            c.input.shape = {1, 4, 3};
            c.weight.shape = {4, 1, 2};
            c.gradOutput.shape = {1, 2, 7};
            c.groups = 2;
            c.stride = std::vector<int64_t>{2};
            c.padding = std::vector<int64_t>{0};
            c.dilation = std::vector<int64_t>{1};
            c.outputPadding = std::vector<int64_t>{1};
            deriveOutputs(c);
          }),
     kOk, ""},
    // [top, bottom, left, right] = [1, 0, 0, 2]: H = 4+1-3+1 = 3, W = 5+2-3+1 = 5.
    {"conv2d_padding4_asymmetric",
     with(conv2d(),
          [](C c) {
            c.input.shape = {1, 2, 4, 5};
            c.weight.shape = {2, 2, 3, 3};
            c.gradOutput.shape = {1, 2, 3, 5};
            c.groups = 1;
            c.stride = c.dilation = std::vector<int64_t>{1, 1};
            c.padding = std::vector<int64_t>{1, 0, 0, 2};
            deriveOutputs(c);
          }),
     kOk, ""},
    // H = (7+0+2-3)/2+1 = 4, W = (6+1+1-2)/3+1 = 3.
    {"conv2d_padding4_strided_groups2",
     with(conv2d(),
          [](C c) {
            c.input.shape = {2, 4, 7, 6};
            c.weight.shape = {6, 2, 3, 2};
            c.gradOutput.shape = {2, 6, 4, 3};
            c.stride = std::vector<int64_t>{2, 3};
            c.dilation = std::vector<int64_t>{1, 1};
            c.padding = std::vector<int64_t>{0, 2, 1, 1};
            deriveOutputs(c);
          }),
     kOk, ""},
    {"conv2d_padding4_symmetric",
     with(conv2d(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 1, 1, 1};
          }),
     kOk, ""},
    {"conv2d_outputPadding4_zeros",
     with(conv2d(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 0, 0, 0};
          }),
     kOk, ""},
    // Transposed with [1, 0, 0, 1]: H = 4-1+2+1+1 = 7, W = 4-1+2+0+1 = 6.
    {"conv2d_transposed_padding4",
     with(conv2dTransposed(),
          [](C c) {
            c.padding = std::vector<int64_t>{1, 0, 0, 1};
            c.gradOutput.shape = {2, 6, 7, 6};
          }),
     kOk, ""},
    // Step 5.4: no upper bound on 1D/2D transposed outputPadding; the gradients
    // come from the actual gradOutput extent.
    {"conv2d_transposed_outputPadding_above_stride",
     with(conv2dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{3, 2};
          }),
     kOk, ""},
    {"conv3d_transposed_outputPadding_does_not_matter",
     with(conv3dTransposed(),
          [](C c) {
            c.outputPadding = std::vector<int64_t>{0, 0, 0};
          }),
     kOk, ""},
    {"conv2d_depthwise_multiplier2",
     with(conv2d(),
          [](C c) {
            c.input.shape = {2, 3, 5, 4};
            c.weight.shape = {6, 1, 2, 2};
            c.gradOutput.shape = {2, 6, 3, 5};  // H (5+2-3)/2+1, W (4+2-2)+1
            c.groups = 3;
            c.padding = std::vector<int64_t>{1, 1};
            c.dilation = std::vector<int64_t>{2, 1};
            c.stride = std::vector<int64_t>{2, 1};
            deriveOutputs(c);
          }),
     kOk, ""},
    // Input rows never touched by a window (stride 3 leaves a remainder) get 0.
    {"conv1d_stride_remainder",
     with(conv1d(),
          [](C c) {
            c.input.shape = {1, 4, 10};
            c.gradOutput.shape = {1, 6, 3};
            c.stride = std::vector<int64_t>{3};
            c.padding = std::vector<int64_t>{0};
            deriveOutputs(c);
          }),
     kOk, ""},
};
CONV_CASES(ComputeGeometry, kGeometry);

const ConvCase kDtypes[] = {
    {"fp16_all", withDtypes(conv2d(), ACL_FLOAT16, ACL_FLOAT16), kOk, ""},
    {"bf16_all", withDtypes(conv2d(), ACL_BF16, ACL_BF16), kOk, ""},
    {"bf16_inputs_fp32_outputs", withDtypes(conv1d(), ACL_BF16, ACL_FLOAT), kOk, ""},
    {"fp16_inputs_bf16_outputs", withDtypes(conv2dTransposed(), ACL_FLOAT16, ACL_BF16), kOk, ""},
    {"fp32_inputs_fp16_outputs", withDtypes(conv3d(), ACL_FLOAT, ACL_FLOAT16), kOk, ""},
    {"mixed_inputs_promote_fp32",
     with(conv2d(),
          [](C c) {
            c.gradOutput.dtype = ACL_FLOAT16;
            c.input.dtype = ACL_BF16;
            c.weight.dtype = ACL_FLOAT;
          }),
     kOk, ""},
    {"mixed_fp16_bf16_inputs_bf16_outputs",
     with(conv1dTransposed(),
          [](C c) {
            c.gradOutput.dtype = ACL_BF16;
            c.input.dtype = ACL_FLOAT16;
            c.weight.dtype = ACL_BF16;
            c.gradInput.dtype = c.gradWeight.dtype = c.gradBias.dtype = ACL_BF16;
          }),
     kOk, ""},
    {"each_output_its_own_dtype",
     with(conv2d(),
          [](C c) {
            c.gradInput.dtype = ACL_FLOAT16;
            c.gradWeight.dtype = ACL_BF16;
            c.gradBias.dtype = ACL_FLOAT16;
          }),
     kOk, ""},
    {"gradBias_from_fp16_gradOutput_as_fp32",
     with(conv2d(),
          [](C c) {
            c.gradOutput.dtype = ACL_FLOAT16;
            c.outputMask = mask(0, 0, 1);
          }),
     kOk, ""},
};
CONV_CASES(ComputeDtypes, kDtypes);

// Fine data tells KEEP (exact fp32) from HF32/fp16 operand rounding.
const ConvCase kCubeMathType[] = {
    {"fp32_keep_dtype", withCube(conv2d(), ACL_FLOAT, 0, DataPattern::Fine), kOk, ""},
    {"fp32_allow_down_precision_hf32", withCube(conv2d(), ACL_FLOAT, 1, DataPattern::Fine), kOk,
     ""},
    {"fp32_use_fp16", withCube(conv2d(), ACL_FLOAT, 2, DataPattern::Fine), kOk, ""},
    {"fp32_use_hf32", withCube(conv2d(), ACL_FLOAT, 3, DataPattern::Fine), kOk, ""},
    {"fp32_transposed3d_hf32", withCube(conv3dTransposed(), ACL_FLOAT, 1, DataPattern::Fine), kOk,
     ""},
    {"fp32_conv1d_use_fp16", withCube(conv1d(), ACL_FLOAT, 2, DataPattern::Fine), kOk, ""},
    {"fp16_cube0", withCube(conv2d(), ACL_FLOAT16, 0, DataPattern::Grid), kOk, ""},
    {"fp16_cube1", withCube(conv2d(), ACL_FLOAT16, 1, DataPattern::Grid), kOk, ""},
    {"fp16_cube2", withCube(conv2d(), ACL_FLOAT16, 2, DataPattern::Grid), kOk, ""},
    {"fp16_cube3", withCube(conv2d(), ACL_FLOAT16, 3, DataPattern::Grid), kOk, ""},
    {"bf16_cube0", withCube(conv1d(), ACL_BF16, 0, DataPattern::Grid), kOk, ""},
    {"bf16_cube1", withCube(conv1d(), ACL_BF16, 1, DataPattern::Grid), kOk, ""},
    {"bf16_cube2_computed_in_fp16", withCube(conv1d(), ACL_BF16, 2, DataPattern::Grid), kOk, ""},
    {"bf16_cube3", withCube(conv1d(), ACL_BF16, 3, DataPattern::Grid), kOk, ""},
};
CONV_CASES(ComputeCubeMathType, kCubeMathType);

const ConvCase kViews[] = {
    {"strided_views_in_and_out",
     with(conv2d(),
          [](C c) {
            c.gradOutput = view({2, 6, 3, 3}, {9, 18, 3, 1}, 0, {6, 2, 3, 3});  // N and C swapped
            c.input = view({2, 4, 5, 5}, {140, 35, 7, 1}, 2, {2, 4, 5, 7});     // padded rows
            c.weight = view({6, 2, 3, 3}, {18, 1, 6, 2}, 0, {6, 3, 3, 2});      // channels last
            c.gradInput = view({2, 4, 5, 5}, {120, 30, 5, 1}, 5, {2, 4, 6, 5});
            c.gradWeight = view({6, 2, 3, 3}, {18, 1, 6, 2}, 0, {6, 3, 3, 2});
            c.gradBias = view({6}, {2}, 1, {13});
          }),
     kOk, ""},
    {"strided_views_transposed1d",
     with(conv1dTransposed(),
          [](C c) {
            c.input = view({2, 3, 4}, {1, 8, 2}, 0, {3, 4, 2});
            c.gradInput = view({2, 3, 4}, {24, 8, 2}, 1, {2, 3, 4, 2});
          }),
     kOk, ""},
};
CONV_CASES(ComputeViews, kViews);

// Decision 5: the documented chip limits are not enforced.
const ConvCase kNoChipLimits[] = {
    {"padding_300", simple1d(2, 1, 300, 1), kOk, ""},
    {"dilation_300", simple1d(301, 2, 0, 300), kOk, ""},
    {"kernel_256", simple1d(260, 256, 0, 1, 2), kOk, ""},
    {"stride_64_in_3d",
     with(conv3d(),
          [](C c) {
            c.input.shape = {1, 1, 1, 1, 130};
            c.weight.shape = {1, 1, 1, 1, 2};
            c.gradOutput.shape = {1, 1, 1, 1, 3};
            c.groups = 1;
            c.stride = std::vector<int64_t>{1, 1, 64};
            c.padding = std::vector<int64_t>{0, 0, 0};
            c.dilation = std::vector<int64_t>{1, 1, 1};
            deriveOutputs(c);
          }),
     kOk, ""},
    {"groups_65536",
     with(conv1d(),
          [](C c) {
            c.input.shape = {1, 65536, 1};
            c.weight.shape = {65536, 1, 1};
            c.gradOutput.shape = {1, 65536, 1};
            c.groups = 65536;
            c.stride = std::vector<int64_t>{1};
            c.padding = std::vector<int64_t>{0};
            deriveOutputs(c);
          }),
     kOk, ""},
};
CONV_CASES(ComputeNoChipLimits, kNoChipLimits);

// conv3d() with groups 2 and the step-12 ingredients varied one at a time.
ConvCall step12(aclDataType operands, aclDataType gradWeight, int8_t cubeMathType) {
  return with(conv3d(), [=](C c) {
    c.gradOutput.dtype = c.input.dtype = c.weight.dtype = operands;
    c.gradWeight.dtype = gradWeight;
    c.cubeMathType = cubeMathType;
  });
}

// Transposed 3D with groups 2: input [1,4,2,3,2], weight [4,1,2,2,2], gradOutput C 2.
ConvCall transposed3dGroups2(aclDataType operands) {
  return with(conv3dTransposed(), [=](C c) {
    c.input.shape[1] = 4;
    c.weight.shape = {4, 1, 2, 2, 2};
    c.groups = 2;
    deriveOutputs(c);
    c.gradOutput.dtype = c.input.dtype = c.weight.dtype = operands;
  });
}

const ConvCase kStep12[] = {
    {"fp32_operands_fp32_gradWeight_cube0", step12(ACL_FLOAT, ACL_FLOAT, 0), kOk, ""},
    {"fp32_operands_fp32_gradWeight_cube1", step12(ACL_FLOAT, ACL_FLOAT, 1), kOk, ""},
    {"fp32_operands_fp32_gradWeight_cube3", step12(ACL_FLOAT, ACL_FLOAT, 3), kOk, ""},
    {"fp32_operands_fp32_gradWeight_cube2", step12(ACL_FLOAT, ACL_FLOAT, 2), kInvalid, ""},
    {"bf16_operands_fp32_gradWeight", step12(ACL_BF16, ACL_FLOAT, 0), kInvalid, ""},
    {"fp16_operands_fp32_gradWeight", step12(ACL_FLOAT16, ACL_FLOAT, 1), kInvalid, ""},
    {"fp16_operands_fp32_gradWeight_cube3", step12(ACL_FLOAT16, ACL_FLOAT, 3), kInvalid, ""},
    {"mixed_fp16_fp32_promotes_to_fp32",
     with(step12(ACL_FLOAT16, ACL_FLOAT, 0), [](C c) { c.weight.dtype = ACL_FLOAT; }), kOk, ""},
    {"mixed_bf16_fp16_promotes_to_fp32",
     with(step12(ACL_BF16, ACL_FLOAT, 0), [](C c) { c.input.dtype = ACL_FLOAT16; }), kOk, ""},
    {"mixed_bf16_fp16_cube2",
     with(step12(ACL_BF16, ACL_FLOAT, 2), [](C c) { c.input.dtype = ACL_FLOAT16; }), kInvalid, ""},
    {"bf16_operands_bf16_gradWeight", step12(ACL_BF16, ACL_BF16, 0), kOk, ""},
    {"fp16_operands_fp16_gradWeight_cube2", step12(ACL_FLOAT16, ACL_FLOAT16, 2), kOk, ""},
    {"bf16_operands_fp32_gradWeight_masked_off",
     with(step12(ACL_BF16, ACL_FLOAT, 0), [](C c) { c.outputMask = mask(1, 0, 1); }), kOk, ""},
    {"bf16_operands_fp32_gradWeight_groups1",
     with(step12(ACL_BF16, ACL_FLOAT, 0),
          [](C c) {
            c.weight.shape[1] = 4;
            c.groups = 1;
            deriveOutputs(c);
            c.gradWeight.dtype = ACL_FLOAT;
          }),
     kOk, ""},
    {"conv2d_bf16_operands_fp32_gradWeight_groups2",
     with(conv2d(), [](C c) { setDtypes(c, ACL_BF16, ACL_FLOAT); }), kOk, ""},
    {"transposed3d_groups2_fp32", transposed3dGroups2(ACL_FLOAT), kOk, ""},
    {"transposed3d_groups2_bf16_fp32_gradWeight", transposed3dGroups2(ACL_BF16), kInvalid, ""},
    // Order: step 12 comes after the shape checks of steps 8 to 10.
    {"order_shape_error_with_step12_condition",
     with(step12(ACL_BF16, ACL_FLOAT, 0), [](C c) { c.gradWeight.shape[0] = 5; }), kInvalid,
     "gradWeight"},
};
CONV_CASES(Step12Compute, kStep12);

}  // namespace
}  // namespace conformance
