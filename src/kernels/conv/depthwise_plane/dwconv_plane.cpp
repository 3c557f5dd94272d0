#include "kernels/conv/depthwise_plane/dwconv_plane.h"

#include <type_traits>

#include "common/thread_pool.h"
#include "kernels/convert/convert.h"

namespace aclcpu {
namespace kernels {
namespace depthwise_plane {
namespace {

// Depthwise 1D/2D (depth trivial), a stride along W of 1 or 2, a kernel
// the band buffer holds.
bool planeShape(const ConvShape& s) {
  if (s.groups <= 1 || s.inChannels != s.groups || s.outChannels != s.groups) return false;
  // The depth dim must be trivial: one position, read (no padding before).
  if (s.in[0] != 1 || s.out[0] != 1 || s.kernel[0] != 1 || s.padBefore[0] != 0) return false;
  if (s.stride[2] != 1 && s.stride[2] != 2) return false;
  for (int d = 1; d < 3; ++d) {
    if (s.in[d] <= 0 || s.out[d] <= 0 || s.kernel[d] <= 0 || s.kernel[d] > kMaxTaps) return false;
    if (s.dilation[d] <= 0 || s.dilation[d] > kBandFloats || s.stride[d] <= 0) return false;
  }
  if (s.kernel[1] * s.kernel[2] > kMaxTaps) return false;
  // Buffer rows are as wide as the wider of the two planes' rows plus the
  // kernel's reach (a data gradient's row is the input's).
  const int64_t widest = s.in[2] > s.out[2] ? s.in[2] : s.out[2];
  if (widest > kBandFloats) return false;
  const int64_t rowFloats = s.stride[2] == 2
                                ? 2 * phaseRowFloats(s.out[2], s.kernel[2], s.dilation[2])
                                : bandRowFloats(widest, s.kernel[2], s.dilation[2]);
  if (rowFloats > kBandFloats) return false;
  const int64_t rows = bandSrcRows(1, s.stride[1], s.kernel[1], s.dilation[1]);
  return rows <= kBandFloats / rowFloats;
}

int64_t tapsOf(const ConvShape& s) { return s.kernel[1] * s.kernel[2]; }

// Whether a thread's correlation fetches its next plane into L2 while it
// computes one (PlaneCorrelation::next): planes of 1 KiB and more. MNv2 dw
// 3x3 on the Intel Xeon VM, medians of 5-7, 1 / 2 threads, with the output
// streamed (below): 144ch 56x56 batch 32 forward 15.7 -> 11.8 / 7.6 -> 5.6
// ms, data gradient 15.9 -> 12.3 / 7.5 -> 5.8, bf16 forward 10.8 -> 8.5 /
// 5.1 -> 4.1; 192ch 28x28 batch 32 5.9 -> 3.5 at 1 thread; 128ch 56x56 batch
// 8 level; but 14x14 and 7x7 planes 5-8% slower at 2 threads (the hardware
// prefetcher has those).
template <typename Src>
bool fetchesNextPlane(int64_t planeElements) {
  return planeElements * static_cast<int64_t>(sizeof(Src)) >= 1024;
}
// The job's next plane: the thread's next of the planes `planeElements`
// apart from `planes`, where the pass fetches and there is one.
template <typename Src>
void setNextPlane(PlaneCorrelation* j, const Src* planes, int64_t plane, int64_t end,
                  int64_t planeElements, bool fetches) {
  if (!fetches || plane + 1 >= end) return;
  j->next = planes + (plane + 1) * planeElements;
  j->nextBytes = planeElements * static_cast<int64_t>(sizeof(Src));
}

// Whether a pass writes its output with streaming stores (PlaneCorrelation::
// streamOut): fp32 outputs of 32 MiB and more. MNv2 dw 3x3 144ch 56x56 on
// the Intel Xeon VM, medians of 5, 1 / 2 threads: forward batch 32 (58 MB
// out) 17.0 -> 15.4 / 8.7 -> 6.8 ms, batch 24 13.2 -> 11.0 / 6.3 -> 4.9,
// data gradient batch 32 17.0 -> 14.2 / 8.6 -> 7.3; but batch 8 (14 MB,
// which the caches keep from one call to the next) 1.67 -> 2.41 ms, and
// bf16 outputs slower at every size tried (batch 64: 20.8 -> 24.1 ms).
constexpr int64_t kStreamOutputBytes = int64_t{32} << 20;
template <typename Dst>
bool streamsOutput(int64_t elements) {
  return std::is_same<Dst, float>::value &&
         elements >= kStreamOutputBytes / static_cast<int64_t>(sizeof(float));
}

}  // namespace

PlaneBands describePlaneBands(const PlaneGeometry& g, bool forCorrelation) {
  PlaneBands b;
  const bool squareKernel = (g.kh == 3 && g.kw == 3) || (g.kh == 5 && g.kw == 5);
  if ((forCorrelation ? squareKernel : g.kw == 3) && g.dilW == 1 && g.colStride == 1) {
    // Whole vectors up to one past a row's last output vector; not where
    // the band could not hold one output row's source rows at that pitch.
    const int64_t pitch = (g.dstW + kLanes - 1) / kLanes * kLanes + kLanes;
    if (pitch * bandSrcRows(1, g.rowStride, g.kh, g.dilH) <= kBandFloats) b.alignedPitch = pitch;
  }
  const bool phases = g.colStride == 2;
  b.phaseFloats = phases ? phaseRowFloats(g.dstW, g.kw, g.dilW) : 0;
  b.rowFloats = phases               ? 2 * b.phaseFloats
                : b.alignedPitch > 0 ? b.alignedPitch
                                     : bandRowFloats(g.dstW, g.kw, g.dilW);
  const int64_t rows = (kBandFloats / b.rowFloats - 1 - (g.kh - 1) * g.dilH) / g.rowStride + 1;
  b.rows = rows < g.dstH ? rows : g.dstH;
  for (int64_t k = 0; k < g.kw; ++k) {
    const int64_t at = k * g.dilW;
    b.colOff[k] = phases ? at % 2 * b.phaseFloats + at / 2 : at;
  }
  return b;
}

bool acceptsForward(const ConvShape& s) { return planeShape(s); }
bool acceptsBackwardData(const ConvShape& s) {
  if (!planeShape(s)) return false;
  if (s.stride[1] == 1 && s.stride[2] == 1) return true;
  // Other strides: the whole dy plane buffered (f32_dwconv_plane_scatter_avx512).
  const ScatterLayout l = scatterLayout(forwardWindow(s));
  return l.rowFloats <= kBandFloats && s.out[1] <= kBandFloats / l.rowFloats;
}
bool acceptsBackwardWeight(const ConvShape& s) { return planeShape(s); }

namespace {

// The source and destination of a correlation job: fp32, or bf16 words.
void setSource(PlaneCorrelation* j, const float* p) { j->src = p; }
void setSource(PlaneCorrelation* j, const uint16_t* p) { j->srcWords = p; }
// How the inputs are read: only the words runs read the type, only the
// fp32 runs the rounding.
template <typename Job>
void setReading(Job* j, const ConvShape& s) {
  j->words = s.io;
  j->roundHf32 = s.inputRounding == Rounding::HF32;
}
void setDestination(PlaneCorrelation* j, float* p) { j->dst = p; }
void setDestination(PlaneCorrelation* j, uint16_t* p) { j->dstWords = p; }
void setOperands(PlaneWeightGrad* j, const float* x, const float* dy) {
  j->x = x;
  j->dy = dy;
}
void setOperands(PlaneWeightGrad* j, const uint16_t* x, const uint16_t* dy) {
  j->xWords = x;
  j->dyWords = dy;
}

// Whether a correlation runs 16 channels at a time with the channels in the
// lanes (f32_dwconv_channels_correlate_avx512) rather than plane by plane:
// where a dst row does not fill a vector. MobileNet layers on the Intel
// Xeon VM, forward, medians of 7-9, 1 / 2 threads: 960ch 7x7 batch 32
// 2.61 -> 1.62 / 1.42 -> 0.93 ms (oneDNN with reorders 1.39 / 0.76 in an
// earlier run), 1024ch 7x7 batch 16 1.41 -> 0.94, 576ch 14x14 stride 2
// 2.76 -> 1.58, 5x5 672ch stride 2 4.32 -> 3.02, 576ch 14x14 3.65 -> 3.47 /
// 1.64 -> 1.43; 192ch 28x28 level.
bool usesChannelGroups(const PlaneGeometry& g) { return fitsChannelGroups(g) && g.dstW < kLanes; }

// Runs kernel(job) on each image's channels in groups of 16, the channels
// in the vector lanes (f32_dwconv_channels_*_avx512): src planes srcPlane
// elements apart, dst planes dstPlane apart, channel c's taps at w + c *
// taps, reversed where `flip` (the data gradient's correlation).
template <typename Src, typename Dst, typename Kernel>
void runChannelGroups(const ConvShape& s, const PlaneGeometry& g, const Src* src, int64_t srcPlane,
                      const float* w, bool flip, const float* bias, Dst* dst, int64_t dstPlane,
                      Kernel kernel) {
  const int64_t C = s.inChannels, taps = g.kh * g.kw;
  const int64_t groups = (C + kLanes - 1) / kLanes;
  parallelFor(s.batch * groups, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / groups, c0 = item % groups * kLanes;
      ChannelGroupCorrelation job;
      job.channels = static_cast<int>(C - c0 < kLanes ? C - c0 : kLanes);
      PlaneCorrelation& j = job.planes;
      j.g = g;
      setSource(&j, src + (n * C + c0) * srcPlane);
      setReading(&j, s);
      setDestination(&j, dst + (n * C + c0) * dstPlane);
      j.taps = w + c0 * taps;
      j.hasBias = bias != nullptr;
      job.biases = bias ? bias + c0 : nullptr;
      job.srcChannelStride = srcPlane;
      job.dstChannelStride = dstPlane;
      job.tapChannelStride = taps;
      job.reversedTaps = flip;
      kernel(job);
    }
  });
}

// Runs kernel(job) on every (image, channel) plane of src (srcPlane
// elements each) into dst (dstPlane each), with channel c's taps w + c *
// taps, reversed where `flip` (the data gradient's correlation), and the
// pass's band or scatter layout (the one the kernel reads; the other null).
template <typename Src, typename Dst, typename Kernel>
void forEachPlane(const ConvShape& s, const PlaneGeometry& g, const PlaneBands* bands,
                  const ScatterLayout* scatter, const Src* src, int64_t srcPlane, const float* w,
                  bool flip, const float* bias, Dst* dst, int64_t dstPlane, Kernel kernel) {
  const int64_t C = s.inChannels, taps = tapsOf(s);
  const bool stream = streamsOutput<Dst>(s.batch * C * dstPlane);
  const bool fetchesNext = fetchesNextPlane<Src>(srcPlane);
  parallelFor(s.batch * C, [&](int64_t begin, int64_t end) {
    float flipped[kMaxTaps];
    for (int64_t plane = begin; plane < end; ++plane) {
      const int64_t c = plane % C;
      PlaneCorrelation j;
      j.g = g;
      j.bands = bands;
      j.scatter = scatter;
      setSource(&j, src + plane * srcPlane);
      setReading(&j, s);
      setDestination(&j, dst + plane * dstPlane);
      j.streamOut = stream;
      setNextPlane(&j, src, plane, end, srcPlane, fetchesNext);
      j.taps = w + c * taps;
      if (flip) {
        for (int64_t t = 0; t < taps; ++t) flipped[t] = w[c * taps + taps - 1 - t];
        j.taps = flipped;
      }
      j.hasBias = bias != nullptr;
      j.bias = bias ? bias[c] : 0.0f;
      kernel(j);
    }
  });
}

// The correlation of the window g (the forward's, or the data gradient's
// with its taps flipped): in channel groups for small planes, else plane
// by plane.
template <typename Src, typename Dst>
void runCorrelation(const ConvShape& s, const PlaneGeometry& g, const Src* src, const float* w,
                    bool flip, const float* bias, Dst* dst) {
  const int64_t srcPlane = g.srcH * g.srcW, dstPlane = g.dstH * g.dstW;
  if (usesChannelGroups(g))
    return runChannelGroups(s, g, src, srcPlane, w, flip, bias, dst, dstPlane,
                            f32_dwconv_channels_correlate_avx512);
  const PlaneBands bands = describePlaneBands(g, true);
  forEachPlane(s, g, &bands, nullptr, src, srcPlane, w, flip, bias, dst, dstPlane,
               f32_dwconv_plane_correlate_avx512);
}

template <typename Src, typename Dst>
void runForward(const ConvShape& s, const Src* x, const float* w, const float* bias, Dst* y) {
  runCorrelation(s, forwardWindow(s), x, w, false, bias, y);
}

template <typename Src, typename Dst>
void runBackwardData(const ConvShape& s, const Src* dy, const float* w, const float* bias,
                     Dst* dx) {
  if (s.stride[1] != 1 || s.stride[2] != 1) {
    // dy scattered through the forward's window (f32_dwconv_*_scatter_avx512).
    const PlaneGeometry g = forwardWindow(s);
    if (g.srcW < kLanes && fitsChannelScatter(g)) {
      return runChannelGroups(s, g, dy, g.dstH * g.dstW, w, false, bias, dx, g.srcH * g.srcW,
                              f32_dwconv_channels_scatter_avx512);
    }
    const ScatterLayout scatter = scatterLayout(g);
    return forEachPlane(s, g, nullptr, &scatter, dy, g.dstH * g.dstW, w, false, bias, dx,
                        g.srcH * g.srcW, f32_dwconv_plane_scatter_avx512);
  }
  runCorrelation(s, dataGradientWindow(s), dy, w, true, bias, dx);
}

// The weight gradient of small planes (usesChannelGroups), 16 channels at a
// time (f32_dwconv_channels_weight_avx512): each group sums its images in
// order, whatever thread takes it; dySums as runBackwardWeight's.
template <typename Src>
void runChannelGroupsWeight(const ConvShape& s, const PlaneGeometry& g, const Src* x, const Src* dy,
                            float* dw, double* dySums) {
  const int64_t C = s.inChannels, taps = g.kh * g.kw;
  const int64_t groups = (C + kLanes - 1) / kLanes;
  const int64_t srcPlane = g.srcH * g.srcW, dstPlane = g.dstH * g.dstW;
  parallelFor(groups, [&](int64_t begin, int64_t end) {
    alignas(64) float acc[kMaxTaps * kLanes];
    alignas(64) double sumLanes[kLanes * kChannelSumLanes];
    for (int64_t group = begin; group < end; ++group) {
      const int64_t c0 = group * kLanes;
      const int channels = static_cast<int>(C - c0 < kLanes ? C - c0 : kLanes);
      for (int64_t i = 0; i < taps * kLanes; ++i) acc[i] = 0.0f;
      for (int64_t i = 0; i < channels * kChannelSumLanes; ++i) sumLanes[i] = 0.0;
      for (int64_t n = 0; n < s.batch; ++n) {
        ChannelGroupWeightGrad job;
        job.channels = channels;
        job.xChannelStride = srcPlane;
        job.dyChannelStride = dstPlane;
        PlaneWeightGrad& j = job.planes;
        j.g = g;
        setOperands(&j, x + (n * C + c0) * srcPlane, dy + (n * C + c0) * dstPlane);
        setReading(&j, s);
        j.acc = acc;
        f32_dwconv_channels_weight_avx512(job);
        if (dySums)
          addChannelRuns(sizeof(Src) == 4 ? ElementType::F32 : s.io, dy + (n * C + c0) * dstPlane,
                         dstPlane, channels, dstPlane, n * dstPlane, sumLanes);
      }
      for (int64_t c = 0; c < channels; ++c) {
        if (dySums) dySums[c0 + c] = channelLaneTotal(sumLanes + c * kChannelSumLanes);
        for (int64_t t = 0; t < taps; ++t) dw[(c0 + c) * taps + t] = acc[t * kLanes + c];
      }
    }
  });
}

template <typename Src>
void runBackwardWeight(const ConvShape& s, const Src* x, const Src* dy, float* dw, double* dySums) {
  // Each channel sums its images' planes in image order, whatever thread
  // takes it, so the sums never depend on the thread count. A thread runs
  // its channels in runs of kRunChannels with the image loop outside: the
  // planes it reads are then adjacent in memory (a channel's planes alone
  // are a whole image apart).
  constexpr int64_t kRunChannels = 8;
  const int64_t C = s.inChannels, taps = tapsOf(s);
  const PlaneGeometry g = forwardWindow(s);
  // Channel groups only for rows of at most 8 positions here: 14x14 planes
  // measured no faster at 1 thread and slower at 2 (576ch batch 32: 1.95
  // -> 3.7 ms), where the plane kernel's rows fill 14 of 16 lanes.
  if (usesChannelGroups(g) && g.dstW <= 8 && g.dstH * g.dstW * kLanes <= kChannelPlaneFloats)
    return runChannelGroupsWeight(s, g, x, dy, dw, dySums);
  const PlaneBands bands = describePlaneBands(g, false);
  parallelFor(C, [&](int64_t begin, int64_t end) {
    alignas(64) float acc[kRunChannels * kMaxTaps * kLanes];
    alignas(64) double sumLanes[kRunChannels * kChannelSumLanes];
    for (int64_t c0 = begin; c0 < end; c0 += kRunChannels) {
      const int64_t run = end - c0 < kRunChannels ? end - c0 : kRunChannels;
      for (int64_t i = 0; i < run * taps * kLanes; ++i) acc[i] = 0.0f;
      for (int64_t i = 0; i < run * kChannelSumLanes; ++i) sumLanes[i] = 0.0;
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t k = 0; k < run; ++k) {
          const int64_t plane = n * C + c0 + k;
          PlaneWeightGrad j;
          j.g = g;
          j.bands = &bands;
          setOperands(&j, x + plane * g.srcH * g.srcW, dy + plane * g.dstH * g.dstW);
          // Fetching the next planes while this one computes: MNv2 dw 3x3
          // 144ch 56x56 batch 32 weight gradient, medians of 5-7: 1 thread
          // 20.5 -> 18.7 ms, 2 threads 12.9 -> 10.3 (batch 8, 128ch: 5.4 ->
          // 4.3 at 1 thread).
          if (k + 1 < run || n + 1 < s.batch) {
            const int64_t next = k + 1 < run ? plane + 1 : (n + 1) * C + c0;
            j.nextX = x + next * g.srcH * g.srcW;
            j.nextDy = dy + next * g.dstH * g.dstW;
          }
          setReading(&j, s);
          j.acc = acc + k * taps * kLanes;
          f32_dwconv_plane_weight_avx512(j);
        }
        // The bias gradient's sums, while the run's dy planes are still in
        // L2: a pass of their own read gradOutput from memory again.
        const int64_t planeSize = g.dstH * g.dstW;
        if (dySums)
          addChannelRuns(sizeof(Src) == 4 ? ElementType::F32 : s.io, dy + (n * C + c0) * planeSize,
                         planeSize, static_cast<int>(run), planeSize, n * planeSize, sumLanes);
      }
      if (dySums)
        for (int64_t k = 0; k < run; ++k)
          dySums[c0 + k] = channelLaneTotal(sumLanes + k * kChannelSumLanes);
      for (int64_t k = 0; k < run; ++k) {
        for (int64_t t = 0; t < taps; ++t) {
          float sum = 0.0f;
          for (int64_t lane = 0; lane < kLanes; ++lane) sum += acc[(k * taps + t) * kLanes + lane];
          dw[(c0 + k) * taps + t] = sum;
        }
      }
    }
  });
}

}  // namespace

void forward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y) {
  runForward(s, x, w, bias, y);
}
void backwardData(const ConvShape& s, const float* dy, const float* w, const float* bias,
                  float* dx) {
  runBackwardData(s, dy, w, bias, dx);
}
void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                    double* dySums) {
  runBackwardWeight(s, x, dy, dw, dySums);
}
void forwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y) {
  runForward(s, x, w, bias, y);
}
void backwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w, const float* bias,
                       uint16_t* dx) {
  runBackwardData(s, dy, w, bias, dx);
}
void backwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                         double* dySums) {
  runBackwardWeight(s, x, dy, dw, dySums);
}

}  // namespace depthwise_plane
}  // namespace kernels
}  // namespace aclcpu
