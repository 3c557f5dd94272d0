#include "kernels/conv/tap_gemm/tap_gemm_forward.h"

#include <algorithm>

#include "common/thread_pool.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/scratch_region.h"
#include "kernels/convert/scalar_convert_inl.h"
#include "kernels/gemm/gemm.h"

namespace aclcpu {
namespace kernels {
namespace tap_gemm {
namespace {

using conv_detail::ConvGeometry;

// Below this many input channels per group a tap's K block is too shallow:
// every block reads and writes the output tiles once more.
constexpr int64_t kMinChannelsPerTap = 128;

// The 1D axis is the last one.
constexpr int kAxis = 2;

struct Phases {
  int64_t stride;  // phases per channel
  int64_t length;  // positions per phase row: the outputs plus the widest tap shift
};

Phases describePhases(const ConvShape& shape, const ConvGeometry& geometry) {
  const int64_t s = shape.stride[kAxis];
  const int64_t lastTap = (shape.kernel[kAxis] - 1) * shape.dilation[kAxis];
  return {s, geometry.outVolume + lastTap / s};
}

// Scratch = [gemm slices][weights, tap-major][phases of one group][the taps'
// views of A, then of B].
struct Layout {
  uint64_t weightsOffset, phasesOffset, viewsOffset, bytes;
};

Layout layoutFor(const ConvShape& shape) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const Phases phases = describePhases(shape, geometry);
  const uint64_t weights = static_cast<uint64_t>(shape.outChannels) *
                           static_cast<uint64_t>(geometry.cinPerGroup) *
                           static_cast<uint64_t>(geometry.kernelVolume);
  const uint64_t phaseFloats = static_cast<uint64_t>(phases.stride) *
                               static_cast<uint64_t>(geometry.cinPerGroup) *
                               static_cast<uint64_t>(phases.length);
  Layout layout;
  layout.weightsOffset = scratchAligned(gemmScratchBytes());
  layout.phasesOffset = layout.weightsOffset + scratchAligned(weights * sizeof(float));
  layout.viewsOffset = layout.phasesOffset + scratchAligned(phaseFloats * sizeof(float));
  layout.bytes =
      layout.viewsOffset +
      scratchAligned(2 * static_cast<uint64_t>(geometry.kernelVolume) * sizeof(MatrixView));
  return layout;
}

// wTaps[g][k][o][c] = w[g * Cog + o][c][k]: each tap's A a row-major matrix,
// packed from whole rows (as w's strided columns, the packing of A, again
// for every image and column block, was 15% of the GEMM's time).
void regroupWeights(const ConvShape& shape, const ConvGeometry& geometry, const float* w,
                    float* wTaps) {
  const int64_t K = geometry.kernelVolume, Cig = geometry.cinPerGroup;
  const int64_t Cog = geometry.coutPerGroup;
  // By w's rows, each read K times from L1 (by wTaps' rows, w was swept K
  // times from memory).
  parallelFor(shape.groups * Cog, [&](int64_t begin, int64_t end) {
    for (int64_t wRow = begin; wRow < end; ++wRow) {
      const int64_t g = wRow / Cog, o = wRow % Cog;
      const float* from = w + wRow * Cig * K;
      for (int64_t k = 0; k < K; ++k) {
        float* to = wTaps + ((g * K + k) * Cog + o) * Cig;
        for (int64_t c = 0; c < Cig; ++c) to[c] = from[c * K + k];
      }
    }
  });
}

// phases[(r * Cig + c) * length + t] = x[c][t * s + r - pad] (0 outside x),
// rounded to HF32 when kRoundHf32: once here rather than by the GEMM as it
// packs, where each value is met once per tap that reads its phase row.
template <bool kRoundHf32>
void splitPhases(const ConvShape& shape, const Phases& phases, int64_t channels,
                 const float* xGroup, float* out) {
  const int64_t s = phases.stride, length = phases.length, L = shape.in[kAxis];
  const int64_t pad = shape.padBefore[kAxis];
  const int64_t taps = shape.kernel[kAxis], d = shape.dilation[kAxis];
  // Channel by channel, so that each x row is read s times from L1; only the
  // phases some tap reads (a stride above the kernel's span leaves others).
  parallelFor(channels * s, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t c = item / s, r = item % s;
      bool read = false;
      for (int64_t k = 0; k < taps && !read; ++k) read = k * d % s == r;
      if (!read) continue;
      const float* from = xGroup + c * L + r - pad;
      float* to = out + (r * channels + c) * length;
      // t in [t0, t1) reads x inside: 0 <= t * s + r - pad < L.
      int64_t t0 = 0, t1 = 0;
      conv_detail::validOutputRange(r - pad, s, L, length, &t0, &t1);
      std::fill(to, to + t0, 0.0f);
      for (int64_t t = t0; t < t1; ++t)
        to[t] = kRoundHf32 ? detail::roundHf32Inline(from[t * s]) : from[t * s];
      std::fill(to + t1, to + length, 0.0f);
    }
  });
}

}  // namespace

