// Hostile input: thousands of random, mostly invalid calls to both operators.
// Whatever the arguments (negative or huge dims, any rank, dtype or format,
// attribute arrays of any length and value), phase 1 must return one of the
// documented statuses with a message, and a call it accepts must run to
// completion without touching memory outside the caller's buffers (ASan and
// valgrind runs of this binary check the latter).

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "robustness/hostile_support.h"

namespace {

using namespace hostile;

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

// A consistent convolution-backward call, as plain values, that mutate()
// then damages in a few random places.
struct ConvCall {
  std::vector<int64_t> gradOutput, input, weight, gradInput, gradWeight, gradBias;
  aclDataType dtypes[6] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  aclFormat formats[6];
  std::vector<int64_t> stride, padding, dilation, outputPadding, biasSizes;
  bool mask[4] = {};  // room for the 4-element mask that mutate() may ask for
  size_t maskLength = 3;
  bool transposed = false;
  int groups = 1;
  int8_t math = 0;
  bool nulls[9] =
      {};  // gradOutput, input, weight, biasSizes, stride, padding, gradInput, gradWeight, gradBias

  std::vector<int64_t>* tensors[6] = {&gradOutput, &input,      &weight,
                                      &gradInput,  &gradWeight, &gradBias};
  std::vector<int64_t>* arrays[5] = {&stride, &padding, &dilation, &outputPadding, &biasSizes};
};

ConvCall consistentCall(Random& r) {
  ConvCall c;
  const int d = static_cast<int>(r.between(1, 3));
  c.groups = static_cast<int>(r.pick({1, 1, 2, 3}));
  const int64_t n = r.between(0, 2), cig = r.between(0, 2), cog = r.between(1, 2);
  c.transposed = r.chance(0.3);
  std::vector<int64_t> x = {n, c.groups * cig}, y = {n, c.groups * cog};
  c.weight = {c.groups * cog, cig};
  for (int s = 0; s < d; ++s) {
    const int64_t k = r.between(1, 3), st = r.between(1, 2), p = r.between(0, 1),
                  dl = r.between(1, 2), in = r.between(1, 6);
    const int64_t out = (in + 2 * p - dl * (k - 1) - 1) / st + 1;
    x.push_back(in);
    y.push_back(out > 0 ? out : 1);
    c.weight.push_back(k);
    c.stride.push_back(st);
    c.padding.push_back(p);
    c.dilation.push_back(dl);
    c.outputPadding.push_back(0);
  }
  if (c.transposed) {
    // Transposed: input is the forward's y, gradOutput its x, and the weight
    // is [C_in of the transposed conv, C_out / groups, k...].
    c.input = y;
    c.gradOutput = x;
    std::swap(c.weight[0], c.weight[1]);
    c.weight[0] = y[1];
    c.weight[1] = cig;
  } else {
    c.input = x;
    c.gradOutput = y;
  }
  c.gradInput = c.input;
  c.gradWeight = c.weight;
  c.gradBias = {c.gradOutput[1]};
  c.biasSizes = {c.gradOutput[1]};
  for (int i = 0; i < 6; ++i) c.formats[i] = i == 5 ? ACL_FORMAT_ND : formatForRank(d + 2);
  for (bool& m : c.mask) m = r.chance(0.6);
  c.math = static_cast<int8_t>(r.between(0, 3));
  const aclDataType dtype = static_cast<aclDataType>(r.pick({ACL_FLOAT, ACL_FLOAT16, ACL_BF16}));
  for (auto& t : c.dtypes) t = dtype;
  return c;
}

void mutate(Random& r, ConvCall& c) {
  switch (r.between(0, 11)) {
    case 0: {  // a dim of a tensor
      auto& t = *c.tensors[r.between(0, 5)];
      if (!t.empty())
        t[static_cast<size_t>(r.between(0, static_cast<int64_t>(t.size()) - 1))] = hostileValue(r);
      break;
    }
    case 1: {  // a tensor's rank
      auto& t = *c.tensors[r.between(0, 5)];
      t.resize(static_cast<size_t>(r.between(0, 6)), 1);
      break;
    }
    case 2:
      c.dtypes[r.between(0, 5)] = hostileDtype(r);
      break;
    case 3:
      c.formats[r.between(0, 5)] = hostileFormat(r);
      break;
    case 4: {  // an attribute value
      auto& a = *c.arrays[r.between(0, 4)];
      if (!a.empty())
        a[static_cast<size_t>(r.between(0, static_cast<int64_t>(a.size()) - 1))] = hostileValue(r);
      break;
    }
    case 5:
      c.arrays[r.between(0, 4)]->resize(static_cast<size_t>(r.between(0, 5)), 1);
      break;
    case 6:
      c.nulls[r.between(0, 8)] = true;
      break;
    case 7:
      c.groups = static_cast<int>(r.pick({0, -1, 2, 4, INT32_MAX}));
      break;
    case 8:
      c.math = static_cast<int8_t>(r.pick({-1, 4, 127}));
      break;
    case 9:
      c.maskLength = static_cast<size_t>(r.pick({0, 2, 4}));
      break;
    case 10:
      c.transposed = !c.transposed;
      break;
    default:
      break;  // keep it valid
  }
}

std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)> makeArray(
    const std::vector<int64_t>& values, bool null) {
  return {null ? nullptr : aclCreateIntArray(values.data(), values.size()), aclDestroyIntArray};
}

