// A C caller may store any int in a tensor's dtype or format. The forward
// checks read both through their underlying integer (no undefined enum load,
// which UBSan would flag) and reject unknown values with 161002 and a
// message. The value is poked into the tensor's fields directly, since
// forming an out-of-range enum in this C++ test would itself be undefined.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "meta/meta_types.h"

namespace {

struct Tensor {
  std::vector<float> data;
  aclTensor* handle;
  Tensor(std::vector<int64_t> shape, aclFormat format) : data(256, 1.0f) {
    handle = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, nullptr, 0, format,
                             shape.data(), shape.size(), data.data());
  }
  ~Tensor() { aclDestroyTensor(handle); }
};

struct Array {
  aclIntArray* handle;
  explicit Array(std::vector<int64_t> v) : handle(aclCreateIntArray(v.data(), v.size())) {}
  ~Array() { aclDestroyIntArray(handle); }
};

void pokeDtype(aclTensor* t, int raw) { std::memcpy(&t->dataType, &raw, sizeof raw); }
void pokeFormat(aclTensor* t, int raw) { std::memcpy(&t->format, &raw, sizeof raw); }

void expectRejected(aclnnStatus status, const char* argument) {
  EXPECT_EQ(status, 161002);
  const char* message = aclGetRecentErrMsg();
  ASSERT_NE(message, nullptr);
  EXPECT_NE(std::string(message).find(argument), std::string::npos) << message;
}

// 0: poke the input's dtype, 1: the weight's format (no bias, so that the
// format step decides), 2: the bias's dtype.
aclnnStatus convolution(int which, int raw) {
  Tensor x({1, 2, 4, 4}, ACL_FORMAT_NCHW), w({3, 2, 3, 3}, ACL_FORMAT_NCHW), b({3}, ACL_FORMAT_ND),
      y({1, 3, 2, 2}, ACL_FORMAT_NCHW);
  if (which == 0) pokeDtype(x.handle, raw);
  if (which == 1) pokeFormat(w.handle, raw);
  if (which == 2) pokeDtype(b.handle, raw);
  Array ones({1, 1}), zeros({0, 0});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  return aclnnConvolutionGetWorkspaceSize(x.handle, w.handle, which == 2 ? b.handle : nullptr,
                                          ones.handle, zeros.handle, ones.handle, false,
                                          zeros.handle, 1, y.handle, 0, &size, &executor);
}

TEST(ForwardRawEnums, ConvolutionRejectsUnknownDtypesAndFormats) {
  for (int raw : {9999, -5, 1 << 30}) {
    expectRejected(convolution(0, raw), "input");
    expectRejected(convolution(1, raw), "weight: expected format NCHW");
    expectRejected(convolution(2, raw), "bias");
  }
}

TEST(ForwardRawEnums, DepthwiseAndConvTbcRejectUnknownDtypesAndFormats) {
  {
    Tensor x({1, 2, 4, 4}, ACL_FORMAT_NCHW), w({2, 1, 3, 3}, ACL_FORMAT_NCHW),
        y({1, 2, 2, 2}, ACL_FORMAT_NCHW);
    pokeFormat(y.handle, 777);
    Array kernel({3, 3}), ones({1, 1}), zeros({0, 0});
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    expectRejected(aclnnConvDepthwise2dGetWorkspaceSize(x.handle, w.handle, kernel.handle, nullptr,
                                                        ones.handle, zeros.handle, ones.handle,
                                                        y.handle, 0, &size, &executor),
                   "out: expected format NCHW");
  }
  {
    Tensor x({4, 1, 2}, ACL_FORMAT_ND), w({2, 2, 3}, ACL_FORMAT_ND), b({3}, ACL_FORMAT_ND),
        y({3, 1, 3}, ACL_FORMAT_ND);
    pokeDtype(w.handle, 4242);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    expectRejected(aclnnConvTbcGetWorkspaceSize(x.handle, w.handle, b.handle, 0, y.handle, 0, &size,
                                                &executor),
                   "weight");
  }
}

}  // namespace
