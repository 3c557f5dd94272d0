// The fp32 row passes' weight gather step (gatherWeightSlice_avx512)
// against its definition in blocked_kernels.h, element by element: both of
// its ways (vector gathers for slices of few taps, register transposes of
// each lane's run for the rest), lanes outside the reduction channel's
// group and padding channels (zeros), and runs ending at w's last element,
// with w allocated at its exact size so that ASan sees a read past it.
// Skipped, visibly, without AVX-512.

#include <gtest/gtest.h>

#include <algorithm>
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

struct SliceCase {
  int width;         // 16 or 32 output lanes
  int64_t taps;      // 1..16
  int64_t laneStep;  // elements between consecutive output lanes' runs
  int64_t redStep;   // between consecutive reduction channels' runs
  int groups;        // lanes cycle through this many groups
  bool nearEnd;      // the last run ends at w's last element
  int64_t nextStep;  // WeightSliceJob::nextJobStep (a hint only)
};

void checkSlice(const SliceCase& sc, std::mt19937* rng) {
  int32_t outOffset[32], outGroup[32];
  int64_t redOffset[16], redGroup[16];
  std::uniform_int_distribution<int> pad(0, 9);
  int64_t last = 0;  // the largest outOffset + redOffset
  for (int o = 0; o < sc.width; ++o) {
    outOffset[o] = static_cast<int32_t>(o * sc.laneStep);
    outGroup[o] = pad(*rng) == 0 ? -1 : o % sc.groups;
  }
  for (int c = 0; c < 16; ++c) {
    redOffset[c] = c * sc.redStep;
    redGroup[c] = pad(*rng) == 0 ? -1 : c % sc.groups;
    last = std::max<int64_t>(last, (sc.width - 1) * sc.laneStep + redOffset[c]);
  }
  // Elements w holds: exactly through the last run's end, or some more.
  const int64_t floats = last + sc.taps + (sc.nearEnd ? 0 : 40);
  std::vector<float> w(static_cast<size_t>(floats));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& f : w) f = value(*rng);
  const int64_t sliceTaps = 16;
  std::vector<float> got(static_cast<size_t>(16 * sliceTaps * sc.width), 7.0f);
  WeightSliceJob job;
  job.w = w.data();
  job.outOffset = outOffset;
  job.outGroup = outGroup;
  job.width = sc.width;
  job.redOffset = redOffset;
  job.redGroup = redGroup;
  job.taps = sc.taps;
  job.sliceTaps = sliceTaps;
  job.buffer = got.data();
  job.wFloats = floats;
  job.nextJobStep = sc.nextStep;
  gatherWeightSlice_avx512(job);
  for (int c = 0; c < 16; ++c) {
    for (int64_t t = 0; t < sliceTaps; ++t) {
      for (int o = 0; o < sc.width; ++o) {
        const float g = got[static_cast<size_t>((c * sliceTaps + t) * sc.width + o)];
        float want = 7.0f;  // taps past the slice are left as they were
        if (t < sc.taps) {
          want = outGroup[o] >= 0 && outGroup[o] == redGroup[c]
                     ? w[static_cast<size_t>(outOffset[o] + redOffset[c] + t)]
                     : 0.0f;
        }
        ASSERT_EQ(std::memcmp(&g, &want, sizeof g), 0)
            << "taps " << sc.taps << " width " << sc.width << " lane step " << sc.laneStep
            << " red step " << sc.redStep << " groups " << sc.groups << ": c " << c << " t " << t
            << " o " << o << " got " << g << " want " << want;
      }
    }
  }
}

TEST(WeightSliceGather, MatchesItsDefinition) {
  if (detectedIsa() < Isa::Avx512)
    GTEST_SKIP() << "avx512 path not run: this CPU offers " << isaName(detectedIsa());
  std::mt19937 rng(20261205);
  for (int64_t taps = 1; taps <= 16; ++taps) {
    for (int width : {16, 32}) {
      // The forward's layout (lanes whole weight rows apart, reduction
      // channels one run apart) and the data gradient's (the reverse).
      checkSlice({width, taps, 64 * taps, taps, 1, true, 16 * taps}, &rng);
      checkSlice({width, taps, taps, 48 * taps, 1, true, 0}, &rng);
      // Grouped lanes, overlapping runs, no room after the last run.
      checkSlice({width, taps, 3, 5, 3, true, 0}, &rng);
      checkSlice({width, taps, 2 * taps, taps, 2, false, -7}, &rng);
    }
  }
}

}  // namespace
}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