bool isDocumentedStatus(aclnnStatus s) {
  return s == 0 || s == 161001 || s == 161002 || s == 561103;
}

class HostileInput : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    aclInit(nullptr);
    aclrtSetDevice(0);
  }
  static void TearDownTestSuite() {
    aclrtResetDevice(0);
    aclFinalize();
  }
};

TEST_F(HostileInput, ConvolutionBackwardNeverCrashesAndAlwaysExplains) {
  Random r(20261130);
  int accepted = 0, rejected = 0, ran = 0;
  for (int iteration = 0; iteration < 6000; ++iteration) {
    ConvCall c = consistentCall(r);
    const int mutations = static_cast<int>(r.between(0, 3));
    for (int m = 0; m < mutations; ++m) mutate(r, c);

    HostileTensor gradOutput(c.gradOutput, c.dtypes[0], c.formats[0]);
    HostileTensor input(c.input, c.dtypes[1], c.formats[1]);
    HostileTensor weight(c.weight, c.dtypes[2], c.formats[2]);
    HostileTensor gradInput(c.gradInput, c.dtypes[3], c.formats[3]);
    HostileTensor gradWeight(c.gradWeight, c.dtypes[4], c.formats[4]);
    HostileTensor gradBias(c.gradBias, c.dtypes[5], c.formats[5]);
    auto biasSizes = makeArray(c.biasSizes, c.nulls[3]);
    auto stride = makeArray(c.stride, c.nulls[4]);
    auto padding = makeArray(c.padding, c.nulls[5]);
    auto dilation = makeArray(c.dilation, false);
    auto outputPadding = makeArray(c.outputPadding, false);
    std::unique_ptr<aclBoolArray, aclnnStatus (*)(const aclBoolArray*)> mask(
        aclCreateBoolArray(c.mask, c.maskLength), aclDestroyBoolArray);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
        c.nulls[0] ? nullptr : gradOutput.tensor, c.nulls[1] ? nullptr : input.tensor,
        c.nulls[2] ? nullptr : weight.tensor, biasSizes.get(), stride.get(), padding.get(),
        dilation.get(), c.transposed, outputPadding.get(), c.groups, mask.get(), c.math,
        c.nulls[6] ? nullptr : gradInput.tensor, c.nulls[7] ? nullptr : gradWeight.tensor,
        c.nulls[8] ? nullptr : gradBias.tensor, &workspaceSize, &executor);
    ASSERT_TRUE(isDocumentedStatus(status)) << "iteration " << iteration << " status " << status;
    const char* message = aclGetRecentErrMsg();
    if (status != 0) {
      ASSERT_NE(message, nullptr) << "iteration " << iteration;
      ++rejected;
      continue;
    }
    ++accepted;
    const bool allBacked = gradOutput.backed && input.backed && weight.backed && gradInput.backed &&
                           gradWeight.backed && gradBias.backed;
    if (!allBacked || workspaceSize > (uint64_t{64} << 20)) {
      EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0);
      continue;
    }
    std::vector<unsigned char> workspace(workspaceSize + 64);
    ASSERT_EQ(aclnnConvolutionBackward(workspace.data(), workspaceSize, executor, nullptr), 0)
        << "iteration " << iteration;
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << "iteration " << iteration;
    ++ran;
  }
  // The generator must reach both the rejections and the compute path.
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(ran, 1000);
}

