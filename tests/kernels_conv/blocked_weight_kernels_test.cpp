// The fp32 weight-gradient micro-kernel over runs of taps
// (f32_convbwdw_taps3x8x16_avx512) promises the same bits as one per-tap
// kernel call (f32_convbwdw_16x16_avx512) for each tap of the run: the
// registry tester checks both against float64 only within a tolerance, so
// this checks the bits, on runs whose column ranges differ per tap (padding
// edges, empty taps, segments) and with infinities that a term outside a
// tap's range would turn into NaN; and the same with x's channels a plane
// apart (xLaneStride, the caller's dense x read in place), whose other
// values are NaN. Skipped, visibly, without AVX-512.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

struct RunCase {
  int taps;
  int64_t shift, rows, xColStep, lo[3], hi[3];
  bool accumulate;
};

std::vector<float> randomFloats(size_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& f : v) f = value(*rng);
  return v;
}

void expectSameBits(const std::vector<float>& expected, const std::vector<float>& got,
                    const RunCase& rc, const char* how) {
  for (size_t i = 0; i < expected.size(); ++i) {
    uint32_t a = 0, b = 0;
    std::memcpy(&a, &expected[i], 4);
    std::memcpy(&b, &got[i], 4);
    ASSERT_EQ(a, b) << how << ": taps " << rc.taps << " shift " << rc.shift << " rows " << rc.rows
                    << " tap " << i / 256 << " channel " << i % 256 / 16 << " lane " << i % 16;
  }
}

// Runs one case each way and compares every dw float's bits.
void checkCase(const RunCase& rc, std::mt19937* rng) {
  int64_t columns = 0;  // x columns the run can read
  for (int t = 0; t < rc.taps; ++t) columns = std::max(columns, rc.hi[t] + t * rc.shift);
  const int64_t xRowStride = (columns + 3) * rc.xColStep;
  const int64_t dyRowStride = (columns + 2) * 16;
  std::vector<float> x = randomFloats(static_cast<size_t>(rc.rows * xRowStride + 16), rng);
  std::vector<float> dy = randomFloats(static_cast<size_t>(rc.rows * dyRowStride + 16), rng);
  // Infinities just outside each tap's range: read by mistake, they show.
  for (int64_t r = 0; r < rc.rows; ++r) {
    for (int t = 0; t < rc.taps; ++t) {
      if (rc.lo[t] > 0) dy[static_cast<size_t>(r * dyRowStride + (rc.lo[t] - 1) * 16)] = INFINITY;
    }
  }
  std::vector<float> start = randomFloats(static_cast<size_t>(rc.taps * 256), rng);
  std::vector<float> expected = start, got = start;

  WeightTapsJob run;
  run.x = x.data();
  run.xColStep = rc.xColStep;
  run.xRowStride = xRowStride;
  run.dy = dy.data();
  run.dyRowStride = dyRowStride;
  run.rows = rc.rows;
  run.taps = rc.taps;
  run.tapShift = rc.shift;
  run.accumulate = rc.accumulate;
  for (int t = 0; t < rc.taps; ++t) {
    run.lo[t] = rc.lo[t];
    run.hi[t] = rc.hi[t];
    run.dw[t] = got.data() + t * 256;

    WeightJob job;
    job.x = x.data() + (rc.lo[t] + t * rc.shift) * rc.xColStep;
    job.xColStep = rc.xColStep;
    job.xRowStride = xRowStride;
    job.dy = dy.data() + rc.lo[t] * 16;
    job.dyRowStride = dyRowStride;
    job.rows = rc.rows;
    job.cols = rc.hi[t] - rc.lo[t];
    job.dw = expected.data() + t * 256;
    job.accumulate = rc.accumulate;
    f32_convbwdw_16x16_avx512(job);
  }
  f32_convbwdw_taps3x8x16_avx512(run);
  expectSameBits(expected, got, rc, "staged x");

  // x planar: channel c's value of staged position (r, q) at
  // c * plane + r * (xRowStride / 16) + q * (xColStep / 16); the values
  // between positions (xColStep 32) are NaN, as is a guard plane.
  const int64_t step = rc.xColStep / 16, rowStride = xRowStride / 16;
  const int64_t plane = rc.rows * rowStride + 1;
  std::vector<float> planar(static_cast<size_t>(17 * plane), NAN);
  for (int64_t r = 0; r < rc.rows; ++r) {
    for (int64_t q = 0; q * rc.xColStep < xRowStride; ++q) {
      for (int64_t c = 0; c < 16; ++c)
        planar[static_cast<size_t>(c * plane + r * rowStride + q * step)] =
            x[static_cast<size_t>(r * xRowStride + q * rc.xColStep + c)];
    }
  }
  std::vector<float> fromPlanes = start;
  run.x = planar.data();
  run.xColStep = step;
  run.xRowStride = rowStride;
  run.xLaneStride = plane;
  for (int t = 0; t < rc.taps; ++t) run.dw[t] = fromPlanes.data() + t * 256;
  f32_convbwdw_taps3x8x16_avx512(run);
  expectSameBits(expected, fromPlanes, rc, "x read in place");
}

TEST(BlockedWeightKernels, TapRunsGiveThePerTapKernelsBits) {
  if (detectedIsa() < Isa::Avx512)
    GTEST_SKIP() << "avx512 path not run: this CPU offers " << isaName(detectedIsa());
  std::mt19937 rng(20261204);
  // Hand-picked: a 3x3 row with padding 1 on 56 columns, a segment inside a
  // long row, a dilated run, an empty tap, single columns, no rows.
  const RunCase hand[] = {
      {3, 1, 4, 16, {1, 0, 0}, {56, 56, 55}, false},
      {3, 1, 2, 16, {0, 0, 0}, {224, 224, 224}, true},
      {3, 2, 3, 16, {2, 0, 0}, {30, 30, 28}, false},
      {3, 1, 2, 16, {0, 5, 0}, {7, 5, 7}, true},
      {2, 1, 1, 32, {0, 0, 0}, {1, 1, 0}, false},
      {3, 1, 0, 16, {0, 0, 0}, {9, 9, 9}, false},
      {1, 1, 3, 16, {3, 0, 0}, {17, 0, 0}, true},
  };
  for (const RunCase& rc : hand) checkCase(rc, &rng);
  std::uniform_int_distribution<int> taps(1, 3), shift(1, 3), rows(0, 4), step(1, 2), lo(0, 5),
      width(0, 40);
  for (int i = 0; i < 300; ++i) {
    RunCase rc{};
    rc.taps = taps(rng);
    rc.shift = shift(rng);
    rc.rows = rows(rng);
    rc.xColStep = 16 * step(rng);
    rc.accumulate = i % 2 == 0;
    for (int t = 0; t < rc.taps; ++t) {
      rc.lo[t] = lo(rng);
      rc.hi[t] = rc.lo[t] + width(rng);
    }
    checkCase(rc, &rng);
  }
}

}  // namespace
}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
