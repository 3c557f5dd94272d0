// The conversion routines and the convolution passes promise not to touch
// the heap (phase 2 runs on the caller's workspace). This binary replaces
// operator new to count allocations while a pass runs.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/convert/convert.h"

namespace {
std::atomic<bool> gCounting{false};
std::atomic<int> gAllocations{0};
}  // namespace

// AddressSanitizer owns operator new in sanitizer builds; count only without it.
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

namespace aclcpu {
namespace kernels {
namespace {

template <typename Fn>
int allocationsDuring(Fn&& fn) {
  gAllocations = 0;
  gCounting = true;
  fn();
  gCounting = false;
  return gAllocations.load();
}

ConvShape layer(int64_t cin, int64_t cout, int64_t groups, int64_t hw) {
  ConvShape s;
  s.batch = 2;
  s.inChannels = cin;
  s.outChannels = cout;
  s.groups = groups;
  s.in[1] = s.in[2] = s.out[1] = s.out[2] = hw;
  s.kernel[1] = s.kernel[2] = 3;
  s.padBefore[1] = s.padBefore[2] = 1;
  return s;
}

void runPasses(const ConvShape& s) {
  const int64_t cig = s.inChannels / s.groups;
  std::vector<float> x(s.batch * s.inChannels * s.in[1] * s.in[2], 0.5f);
  std::vector<float> y(s.batch * s.outChannels * s.out[1] * s.out[2], 0.25f);
  std::vector<float> w(s.outChannels * cig * 9, 0.125f);
  std::vector<float> dx(x.size()), dy(y.size(), 1.0f), dw(w.size());
  uint64_t bytes = std::max(
      {forwardScratchBytes(s), backwardDataScratchBytes(s), backwardWeightScratchBytes(s)});
  std::vector<float> scratchStorage(bytes / sizeof(float) + 32);
  void* scratch =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratchStorage.data()) + 63) / 64 * 64);
  EXPECT_EQ(allocationsDuring([&] {
              convForward(s, x.data(), w.data(), y.data(), scratch);
              convBackwardData(s, dy.data(), w.data(), dx.data(), scratch);
              convBackwardWeight(s, x.data(), dy.data(), dw.data(), scratch);
            }),
            0);
}

TEST(NoHeap, DirectPassesAndConversionsOnTwoThreads) {
  if (!ACLCPU_COUNT_ALLOCATIONS) GTEST_SKIP() << "sanitizer build";
  setComputeThreadCount(2);
  runPasses(layer(64, 64, 64, 40));  // depthwise: direct loops
  std::vector<float> dense(64 * 64 * 40, 1.5f);
  std::vector<uint16_t> halves(dense.size());
  View5 view;
  view.data = halves.data();
  view.type = ElementType::F16;
  const int64_t shape[5] = {1, 64, 1, 40, 64};
  const int64_t strides[5] = {0, 1, 0, 64 * 64, 64};  // channels last
  for (int d = 0; d < 5; ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  std::vector<double> sums(64);
  EXPECT_EQ(allocationsDuring([&] {
              scatterFromFloat(dense.data(), Rounding::HF32, view);
              gatherToFloat(view, Rounding::None, dense.data());
              fillZero(view);
              channelSums(view, sums.data());
            }),
            0);
  setComputeThreadCount(0);
}

// sgemm's own parallel split is the gemm module's business; with one thread
// it runs inline, so this checks the im2col/col2im side of the GEMM path.
TEST(NoHeap, GemmPathOnOneThread) {
  if (!ACLCPU_COUNT_ALLOCATIONS) GTEST_SKIP() << "sanitizer build";
  setComputeThreadCount(1);
  runPasses(layer(32, 48, 1, 40));
  setComputeThreadCount(0);
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
