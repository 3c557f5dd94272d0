// Not a correctness test: times backwardData + backwardWeight on a ResNet-50
// layer. Disabled so ctest skips it; run with
//   kernels_conv_tests --gtest_also_run_disabled_tests --gtest_filter='*Timing*'

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/conv/conv_passes.h"
#include "kernels/gemm/gemm.h"

namespace aclcpu {
namespace kernels {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void timeLayer(const ConvShape& s, const char* name) {
  const int64_t cig = s.inChannels / s.groups;
  const int64_t xCount = s.batch * s.inChannels * s.in[0] * s.in[1] * s.in[2];
  const int64_t yCount = s.batch * s.outChannels * s.out[0] * s.out[1] * s.out[2];
  const int64_t wCount = s.outChannels * cig * s.kernel[0] * s.kernel[1] * s.kernel[2];
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(xCount), dy(yCount), w(wCount), dx(xCount), dw(wCount);
  for (float& v : x) v = dist(rng);
  for (float& v : dy) v = dist(rng);
  for (float& v : w) v = dist(rng);
  const uint64_t bytes = std::max(backwardDataScratchBytes(s), backwardWeightScratchBytes(s));
  std::unique_ptr<void, FreeDeleter> scratch(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64));
  for (int rep = 0; rep < 3; ++rep) {
    auto start = std::chrono::steady_clock::now();
    convBackwardData(s, dy.data(), w.data(), dx.data(), scratch.get());
    const double data = secondsSince(start);
    start = std::chrono::steady_clock::now();
    convBackwardWeight(s, x.data(), dy.data(), dw.data(), scratch.get());
    const double weight = secondsSince(start);
    std::printf(
        "%s [%s, %d threads]: backwardData %.1f ms, backwardWeight %.1f ms, total %.1f ms\n", name,
        gemmKernelName(), computeThreadCount(), data * 1e3, weight * 1e3, (data + weight) * 1e3);
  }
}

ConvShape layer2d(int64_t n, int64_t cin, int64_t cout, int64_t g, int64_t hw, int64_t k,
                  int64_t stride, int64_t pad) {
  ConvShape s;
  s.batch = n;
  s.inChannels = cin;
  s.outChannels = cout;
  s.groups = g;
  s.in[1] = s.in[2] = hw;
  s.kernel[1] = s.kernel[2] = k;
  s.stride[1] = s.stride[2] = stride;
  s.padBefore[1] = s.padBefore[2] = pad;
  s.out[1] = s.out[2] = (hw + 2 * pad - k) / stride + 1;
  return s;
}

TEST(ConvTiming, DISABLED_ResNet50Layers) {
  timeLayer(layer2d(8, 64, 64, 1, 56, 3, 1, 1), "resnet50 conv2_x 3x3 mb8ic64oc64ih56");
  timeLayer(layer2d(8, 256, 64, 1, 56, 1, 1, 0), "resnet50 1x1 mb8ic256oc64ih56");
  timeLayer(layer2d(8, 128, 128, 1, 56, 3, 2, 1), "resnet50 3x3 s2 mb8ic128oc128ih56");
  timeLayer(layer2d(8, 64, 64, 64, 56, 3, 1, 1), "depthwise 3x3 mb8ic64ih56");
}

}  // namespace
}  // namespace kernels
}  // namespace aclcpu
