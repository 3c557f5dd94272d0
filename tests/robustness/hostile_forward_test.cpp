// Hostile input for the forward operators: thousands of random, mostly
// invalid calls to aclnnConvolution, aclnnConvDepthwise2d and aclnnConvTbc.
// Whatever the arguments, phase 1 returns one of the documented statuses
// (with a message when it fails), and a call it accepts runs to completion
// without touching memory outside the caller's buffers (ASan and valgrind
// runs of this binary check the latter).

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "robustness/hostile_support.h"

namespace {

using namespace hostile;

using IntArrayPtr = std::unique_ptr<aclIntArray, aclnnStatus (*)(const aclIntArray*)>;

IntArrayPtr makeArray(const std::vector<int64_t>& values, bool null) {
  return {null ? nullptr : aclCreateIntArray(values.data(), values.size()), aclDestroyIntArray};
}

bool isDocumentedForwardStatus(aclnnStatus s) {
  return s == 0 || s == 161001 || s == 161002 || s == 361001 || s == 561103;
}

// A consistent forward call as plain values: 0 input, 1 weight, 2 bias, 3 output.
struct ForwardCall {
  std::vector<int64_t> shapes[4];
  aclDataType dtypes[4] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  aclFormat formats[4] = {ACL_FORMAT_NCHW, ACL_FORMAT_NCHW, ACL_FORMAT_ND, ACL_FORMAT_NCHW};
  std::vector<int64_t> arrays[5];  // stride, padding, dilation, outputPadding, kernelSize
  bool nulls[9] = {};              // the four tensors, then the five arrays
  bool transposed = false;
  int64_t groups = 1;
  int64_t pad = 0;
  int8_t math = 0;
};

ForwardCall consistentConvolution(Random& r) {
  ForwardCall c;
  const int d = static_cast<int>(r.between(1, 3));
  c.groups = r.pick({1, 1, 2});
  c.transposed = r.chance(0.4);
  const int64_t n = r.between(0, 2), xg = r.between(1, 2), yg = r.between(1, 2);
  std::vector<int64_t> x = {n, c.groups * xg}, y = {n, c.groups * yg}, w = {c.groups * yg, xg};
  for (int s = 0; s < d; ++s) {
    const int64_t k = r.between(1, 3), st = r.between(1, 2), p = r.between(0, 1),
                  dl = r.between(1, 2), in = r.between(dl * (k - 1) + 1, 6);
    x.push_back(in);
    y.push_back((in + 2 * p - dl * (k - 1) - 1) / st + 1);
    w.push_back(k);
    c.arrays[0].push_back(st);
    c.arrays[1].push_back(p);
    c.arrays[2].push_back(dl);
    c.arrays[3].push_back(0);
  }
  // Transposed: its input is the normal conv's y and its output the x whose
  // extent the transposed formula gives back (outputPadding 0 may not reach
  // it: then the shape rule rejects, which is fine for this test).
  c.shapes[0] = c.transposed ? y : x;
  c.shapes[3] = c.transposed ? x : y;
  c.shapes[1] = w;
  c.shapes[2] = {c.shapes[3][1]};
  const aclFormat format = d == 1 ? ACL_FORMAT_NCL : d == 2 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
  c.formats[0] = c.formats[1] = c.formats[3] = format;
  c.math = static_cast<int8_t>(r.between(0, 4));
  const aclDataType dtype = static_cast<aclDataType>(r.pick({ACL_FLOAT, ACL_FLOAT16, ACL_BF16}));
  for (auto& t : c.dtypes) t = dtype;
  return c;
}

void mutate(Random& r, ForwardCall& c) {
  switch (r.between(0, 9)) {
    case 0: {
      auto& t = c.shapes[r.between(0, 3)];
      if (!t.empty())
        t[static_cast<size_t>(r.between(0, static_cast<int64_t>(t.size()) - 1))] = hostileValue(r);
      break;
    }
    case 1:
      c.shapes[r.between(0, 3)].resize(static_cast<size_t>(r.between(0, 6)), 1);
      break;
    case 2:
      c.dtypes[r.between(0, 3)] = hostileDtype(r);
      break;
    case 3:
      c.formats[r.between(0, 3)] = r.chance(0.2) ? ACL_FORMAT_NDHWC : hostileFormat(r);
      break;
    case 4: {
      auto& a = c.arrays[r.between(0, 4)];
      if (!a.empty())
        a[static_cast<size_t>(r.between(0, static_cast<int64_t>(a.size()) - 1))] = hostileValue(r);
      break;
    }
    case 5:
      c.arrays[r.between(0, 4)].resize(static_cast<size_t>(r.between(0, 5)), 1);
      break;
    case 6:
      c.nulls[r.between(0, 8)] = true;
      break;
    case 7:
      c.groups = r.pick({0, -1, 2, 4, INT64_MAX});
      break;
    case 8:
      c.math = static_cast<int8_t>(r.pick({-1, 5, 127}));
      break;
    default:
      c.pad = hostileValue(r);
      break;
  }
}

struct Tensors {
  std::unique_ptr<HostileTensor> t[4];
  bool allBacked = true;
  explicit Tensors(const ForwardCall& c) {
    for (int i = 0; i < 4; ++i) {
      t[i] = std::make_unique<HostileTensor>(c.shapes[i], c.dtypes[i], c.formats[i]);
      allBacked = allBacked && t[i]->backed;
    }
  }
  aclTensor* get(const ForwardCall& c, int i) const { return c.nulls[i] ? nullptr : t[i]->tensor; }
};

using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Checks the status and, when accepted and safe to run, runs phase 2.
void finish(aclnnStatus status, const Tensors& tensors, uint64_t workspaceSize,
            aclOpExecutor* executor, Phase2 phase2, int iteration, int* rejected, int* ran) {
  ASSERT_TRUE(isDocumentedForwardStatus(status))
      << "iteration " << iteration << " status " << status;
  const char* message = aclGetRecentErrMsg();
  if (status != 0) {
    ASSERT_NE(message, nullptr) << "iteration " << iteration;
    ++*rejected;
    return;
  }
  if (!tensors.allBacked || workspaceSize > (uint64_t{64} << 20)) {
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), 0);
    return;
  }
  std::vector<unsigned char> workspace(workspaceSize + 64);
  ASSERT_EQ(phase2(workspace.data(), workspaceSize, executor, nullptr), 0)
      << "iteration " << iteration;
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << "iteration " << iteration;
  ++*ran;
}

