// Outputs that share memory with inputs: the operator reads every input
// before it writes an output through that memory, so an aliased call gives
// the same bits as one with separate buffers. (Results are written straight
// into dense fp32 outputs only when they overlap no input.)

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"

namespace {

struct Buffer {
  std::vector<float> values;
  explicit Buffer(size_t n, uint32_t seed) : values(n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : values) v = dist(rng);
  }
};

aclTensor* tensorOn(std::vector<int64_t> shape, float* data, aclFormat format) {
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, format, shape.data(),
                         shape.size(), data);
}

// Runs a 3x3, stride 1, pad 1 convolution backward (input and gradOutput
// have the same shape) with the given buffers for all six tensors.
void run(float* gradOutput, float* input, float* weight, float* gradInput, float* gradWeight,
         float* gradBias) {
  const std::vector<int64_t> act = {2, 8, 9, 9}, wshape = {8, 8, 3, 3}, bshape = {8};
  aclTensor* go = tensorOn(act, gradOutput, ACL_FORMAT_NCHW);
  aclTensor* in = tensorOn(act, input, ACL_FORMAT_NCHW);
  aclTensor* w = tensorOn(wshape, weight, ACL_FORMAT_NCHW);
  aclTensor* gi = tensorOn(act, gradInput, ACL_FORMAT_NCHW);
  aclTensor* gw = tensorOn(wshape, gradWeight, ACL_FORMAT_NCHW);
  aclTensor* gb = tensorOn(bshape, gradBias, ACL_FORMAT_ND);
  const int64_t ones[] = {1, 1}, zeros[] = {0, 0}, channels = 8;
  aclIntArray* stride = aclCreateIntArray(ones, 2);
  aclIntArray* padding = aclCreateIntArray(ones, 2);
  aclIntArray* dilation = aclCreateIntArray(ones, 2);
  aclIntArray* outputPadding = aclCreateIntArray(zeros, 2);
  aclIntArray* biasSizes = aclCreateIntArray(&channels, 1);
  const bool maskValues[] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(maskValues, 3);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnConvolutionBackwardGetWorkspaceSize(go, in, w, biasSizes, stride, padding,
                                                     dilation, false, outputPadding, 1, mask, 0, gi,
                                                     gw, gb, &workspaceSize, &executor),
            0);
  std::vector<unsigned char> workspace(workspaceSize + 1);
  ASSERT_EQ(aclnnConvolutionBackward(workspace.data(), workspaceSize, executor, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  for (aclTensor* t : {go, in, w, gi, gw, gb}) aclDestroyTensor(t);
  for (aclIntArray* a : {stride, padding, dilation, outputPadding, biasSizes})
    aclDestroyIntArray(a);
  aclDestroyBoolArray(mask);
}

TEST(Aliasing, GradInputOverGradOutputAndGradWeightOverWeight) {
  const size_t actCount = 2 * 8 * 9 * 9, wCount = 8 * 8 * 3 * 3;
  const Buffer gradOutput(actCount, 1), input(actCount, 2), weight(wCount, 3);

  // Separate buffers: the expected bits.
  std::vector<float> go = gradOutput.values, in = input.values, w = weight.values;
  std::vector<float> gi(actCount), gw(wCount), gb(8);
  run(go.data(), in.data(), w.data(), gi.data(), gw.data(), gb.data());

  // gradInput written over gradOutput, gradWeight over weight.
  std::vector<float> goAliased = gradOutput.values, wAliased = weight.values, gbAliased(8);
  std::vector<float> in2 = input.values;
  run(goAliased.data(), in2.data(), wAliased.data(), goAliased.data(), wAliased.data(),
      gbAliased.data());

  EXPECT_EQ(std::memcmp(goAliased.data(), gi.data(), actCount * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(wAliased.data(), gw.data(), wCount * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(gbAliased.data(), gb.data(), 8 * sizeof(float)), 0);
}

}  // namespace