bool acceptsForward(const ConvShape& shape) {
  // The leading axes' one output must read their one input (no padding).
  for (int axis = 0; axis < kAxis; ++axis) {
    if (shape.in[axis] != 1 || shape.kernel[axis] != 1 || shape.out[axis] != 1 ||
        shape.padBefore[axis] != 0)
      return false;
  }
  const ConvGeometry geometry = conv_detail::describe(shape);
  return shape.kernel[kAxis] >= 2 && geometry.cinPerGroup >= kMinChannelsPerTap;
}

uint64_t forwardScratchBytes(const ConvShape& shape) { return layoutFor(shape).bytes; }

void forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
             const float* bias) {
  const ConvGeometry geometry = conv_detail::describe(shape);
  const int64_t P = geometry.outVolume, L = shape.in[kAxis], K = geometry.kernelVolume;
  const int64_t Cig = geometry.cinPerGroup, Cog = geometry.coutPerGroup;
  if (shape.batch == 0 || Cog == 0 || P == 0) return;
  const Phases phases = describePhases(shape, geometry);
  const Layout layout = layoutFor(shape);
  float* const wTaps = scratchRegion<float>(scratch, layout.weightsOffset);
  float* const split = scratchRegion<float>(scratch, layout.phasesOffset);
  regroupWeights(shape, geometry, w, wTaps);
  MatrixView* const a = scratchRegion<MatrixView>(scratch, layout.viewsOffset);
  MatrixView* const b = a + K;
  const bool hf32 = shape.inputRounding == Rounding::HF32;
  const int64_t s = phases.stride, d = shape.dilation[kAxis];
  for (int64_t n = 0; n < shape.batch; ++n) {
    for (int64_t g = 0; g < shape.groups; ++g) {
      const float* xGroup = x + (n * shape.inChannels + g * Cig) * L;
      if (hf32) {
        splitPhases<true>(shape, phases, Cig, xGroup, split);
      } else {
        splitPhases<false>(shape, phases, Cig, xGroup, split);
      }
      // Tap k: A = w[g * Cog + o][c][k] at (o, c), B = the phase rows that
      // hold x[c][p * s + k * d - pad] at (c, p): k * d = j * s + r.
      for (int64_t k = 0; k < K; ++k) {
        const int64_t r = k * d % s, j = k * d / s;
        a[k] = MatrixView{wTaps + (g * K + k) * Cog * Cig, Cig, 1, false};
        b[k] = MatrixView{split + r * Cig * phases.length + j, phases.length, 1, false};
      }
      sgemmTaps(Cog, P, Cig, K, a, b, y + (n * shape.outChannels + g * Cog) * P, P, false, scratch,
                bias ? bias + g * Cog : nullptr);
    }
  }
}

}  // namespace tap_gemm
}  // namespace kernels
}  // namespace aclcpu
