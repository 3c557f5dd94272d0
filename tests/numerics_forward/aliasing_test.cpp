// Outputs that share memory with inputs (decision 10 allows any views): the
// forward executors read every input before writing the output, so an
// in-place call (output on the input's own buffer, or on the bias's) gives
// the same bits as one with separate buffers.

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"

namespace {

std::vector<float> randomValues(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

aclTensor* on(std::vector<int64_t> shape, float* data, aclFormat format) {
  return aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, format, shape.data(),
                         shape.size(), data);
}

struct Array {
  aclIntArray* handle;
  explicit Array(std::vector<int64_t> v) : handle(aclCreateIntArray(v.data(), v.size())) {}
  ~Array() { aclDestroyIntArray(handle); }
};

using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

void launch(aclnnStatus phase1, uint64_t size, aclOpExecutor* executor, Phase2 phase2) {
  ASSERT_EQ(phase1, 0) << aclGetRecentErrMsg();
  std::vector<unsigned char> workspace(size + 1);
  ASSERT_EQ(phase2(workspace.data(), size, executor, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
}

// conv(x, w) + b with x [2, 8, 9, 9], w [8, 8, 1, 1], out [2, 8, 9, 9].
void convolution(float* x, float* w, float* b, float* out, bool transposed) {
  aclTensor* tx = on({2, 8, 9, 9}, x, ACL_FORMAT_NCHW);
  aclTensor* tw = on({8, 8, 1, 1}, w, ACL_FORMAT_NCHW);
  aclTensor* tb = on({8}, b, ACL_FORMAT_ND);
  aclTensor* to = on({2, 8, 9, 9}, out, ACL_FORMAT_NCHW);
  Array ones({1, 1}), zeros({0, 0});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus s =
      aclnnConvolutionGetWorkspaceSize(tx, tw, tb, ones.handle, zeros.handle, ones.handle,
                                       transposed, zeros.handle, 1, to, 0, &size, &executor);
  launch(s, size, executor, aclnnConvolution);
  for (aclTensor* t : {tx, tw, tb, to}) aclDestroyTensor(t);
}

// 3x3 depthwise, padding 1, multiplier 1: self [2, 8, 9, 9] -> out of the same shape.
void depthwise(float* x, float* w, float* b, float* out) {
  aclTensor* tx = on({2, 8, 9, 9}, x, ACL_FORMAT_NCHW);
  aclTensor* tw = on({8, 1, 3, 3}, w, ACL_FORMAT_NCHW);
  aclTensor* tb = on({8}, b, ACL_FORMAT_ND);
  aclTensor* to = on({2, 8, 9, 9}, out, ACL_FORMAT_NCHW);
  Array kernel({3, 3}), ones({1, 1});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus s = aclnnConvDepthwise2dGetWorkspaceSize(
      tx, tw, kernel.handle, tb, ones.handle, ones.handle, ones.handle, to, 0, &size, &executor);
  launch(s, size, executor, aclnnConvDepthwise2d);
  for (aclTensor* t : {tx, tw, tb, to}) aclDestroyTensor(t);
}

// K = 3, pad 1, C_in = C_out = 8: self [12, 3, 8] -> output of the same shape.
void convTbc(float* x, float* w, float* b, float* out) {
  aclTensor* tx = on({12, 3, 8}, x, ACL_FORMAT_ND);
  aclTensor* tw = on({3, 8, 8}, w, ACL_FORMAT_ND);
  aclTensor* tb = on({8}, b, ACL_FORMAT_ND);
  aclTensor* to = on({12, 3, 8}, out, ACL_FORMAT_ND);
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus s = aclnnConvTbcGetWorkspaceSize(tx, tw, tb, 1, to, 0, &size, &executor);
  launch(s, size, executor, aclnnConvTbc);
  for (aclTensor* t : {tx, tw, tb, to}) aclDestroyTensor(t);
}

using Op = std::function<void(float*, float*, float*, float*)>;

// Runs `op` with separate buffers, then with the output on the input's buffer
// and (for the first elements) on the bias's.
void expectAliasingIsHarmless(const Op& op, size_t inputCount, size_t weightCount) {
  const std::vector<float> x = randomValues(inputCount, 1), w = randomValues(weightCount, 2),
                           b = randomValues(8, 3);
  std::vector<float> x1 = x, w1 = w, b1 = b, separate(inputCount, -7.0f);
  op(x1.data(), w1.data(), b1.data(), separate.data());

  std::vector<float> inPlace = x, w2 = w, b2 = b;
  op(inPlace.data(), w2.data(), b2.data(), inPlace.data());
  EXPECT_EQ(inPlace, separate) << "output written over the input";

  // The output's first 8 elements are the bias.
  std::vector<float> shared(inputCount, 0.0f), x3 = x, w3 = w;
  std::copy(b.begin(), b.end(), shared.begin());
  op(x3.data(), w3.data(), shared.data(), shared.data());
  EXPECT_EQ(shared, separate) << "output written over the bias";
}

TEST(ForwardAliasing, OutputOverInputOrBias) {
  // aclInit and the device come from the suite's environment (numerics/op_runner.cpp).
  expectAliasingIsHarmless(
      [](float* x, float* w, float* b, float* o) { convolution(x, w, b, o, false); }, 2 * 8 * 81,
      64);
  expectAliasingIsHarmless(
      [](float* x, float* w, float* b, float* o) { convolution(x, w, b, o, true); }, 2 * 8 * 81,
      64);
  expectAliasingIsHarmless(depthwise, 2 * 8 * 81, 72);
  expectAliasingIsHarmless(convTbc, 12 * 3 * 8, 192);
}

}  // namespace
