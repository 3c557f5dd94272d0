#include "kernels/conv/nchw_plane/stride_phases.h"

#include "common/thread_pool.h"
#include "kernels/conv/nchw_plane/conv_plane.h"
#include "kernels/conv/scratch_region.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {
namespace {

constexpr int64_t kMaxExtent = kMaxPlaneExtent;

// How dim d (1 = H, 2 = W) of x maps into x': split into `phases` phases
// when strided, the padding then made explicit (x' itself unpadded).
struct PhaseDim {
  int64_t phases = 1;  // the stride, or 1
  int64_t shift = 0;   // x position of x' position 0 of phase 0: -pad
};
PhaseDim phaseDim(const ConvShape& s, int d) {
  PhaseDim p;
  if (s.stride[d] > 1) {
    p.phases = s.stride[d];
    p.shift = -s.padBefore[d];
  }
  return p;
}

// The unit-stride layer on x' (see the header).
ConvShape phasedShape(const ConvShape& s) {
  ConvShape p = s;
  int64_t phases = 1;
  for (int d = 1; d < 3; ++d) {
    if (s.stride[d] == 1) continue;
    const int64_t st = s.stride[d];
    phases *= st;
    p.kernel[d] = (s.kernel[d] + st - 1) / st;
    p.in[d] = s.out[d] + p.kernel[d] - 1;
    p.stride[d] = 1;
    p.padBefore[d] = 0;
    p.dilation[d] = 1;
  }
  p.inChannels = s.inChannels * phases;
  return p;
}

// Checks first what phasedShape's arithmetic needs; the rest is the plane
// kernels' geometry of the unit-stride layer.
bool phaseShape(const ConvShape& s) {
  if (s.groups != 1 || (s.stride[1] == 1 && s.stride[2] == 1)) return false;
  if (s.inChannels > kMaxPhaseChannels) return false;
  for (int d = 1; d < 3; ++d) {
    if (s.stride[d] < 1 || s.stride[d] > kMaxPhaseChannels || s.in[d] <= 0 ||
        s.in[d] >= kMaxExtent || s.out[d] <= 0 || s.out[d] >= kMaxExtent || s.kernel[d] <= 0 ||
        s.kernel[d] >= kMaxExtent || s.padBefore[d] < 0 || s.padBefore[d] >= kMaxExtent)
      return false;
    // No dilation along a strided dim; a stride above the kernel leaves
    // phases no tap reads (a 1x1/2 layer: three quarters of x' and of the
    // products for nothing).
    if (s.stride[d] > 1 && (s.dilation[d] != 1 || s.stride[d] > s.kernel[d])) return false;
  }
  if (s.inChannels * s.stride[1] * s.stride[2] > kMaxPhaseChannels) return false;
  // The depth dim and the unsplit dims' extents, pads and dilations as every
  // plane pass needs them (a depth pad would read only zeros).
  return planeGeometry(phasedShape(s));
}

int64_t planeOf(const ConvShape& s) { return s.in[1] * s.in[2]; }
uint64_t phasedInputBytes(const ConvShape& p) {
  return scratchAligned(static_cast<uint64_t>(p.batch * p.inChannels * planeOf(p)) * sizeof(float));
}
uint64_t phasedWeightBytes(const ConvShape& p) {
  return scratchAligned(
      static_cast<uint64_t>(p.outChannels * p.inChannels * p.kernel[1] * p.kernel[2]) *
      sizeof(float));
}

// Calls at(x', x) for every x' element (image n, channel (c, ph, pw), row
// m, column q) with the index of its x element, or -1 where it lies in the
// padding.
template <typename At>
void forEachPhased(const ConvShape& s, const ConvShape& p, At&& at) {
  const PhaseDim dh = phaseDim(s, 1), dw = phaseDim(s, 2);
  const int64_t C = s.inChannels, Cp = p.inChannels;
  const int64_t H = s.in[1], W = s.in[2], Mh = p.in[1], Mw = p.in[2];
  parallelFor(s.batch * Cp, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / Cp, cp = item % Cp;
      const int64_t c = cp / (dh.phases * dw.phases);
      const int64_t ph = cp / dw.phases % dh.phases, pw = cp % dw.phases;
      const int64_t xPlane = (n * C + c) * H * W;
      const int64_t phasedPlane = item * Mh * Mw;
      for (int64_t m = 0; m < Mh; ++m) {
        const int64_t i = dh.phases * m + ph + dh.shift;
        for (int64_t q = 0; q < Mw; ++q) {
          const int64_t j = dw.phases * q + pw + dw.shift;
          const bool inside = i >= 0 && i < H && j >= 0 && j < W;
          at(phasedPlane + m * Mw + q, inside ? xPlane + i * W + j : -1);
        }
      }
    }
  });
}

