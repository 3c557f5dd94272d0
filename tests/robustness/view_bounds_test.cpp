// Phase-1 view rules (docs/input-validation.md): every view the operator
// reads or writes stays inside its storage, computed without overflow; an
// output never overlaps itself or another output. Regression cases of
// issue #7 findings 1, 2 and 5: each was accepted (status 0) before, and
// phase 2 then wrote outside the caller's buffer.

#include <cstdint>
#include <cstring>
#include <vector>

#include "api_suite.h"
#include "small_conv.h"

namespace robustness {
namespace {

constexpr aclnnStatus kInvalid = 161002;

using ViewBounds = ApiSuite;

// Plans with one damaged spec; expects 161002 naming `name` and `detail`.
void expectRejected(Slot slot, const TensorSpec& damaged, const char* name, const char* detail) {
  SmallConv call;
  call.spec[slot] = damaged;
  EXPECT_EQ(call.plan(), kInvalid) << name;
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, name)) << message;
  EXPECT_TRUE(mentions(message, detail)) << message;
}

TEST_F(ViewBounds, OutputOffsetPastAnExactlySizedBufferIsRejected) {
  // Finding 1: storage dims = view dims (32 elements), offset 64.
  TensorSpec gradInput = SmallConv().spec[kGradInput];
  gradInput.offset = 64;
  expectRejected(kGradInput, gradInput, "gradInput", "[64, 95]");
  expectRejected(kGradInput, gradInput, "gradInput", "storage [1, 2, 4, 4] of 32 elements");
  gradInput.offset = int64_t{1} << 40;
  expectRejected(kGradInput, gradInput, "gradInput", "storage");
  gradInput.offset = -1000;
  expectRejected(kGradInput, gradInput, "gradInput", "non-negative view offset");
}

TEST_F(ViewBounds, ViewReachingBeforeElementZeroIsRejected) {
  // A negative stride whose offset does not make room for it.
  TensorSpec input = SmallConv().spec[kInput];
  input.strides = {32, 16, 4, -1};
  input.offset = 2;
  expectRejected(kInput, input, "input", "start at or after element 0");
}

TEST_F(ViewBounds, AllZeroOutputStridesAreRejected) {
  TensorSpec gradWeight = SmallConv().spec[kGradWeight];
  gradWeight.strides = {0, 0, 0, 0};
  expectRejected(kGradWeight, gradWeight, "gradWeight", "more than once");
}

TEST_F(ViewBounds, OutputStridesThatInterleaveAreRejected) {
  // Strides 1 and 2 over extents 3 and 3: (h=2,w=0) and (h=0,w=1) collide.
  TensorSpec gradWeight = SmallConv().spec[kGradWeight];
  gradWeight.strides = {18, 9, 1, 2};
  expectRejected(kGradWeight, gradWeight, "gradWeight", "more than once");
}

TEST_F(ViewBounds, StrideOverflowIsRejected) {
  // Finding 2: strides {32, INT64_MAX, 4, 1}.
  TensorSpec gradInput = SmallConv().spec[kGradInput];
  gradInput.strides = {32, INT64_MAX, 4, 1};
  expectRejected(kGradInput, gradInput, "gradInput", "64-bit arithmetic");
}

TEST_F(ViewBounds, OffsetWhoseByteAddressOverflowsIsRejected) {
  // Finding 5: offset * element bytes overflowed in phase 1 (status 0).
  TensorSpec input = SmallConv().spec[kInput];
  input.offset = INT64_MAX / 2;
  input.hasStorage = false;  // owns its view's range: only the arithmetic can fail
  expectRejected(kInput, input, "input", "fits in 64 bits");
  input.hasStorage = true;
  expectRejected(kInput, input, "input", "inside its storage");
}

TEST_F(ViewBounds, ViewEndingAtInt64MaxIsRejected) {
  // Found by the ConvTbc fuzz target: the last element at INT64_MAX made the
  // byte-size check itself overflow (high + 1).
  TensorSpec input = SmallConv().spec[kInput];
  input.offset = INT64_MAX - 31;
  input.hasStorage = false;
  expectRejected(kInput, input, "input", "fits in 64 bits");
}

TEST_F(ViewBounds, StrideTooLargeForTheKernelsIndexArithmeticIsRejected) {
  // Found by the ConvolutionBackward fuzz target in CI: a stride near
  // INT64_MAX passed phase 1 (the output extent is then 1) and the kernels'
  // ceilDiv(offset, stride) overflowed. Stride 2^62 with a 1-wide kernel
  // over a 4-wide input gives a 1-wide output.
  SmallConv call;
  call.spec[kGradOutput].shape = {1, 2, 4, 1};
  call.spec[kGradInput].shape = call.spec[kInput].shape = {1, 2, 4, 4};
  call.spec[kWeight].shape = call.spec[kGradWeight].shape = {2, 2, 3, 1};
  call.stride[1] = int64_t{1} << 62;
  call.padding[1] = 0;
  EXPECT_EQ(call.plan(), kInvalid);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "below 2^61")) << message;
  EXPECT_TRUE(mentions(message, "stride 4611686018427387904")) << message;
}