TEST_F(HostileInput, ConvTbcBackwardNeverCrashesAndAlwaysExplains) {
  Random r(7);
  int rejected = 0, ran = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const int64_t t = r.between(0, 5), b = r.between(1, 2), cin = r.between(0, 2),
                  cout = r.between(1, 2), k = r.between(0, 3), pad = r.between(0, 2);
    std::vector<int64_t> shapes[7] = {{t + 2 * pad + 1 - k, b, cout},
                                      {t, b, cin},
                                      {k, cin, cout},
                                      {cout},
                                      {t, b, cin},
                                      {k, cin, cout},
                                      {cout}};
    aclDataType dtypes[7];
    aclFormat formats[7];
    for (int i = 0; i < 7; ++i) {
      dtypes[i] = ACL_FLOAT;
      formats[i] = ACL_FORMAT_ND;
    }
    int64_t padValue = pad;
    const int mutations = static_cast<int>(r.between(0, 2));
    for (int m = 0; m < mutations; ++m) {
      const int which = static_cast<int>(r.between(0, 6));
      switch (r.between(0, 4)) {
        case 0:
          if (!shapes[which].empty()) shapes[which][0] = hostileValue(r);
          break;
        case 1:
          shapes[which].resize(static_cast<size_t>(r.between(0, 4)), 1);
          break;
        case 2:
          dtypes[which] = hostileDtype(r);
          break;
        case 3:
          formats[which] = hostileFormat(r);
          break;
        default:
          padValue = hostileValue(r);
          break;
      }
    }
    std::unique_ptr<HostileTensor> tensors[7];
    bool allBacked = true;
    for (int i = 0; i < 7; ++i) {
      tensors[i] = std::make_unique<HostileTensor>(shapes[i], dtypes[i], formats[i]);
      allBacked = allBacked && tensors[i]->backed;
    }
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnConvTbcBackwardGetWorkspaceSize(
        tensors[0]->tensor, tensors[1]->tensor, tensors[2]->tensor, tensors[3]->tensor, padValue,
        static_cast<int8_t>(r.between(-1, 4)), tensors[4]->tensor, tensors[5]->tensor,
        tensors[6]->tensor, &workspaceSize, &executor);
    ASSERT_TRUE(isDocumentedStatus(status)) << "iteration " << iteration;
    const char* message = aclGetRecentErrMsg();
    if (status != 0) {
      ASSERT_NE(message, nullptr);
      ++rejected;
      continue;
    }
    if (!allBacked) {
      EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0);
      continue;
    }
    std::vector<unsigned char> workspace(workspaceSize + 64);
    ASSERT_EQ(aclnnConvTbcBackward(workspace.data(), workspaceSize, executor, nullptr), 0);
    ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
    ++ran;
  }
  EXPECT_GT(rejected, 500);
  EXPECT_GT(ran, 500);
}

}  // namespace