// Calls at(w', w) for every w' element with the index of its w element, or
// -1 past the kernel.
template <typename At>
void forEachPhasedWeight(const ConvShape& s, const ConvShape& p, At&& at) {
  const PhaseDim dh = phaseDim(s, 1), dw = phaseDim(s, 2);
  const int64_t C = s.inChannels, Cp = p.inChannels;
  const int64_t kh = s.kernel[1], kw = s.kernel[2], kph = p.kernel[1], kpw = p.kernel[2];
  for (int64_t o = 0; o < s.outChannels; ++o) {
    for (int64_t cp = 0; cp < Cp; ++cp) {
      const int64_t c = cp / (dh.phases * dw.phases);
      const int64_t ph = cp / dw.phases % dh.phases, pw = cp % dw.phases;
      for (int64_t a = 0; a < kph; ++a) {
        const int64_t i = dh.phases * a + ph;
        for (int64_t b = 0; b < kpw; ++b) {
          const int64_t j = dw.phases * b + pw;
          const int64_t phased = ((o * Cp + cp) * kph + a) * kpw + b;
          at(phased, i < kh && j < kw ? ((o * C + c) * kh + i) * kw + j : -1);
        }
      }
    }
  }
}

}  // namespace

// dx' sums dy times every w' entry: the zeros past the kernel would turn an
// infinite dy into NaN where dx has no such product, so the data gradient
// takes only kernels the strides divide.
bool acceptsStridePhasesBackwardData(const ConvShape& s) {
  return phaseShape(s) && s.kernel[1] % s.stride[1] == 0 && s.kernel[2] % s.stride[2] == 0;
}
bool acceptsStridePhasesBackwardWeight(const ConvShape& s) { return phaseShape(s); }

uint64_t stridePhasesBackwardDataScratchBytes(const ConvShape& s) {
  const ConvShape p = phasedShape(s);
  return phasedInputBytes(p) + phasedWeightBytes(p) + correlationScratchBytes(p);
}
uint64_t stridePhasesBackwardWeightScratchBytes(const ConvShape& s) {
  const ConvShape p = phasedShape(s);
  return phasedInputBytes(p) + phasedWeightBytes(p) + backwardWeightScratchBytes(p);
}

void stridePhasesBackwardData(const ConvShape& s, const float* dy, const float* w,
                              const float* bias, float* dx, void* scratch) {
  const ConvShape p = phasedShape(s);
  float* dxPhased = scratchRegion<float>(scratch, 0);
  float* wPhased = scratchRegion<float>(scratch, phasedInputBytes(p));
  void* planeScratch = scratchRegion<char>(scratch, phasedInputBytes(p) + phasedWeightBytes(p));
  forEachPhasedWeight(s, p,
                      [&](int64_t i, int64_t from) { wPhased[i] = from < 0 ? 0.0f : w[from]; });
  backwardData(p, dy, wPhased, nullptr, dxPhased, planeScratch);
  // Every dx element is one dx' element or reached by no window (0): the
  // bias (the transposed forward's) is added to each once, as a store
  // step would.
  const int64_t C = s.inChannels, HW = s.in[1] * s.in[2];
  parallelFor(s.batch * C, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const float b = bias ? bias[i % C] : 0.0f;
      for (int64_t k = 0; k < HW; ++k) dx[i * HW + k] = b;
    }
  });
  forEachPhased(s, p, [&](int64_t i, int64_t to) {
    if (to >= 0) dx[to] = bias ? dxPhased[i] + dx[to] : dxPhased[i];
  });
}

void stridePhasesBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                                void* scratch) {
  const ConvShape p = phasedShape(s);
  float* xPhased = scratchRegion<float>(scratch, 0);
  float* dwPhased = scratchRegion<float>(scratch, phasedInputBytes(p));
  void* planeScratch = scratchRegion<char>(scratch, phasedInputBytes(p) + phasedWeightBytes(p));
  forEachPhased(s, p, [&](int64_t i, int64_t from) { xPhased[i] = from < 0 ? 0.0f : x[from]; });
  backwardWeight(p, xPhased, dy, dwPhased, planeScratch);
  forEachPhasedWeight(s, p, [&](int64_t i, int64_t to) {
    if (to >= 0) dw[to] = dwPhased[i];
  });
}

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