TEST_F(ViewBounds, StorageDimsThatDoNotMultiplyAreRejected) {
  TensorSpec weight = SmallConv().spec[kWeight];
  weight.storage = {-1, 18};
  expectRejected(kWeight, weight, "weight", "storage dims");
}

TEST_F(ViewBounds, OutputsThatShareMemoryAreRejected) {
  // gradBias over the last two floats of gradWeight's 36-float buffer.
  SmallConv call;
  call.spec[kGradBias].dataFrom = kGradWeight;
  call.spec[kGradBias].dataOffsetBytes = 34 * 4;
  EXPECT_EQ(call.plan(), kInvalid);
  const std::string message = takeErrors();
  EXPECT_TRUE(mentions(message, "gradWeight and gradBias")) << message;
  EXPECT_TRUE(mentions(message, "share no memory")) << message;
  // Right after it is fine.
  SmallConv apart;
  apart.spec[kGradInput].dataFrom = kGradOutput;  // an output over an input stays allowed
  apart.spec[kGradBias].nullData = true;
  ASSERT_EQ(apart.plan(), 0) << takeErrors();
}

TEST_F(ViewBounds, MaskedOffOutputsAreNotChecked) {
  // Never written, so its view does not matter (as before).
  SmallConv call;
  call.mask[0] = false;
  call.spec[kGradInput].offset = 64;
  EXPECT_EQ(call.plan(), 0) << takeErrors();
}

// The results of a call whose tensors are all dense over their own storage.
std::vector<std::vector<float>> denseResults() {
  SmallConv call;
  EXPECT_EQ(call.plan(), 0) << takeErrors();
  EXPECT_EQ(call.launch(), 0) << takeErrors();
  EXPECT_EQ(call.synchronize(), ACL_SUCCESS) << takeErrors();
  return {call.values(kGradInput), call.values(kGradWeight), call.values(kGradBias)};
}

TEST_F(ViewBounds, ViewsInsideLargerStorageAreAcceptedAndComputeTheSameValues) {
  const auto expected = denseResults();
  // gradWeight [2,2,3,3] with strides {22, 11, 2, 3} (H and W strides do not
  // nest, yet no two elements share an address: 2h + 3w is injective for
  // h, w < 3), offset 1, in 45 elements of storage.
  SmallConv call;
  call.spec[kGradWeight].strides = {22, 11, 2, 3};
  call.spec[kGradWeight].offset = 1;
  call.spec[kGradWeight].storage = {45};
  // gradInput transposed in memory (W outermost), offset 3.
  call.spec[kGradInput].strides = {32, 1, 2, 8};
  call.spec[kGradInput].offset = 3;
  call.spec[kGradInput].storage = {35};
  ASSERT_EQ(call.plan(), 0) << takeErrors();
  ASSERT_EQ(call.launch(), 0) << takeErrors();
  ASSERT_EQ(call.synchronize(), ACL_SUCCESS) << takeErrors();
  const std::vector<float> gw = call.values(kGradWeight), gi = call.values(kGradInput);
  for (int co = 0; co < 2; ++co)
    for (int ci = 0; ci < 2; ++ci)
      for (int h = 0; h < 3; ++h)
        for (int w = 0; w < 3; ++w)
          EXPECT_EQ(gw[1 + co * 22 + ci * 11 + h * 2 + w * 3],
                    expected[1][((co * 2 + ci) * 3 + h) * 3 + w]);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 4; ++w)
        EXPECT_EQ(gi[3 + c + h * 2 + w * 8], expected[0][(c * 4 + h) * 4 + w]);
  EXPECT_EQ(call.values(kGradBias), expected[2]);
}

// Finding 6: out-of-range enum values were loaded through the enum types (UB
// that UBSan's enum check reports; the sanitizer build of this test aborted).
TEST_F(ViewBounds, OutOfRangeDtypeAndFormatAreReadAsIntegers) {
  TensorSpec gradOutput = SmallConv().spec[kGradOutput];
  gradOutput.rawDtype = 1000;
  expectRejected(kGradOutput, gradOutput, "gradOutput", "dtype 1000");
  gradOutput = SmallConv().spec[kGradOutput];
  gradOutput.rawFormat = 1000;
  expectRejected(kGradOutput, gradOutput, "gradOutput", "format 1000");
  TensorSpec gradBias = SmallConv().spec[kGradBias];
  gradBias.rawFormat = -7;
  expectRejected(kGradBias, gradBias, "gradBias", "format -7");

  SmallConv call;
  call.spec[kWeight].rawDtype = 1000;
  call.spec[kWeight].rawFormat = 77;
  EXPECT_EQ(call.plan(), kInvalid);
  takeErrors();
  aclDataType dtype;
  aclFormat format;
  ASSERT_EQ(aclGetDataType(call.tensor(kWeight), &dtype), 0);
  ASSERT_EQ(aclGetFormat(call.tensor(kWeight), &format), 0);
  int32_t rawDtype = 0, rawFormat = 0;
  std::memcpy(&rawDtype, &dtype, sizeof(rawDtype));
  std::memcpy(&rawFormat, &format, sizeof(rawFormat));
  EXPECT_EQ(rawDtype, 1000);
  EXPECT_EQ(rawFormat, 77);
}

}  // namespace
}  // namespace robustness
