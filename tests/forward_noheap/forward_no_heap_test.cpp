// The forward executors run on the caller's workspace only: after phase 1,
// an executor's run (gathers, the kernel pass, the bias add, the stores)
// makes no heap allocation, for every route (normal with bias and operand
// rounding, transposed, depthwise, ConvTbc, the empty-reduction bias path).
// The run is called directly on the executor so that the stream queue's own
// bookkeeping is not counted.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <cstdlib>
#include <new>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "executor/executor.h"
#include "executor/registry.h"

namespace {
std::atomic<bool> gCounting{false};
std::atomic<int> gAllocations{0};
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
#define ACLCPU_COUNT_ALLOCATIONS 0
#else
#define ACLCPU_COUNT_ALLOCATIONS 1
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (gCounting.load(std::memory_order_relaxed)) gAllocations.fetch_add(1);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

class Session : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  }
};
[[maybe_unused]] ::testing::Environment* const kSession =
    ::testing::AddGlobalTestEnvironment(new Session);

// Host memory is fine as "device" memory on this CPU implementation.
struct Tensor {
  std::vector<float> data;
  aclTensor* handle = nullptr;
  Tensor(std::vector<int64_t> shape, aclDataType dtype, aclFormat format) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    data.assign(static_cast<size_t>(count > 0 ? count : 1), 0.5f);  // fp16/bf16 use half of it
    handle = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format, shape.data(),
                             shape.size(), data.data());
  }
  ~Tensor() { aclDestroyTensor(handle); }
};

struct Array {
  aclIntArray* handle;
  explicit Array(std::vector<int64_t> v) : handle(aclCreateIntArray(v.data(), v.size())) {}
  ~Array() { aclDestroyIntArray(handle); }
};

int allocationsDuringRun(aclOpExecutor* handle, uint64_t workspaceSize) {
  // A handle is looked up, never dereferenced (executor/registry.h).
  const std::shared_ptr<aclOpExecutor> executor = aclcpu::LockedExecutorRegistry().share(handle);
  EXPECT_TRUE(executor);
  if (!executor) return -1;
  std::vector<unsigned char> storage(workspaceSize + 64);
  void* workspace =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) / 64 * 64);
  // The first run may start the shared compute pool (a one-time cost of the
  // process, not of phase 2); count the second.
  EXPECT_EQ(executor->run(executor->inputs, executor->outputs, workspace, workspaceSize), 0);
  gAllocations = 0;
  gCounting = true;
  const aclnnStatus status =
      executor->run(executor->inputs, executor->outputs, workspace, workspaceSize);
  gCounting = false;
  EXPECT_EQ(status, 0);
  return gAllocations.load();
}

void expectNoHeap(aclnnStatus phase1, aclOpExecutor* executor, uint64_t size) {
  ASSERT_EQ(phase1, 0) << aclGetRecentErrMsg();
#if ACLCPU_COUNT_ALLOCATIONS
  EXPECT_EQ(allocationsDuringRun(executor, size), 0);
#else
  allocationsDuringRun(executor, size);
#endif
  aclDestroyAclOpExecutor(executor);
}

TEST(ForwardNoHeap, ConvolutionWithBiasAndRounding) {
  for (int8_t cmt : {int8_t{0}, int8_t{1}, int8_t{2}}) {
    Tensor x({2, 16, 12, 12}, ACL_FLOAT, ACL_FORMAT_NCHW),
        w({8, 8, 3, 3}, ACL_FLOAT16, ACL_FORMAT_NCHW), b({8}, ACL_BF16, ACL_FORMAT_ND),
        y({2, 8, 12, 12}, ACL_FLOAT16, ACL_FORMAT_NCHW);
    Array stride({1, 1}), padding({1, 1}), dilation({1, 1}), outputPadding({0, 0});
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus s = aclnnConvolutionGetWorkspaceSize(
        x.handle, w.handle, b.handle, stride.handle, padding.handle, dilation.handle, false,
        outputPadding.handle, 2, y.handle, cmt, &size, &executor);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0);
    expectNoHeap(s, executor, size);
  }
}

TEST(ForwardNoHeap, TransposedDenseFp32) {
  Tensor x({2, 8, 6, 6, 6}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      w({8, 4, 2, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCDHW),
      y({2, 4, 12, 12, 12}, ACL_FLOAT, ACL_FORMAT_NCDHW);
  Array stride({2, 2, 2}), padding({0, 0, 0}), dilation({1, 1, 1}), outputPadding({0, 0, 0});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus s = aclnnConvolutionGetWorkspaceSize(
      x.handle, w.handle, nullptr, stride.handle, padding.handle, dilation.handle, true,
      outputPadding.handle, 1, y.handle, 0, &size, &executor);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0);
  expectNoHeap(s, executor, size);
}

TEST(ForwardNoHeap, Depthwise) {
  Tensor x({2, 8, 16, 16}, ACL_FLOAT, ACL_FORMAT_NCHW),
      w({16, 1, 3, 3}, ACL_FLOAT, ACL_FORMAT_NCHW), b({16}, ACL_FLOAT, ACL_FORMAT_ND),
      y({2, 16, 16, 16}, ACL_FLOAT, ACL_FORMAT_NCHW);
  Array kernel({3, 3}), stride({1, 1}), padding({1, 1}), dilation({1, 1});
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus s = aclnnConvDepthwise2dGetWorkspaceSize(
      x.handle, w.handle, kernel.handle, b.handle, stride.handle, padding.handle, dilation.handle,
      y.handle, 0, &size, &executor);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0);
  expectNoHeap(s, executor, size);
}

TEST(ForwardNoHeap, ConvTbcAndItsEmptyReduction) {
  for (int64_t t : {int64_t{20}, int64_t{0}}) {
    const int64_t k = t > 0 ? 3 : 2;  // T = 0: T_out = 1, every tap reads padding
    Tensor x({t, 3, 8}, ACL_FLOAT16, ACL_FORMAT_ND), w({k, 8, 12}, ACL_FLOAT16, ACL_FORMAT_ND),
        b({12}, ACL_FLOAT, ACL_FORMAT_ND), y({t + 2 - k + 1, 3, 12}, ACL_FLOAT16, ACL_FORMAT_ND);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus s = aclnnConvTbcGetWorkspaceSize(x.handle, w.handle, b.handle, 1, y.handle, 0,
                                                       &size, &executor);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), 0);
    expectNoHeap(s, executor, size);
  }
}

}  // namespace
