// The plane-wise depthwise kernels: lanes computed past a row's end stay
// out of the weight gradient; streamed outputs are the bits of stored ones
// and stay inside the plane.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/conv/conv_registry.h"
#include "kernels/conv/depthwise_plane/dwconv_plane.h"
#include "kernels/cpu/cpu_info.h"

namespace {

using namespace aclcpu::kernels;
using depthwise_plane::describePlaneBands;
using depthwise_plane::f32_dwconv_plane_correlate_avx512;
using depthwise_plane::f32_dwconv_plane_scatter_avx512;
using depthwise_plane::PlaneBands;
using depthwise_plane::PlaneCorrelation;
using depthwise_plane::ScatterLayout;
using depthwise_plane::scatterLayout;

const ConvAlgorithm* entry(const char* name) {
  for (int i = 0; i < convAlgorithmCount(); ++i)
    if (!std::strcmp(convAlgorithmAt(i).name, name)) return &convAlgorithmAt(i);
  return nullptr;
}

// The weight gradient computes whole 16-lane vectors past the end of a row;
// those lanes read real x values the tap never meets. An inf there must not
// reach the sum (inf * 0 would be NaN).
TEST(DepthwisePlane, InfPastTheRowStaysOutOfTheWeightGradient) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const ConvAlgorithm* a = entry("f32_dwconv_bwdw_plane_w16_avx512");
  ASSERT_NE(a, nullptr);
  // Two channels, 2 x 20 input, 1 x 3 kernel, no padding: 18 outputs per row.
  // x column 19 is read only by tap 2 (output 17); for taps 0 and 1 the
  // second vector's lanes past output 17 still load it.
  ConvShape s;
  s.batch = 1;
  s.inChannels = s.outChannels = s.groups = 2;
  s.in[1] = 2;
  s.in[2] = 20;
  s.kernel[2] = 3;
  s.out[1] = 2;
  s.out[2] = 18;
  ASSERT_TRUE(a->accepts(s));
  const int64_t xn = 2 * 2 * 20, yn = 2 * 2 * 18;
  std::vector<float> x(xn), dy(yn), dw(2 * 3, -1.0f);
  for (int64_t i = 0; i < xn; ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  for (int64_t i = 0; i < yn; ++i) dy[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  for (int64_t plane = 0; plane < 4; ++plane)
    x[plane * 20 + 19] = std::numeric_limits<float>::infinity();
  a->run(s, x.data(), dy.data(), dw.data(), nullptr);
  for (int64_t c = 0; c < 2; ++c) {
    for (int64_t tap = 0; tap < 2; ++tap) {
      double expect = 0;
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 18; ++w)
          expect += static_cast<double>(x[(c * 2 + h) * 20 + w + tap]) * dy[(c * 2 + h) * 18 + w];
      EXPECT_TRUE(std::isfinite(dw[c * 3 + tap])) << "channel " << c << " tap " << tap;
      EXPECT_NEAR(dw[c * 3 + tap], expect, 1e-5) << "channel " << c << " tap " << tap;
    }
    // Tap 2 does meet the inf (times dy of output 17).
    EXPECT_FALSE(std::isfinite(dw[c * 3 + 2])) << "channel " << c;
  }
}

// streamOut (the passes set it for large fp32 outputs) writes through a
// buffer and streaming stores: run(j) with it must give the bits of the
// direct stores (n outputs), for planes whose rows, bands and starts fall
// anywhere relative to cache lines (the streamed copy's partial first and
// last lines), and write nothing outside the plane.
void expectStreamedIsStored(PlaneCorrelation j, int64_t n, void (*run)(const PlaneCorrelation&)) {
  std::vector<float> stored(static_cast<size_t>(n));
  j.dst = stored.data();
  j.streamOut = false;
  run(j);
  for (int64_t offset = 0; offset < 16; offset += 5) {
    // 64-byte aligned, then `offset` floats in; sentinels either side.
    std::vector<float> memory(static_cast<size_t>(n + 64), -7.5f);
    float* base = memory.data();
    while (reinterpret_cast<uintptr_t>(base) % 64) ++base;
    float* dst = base + 16 + offset;
    j.dst = dst;
    j.streamOut = true;
    run(j);
    SCOPED_TRACE(testing::Message() << "offset " << offset);
    EXPECT_EQ(std::memcmp(dst, stored.data(), static_cast<size_t>(n) * sizeof(float)), 0);
    for (float* p = memory.data(); p < dst; ++p) ASSERT_EQ(*p, -7.5f) << "before the plane";
    for (float* p = dst + n; p < memory.data() + memory.size(); ++p)
      ASSERT_EQ(*p, -7.5f) << "after the plane";
  }
}

struct PlaneCase {
  int64_t h, w, k, pad, rowStride, colStride, dil;
};

// The forward window of a case (kernel 1 x k when w is 45); src, taps and
// the band layout filled for it, referenced by the job.
PlaneCorrelation planeJob(const PlaneCase& c, std::vector<float>* src, std::vector<float>* taps,
                          PlaneBands* bands) {
  PlaneCorrelation j;
  j.g.srcH = c.h;
  j.g.srcW = c.w;
  j.g.kh = c.w == 45 ? 1 : c.k;
  j.g.kw = c.k;
  j.g.padH = j.g.kh == 1 ? 0 : c.pad;
  j.g.padW = c.pad;
  j.g.rowStride = c.rowStride;
  j.g.colStride = c.colStride;
  j.g.dilH = j.g.dilW = c.dil;
  j.g.dstH = (c.h + 2 * j.g.padH - (j.g.kh - 1) * c.dil - 1) / c.rowStride + 1;
  j.g.dstW = (c.w + 2 * c.pad - (c.k - 1) * c.dil - 1) / c.colStride + 1;
  const int64_t values = std::max(c.h * c.w, j.g.dstH * j.g.dstW);
  src->resize(static_cast<size_t>(values));
  for (size_t i = 0; i < src->size(); ++i)
    (*src)[i] = static_cast<float>((i * 37) % 101) / 7.0f - 6.0f;
  taps->resize(static_cast<size_t>(c.k * c.k));
  for (size_t i = 0; i < taps->size(); ++i) (*taps)[i] = static_cast<float>(i % 5) * 0.375f - 0.6f;
  j.src = src->data();
  j.taps = taps->data();
  j.hasBias = true;
  j.bias = 0.25f;
  *bands = describePlaneBands(j.g, true);
  j.bands = bands;
  return j;
}

TEST(DepthwisePlane, StreamedOutputIsTheStoredOutput) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  // 3x3 (aligned windows, row pairs), 3x3 dilated (unaligned), 5x5 and 1x7
  // (the generic rows), strides 2 along H and along W, and a plane taller
  // than one band (200 rows of 70: the band holds 8192 floats).
  const PlaneCase cases[] = {{56, 56, 3, 1, 1, 1, 1},  {7, 9, 3, 1, 1, 1, 1},
                             {13, 30, 3, 2, 1, 1, 2},  {11, 17, 5, 2, 1, 1, 1},
                             {6, 45, 7, 3, 1, 1, 1},   {29, 21, 3, 1, 2, 1, 1},
                             {200, 70, 3, 1, 1, 1, 1}, {1, 3, 3, 1, 1, 1, 1},
                             {56, 56, 3, 1, 2, 2, 1},  {9, 37, 5, 2, 1, 2, 1}};
  for (const PlaneCase& c : cases) {
    SCOPED_TRACE(testing::Message() << c.h << "x" << c.w << " k" << c.k << " stride " << c.rowStride
                                    << "x" << c.colStride);
    std::vector<float> src, taps;
    PlaneBands bands;
    const PlaneCorrelation j = planeJob(c, &src, &taps, &bands);
    expectStreamedIsStored(j, j.g.dstH * j.g.dstW, f32_dwconv_plane_correlate_avx512);
  }
}

// The strided data gradient (dy scattered through the forward's window into
// dx) streams its planes the same way.
TEST(DepthwisePlane, StreamedScatterIsTheStoredScatter) {
  if (detectedIsa() < Isa::Avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
  const PlaneCase cases[] = {{56, 56, 3, 1, 2, 2, 1},
                             {9, 37, 5, 2, 1, 2, 1},
                             {20, 21, 3, 1, 2, 1, 1},
                             {13, 30, 3, 2, 2, 2, 2}};
  for (const PlaneCase& c : cases) {
    SCOPED_TRACE(testing::Message() << c.h << "x" << c.w << " k" << c.k << " stride " << c.rowStride
                                    << "x" << c.colStride);
    std::vector<float> dy, taps;
    PlaneBands bands;
    PlaneCorrelation j = planeJob(c, &dy, &taps, &bands);
    const ScatterLayout scatter = scatterLayout(j.g);
    j.bands = nullptr;
    j.scatter = &scatter;
    expectStreamedIsStored(j, j.g.srcH * j.g.srcW, f32_dwconv_plane_scatter_avx512);
  }
}

}  // namespace