class HostileForward : public ::testing::Test {
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

TEST_F(HostileForward, ConvolutionNeverCrashesAndAlwaysExplains) {
  Random r(20261201);
  int rejected = 0, ran = 0;
  for (int iteration = 0; iteration < 5000; ++iteration) {
    ForwardCall c = consistentConvolution(r);
    const int mutations = static_cast<int>(r.between(0, 3));
    for (int m = 0; m < mutations; ++m) mutate(r, c);
    const Tensors t(c);
    auto stride = makeArray(c.arrays[0], c.nulls[4]);
    auto padding = makeArray(c.arrays[1], c.nulls[5]);
    auto dilation = makeArray(c.arrays[2], c.nulls[6]);
    auto outputPadding = makeArray(c.arrays[3], c.nulls[7]);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnConvolutionGetWorkspaceSize(
        t.get(c, 0), t.get(c, 1), t.get(c, 2), stride.get(), padding.get(), dilation.get(),
        c.transposed, outputPadding.get(), c.groups, t.get(c, 3), c.math, &size, &executor);
    finish(status, t, size, executor, aclnnConvolution, iteration, &rejected, &ran);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(ran, 500);
}

TEST_F(HostileForward, Depthwise2dNeverCrashesAndAlwaysExplains) {
  Random r(808);
  int rejected = 0, ran = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    ForwardCall c;
    const int64_t n = r.between(0, 2), ch = r.between(0, 3), m = r.between(1, 2);
    const int64_t k = r.between(1, 3), p = r.between(0, 1), in = r.between(k, 6);
    c.shapes[0] = {n, ch, in, in};
    c.shapes[1] = {ch * m, 1, k, k};
    c.shapes[2] = {ch * m};
    c.shapes[3] = {n, ch * m, in + 2 * p - k + 1, in + 2 * p - k + 1};
    c.arrays[0] = {1, 1};
    c.arrays[1] = {p, p};
    c.arrays[2] = {1, 1};
    c.arrays[4] = {k, k};
    const int mutations = static_cast<int>(r.between(0, 2));
    for (int i = 0; i < mutations; ++i) mutate(r, c);
    const Tensors t(c);
    auto kernelSize = makeArray(c.arrays[4], c.nulls[8]);
    auto stride = makeArray(c.arrays[0], c.nulls[4]);
    auto padding = makeArray(c.arrays[1], c.nulls[5]);
    auto dilation = makeArray(c.arrays[2], c.nulls[6]);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnConvDepthwise2dGetWorkspaceSize(
        t.get(c, 0), t.get(c, 1), kernelSize.get(), t.get(c, 2), stride.get(), padding.get(),
        dilation.get(), t.get(c, 3), c.math, &size, &executor);
    finish(status, t, size, executor, aclnnConvDepthwise2d, iteration, &rejected, &ran);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(rejected, 500);
  EXPECT_GT(ran, 500);
}

TEST_F(HostileForward, ConvTbcNeverCrashesAndAlwaysExplains) {
  Random r(909);
  int rejected = 0, ran = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    ForwardCall c;
    const int64_t time = r.between(0, 5), b = r.between(0, 2), cin = r.between(0, 2),
                  cout = r.between(0, 2), k = r.between(0, 3);
    c.pad = r.between(0, 2);
    c.shapes[0] = {time, b, cin};
    c.shapes[1] = {k, cin, cout};
    c.shapes[2] = {cout};
    c.shapes[3] = {time + 2 * c.pad - k + 1, b, cout};
    for (auto& f : c.formats) f = ACL_FORMAT_ND;
    c.math = static_cast<int8_t>(r.between(0, 4));
    const int mutations = static_cast<int>(r.between(0, 2));
    for (int i = 0; i < mutations; ++i) mutate(r, c);
    const Tensors t(c);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnConvTbcGetWorkspaceSize(
        t.get(c, 0), t.get(c, 1), t.get(c, 2), c.pad, t.get(c, 3), c.math, &size, &executor);
    finish(status, t, size, executor, aclnnConvTbc, iteration, &rejected, &ran);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(rejected, 500);
  EXPECT_GT(ran, 500);
}

}  // namespace
