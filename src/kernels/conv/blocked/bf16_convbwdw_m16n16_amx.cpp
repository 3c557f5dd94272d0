// The AMX weight-gradient micro-kernel: for one tap, up to 2 x 2 tiles of
// 16 input channels x 16 output channels accumulated by TDPBF16PS over the
// K steps (32 reduction entries each) of a list of segments. x tiles are 16
// channel rows of 64 bytes, dy tiles 16 pair rows of 16 words. Only called
// after a cpuid check and the OS's tile-state permission. Keep this file
// free of library templates (see f32_conv_rows_nb16_avx512.cpp).

#include <immintrin.h>

#include "kernels/conv/blocked/blocked_bf16_kernels.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Accumulators: tile 0 (a0, b0), 1 (a0, b1), 2 (a1, b0), 3 (a1, b1); x in
// 4 and 5, dy in 6 and 7.
template <int IC, int OC>
void run(const Bf16WeightJob& j) {
  float* dw01 = j.dw + j.dwOcBlockFloats;
  float* dw10 = j.dw + j.dwIcBlockFloats;
  float* dw11 = dw10 + j.dwOcBlockFloats;
  if (j.accumulate) {
    _tile_loadd(0, j.dw, 64);
    if constexpr (OC == 2) _tile_loadd(1, dw01, 64);
    if constexpr (IC == 2) _tile_loadd(2, dw10, 64);
    if constexpr (IC == 2 && OC == 2) _tile_loadd(3, dw11, 64);
  } else {
    _tile_zero(0);
    if constexpr (OC == 2) _tile_zero(1);
    if constexpr (IC == 2) _tile_zero(2);
    if constexpr (IC == 2 && OC == 2) _tile_zero(3);
  }
  for (int64_t g = 0; g < j.segmentCount; ++g) {
    const Bf16WeightSegment& seg = j.segments[g];
    const uint8_t* x = seg.x + j.xTapBytes;
    const uint8_t* dy = seg.dy;
    for (int64_t s = 0; s < seg.steps; ++s, x += 64, dy += 1024) {
      _tile_loadd(6, dy, 64);
      _tile_loadd(4, x, j.xChannelBytes);
      _tile_dpbf16ps(0, 4, 6);
      if constexpr (OC == 2) {
        _tile_loadd(7, dy + j.dyBlockBytes, 64);
        _tile_dpbf16ps(1, 4, 7);
      }
      if constexpr (IC == 2) {
        _tile_loadd(5, x + j.xBlockBytes, j.xChannelBytes);
        _tile_dpbf16ps(2, 5, 6);
        if constexpr (OC == 2) _tile_dpbf16ps(3, 5, 7);
      }
    }
  }
  _tile_stored(0, j.dw, 64);
  if constexpr (OC == 2) _tile_stored(1, dw01, 64);
  if constexpr (IC == 2) _tile_stored(2, dw10, 64);
  if constexpr (IC == 2 && OC == 2) _tile_stored(3, dw11, 64);
}

}  // namespace

void bf16_convbwdw_m16n16_amx(const Bf16WeightJob& job) {
  if (job.icBlocks == 2) {
    if (job.ocBlocks == 2)
      run<2, 2>(job);
    else
      run<2, 1>(job);
  } else {
    if (job.ocBlocks == 2)
      run<1, 2>(job);
    else
      run<1, 1>(job);
  }
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
