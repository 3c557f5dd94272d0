// Drivers of the few-channel passes. Forward: copy x once into zero-padded
// stride phases, pack the weights per group of output channels, then one
// work item per (image, output row): the micro-kernel writes every channel
// of that row of y (whole images per thread where the batch splits evenly).
// Each output element is one fixed-order sum over (channel, kh, kw),
// whatever the thread count. Data gradient: the same phases, as sums of dy
// rows, per image. Weight gradient: x padded the same way, then one work
// item per group of output channels sums its dy rows against every tap's
// phase rows, a block of rows at a time.

#include "kernels/conv/few_channels/few_channels_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xmmintrin.h>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/scratch_region.h"
#include "kernels/conv/strided_rows.h"
#include "kernels/convert/convert.h"
#include "kernels/convert/convert_runs.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

constexpr int64_t kMaxChannels = 4;
constexpr int64_t kMaxTaps = 1024;
constexpr int64_t kVector = 16;

// Padded plane of one (image, channel): `phases` = stride[2] phase planes of
// `rows` x `phaseW` floats; phase r, column q holds padded column q * stride
// + r, i.e. x column q * stride + r - padBefore[2] (zero outside x).
struct Plan {
  int64_t taps = 0;
  int64_t rows = 0, phaseW = 0;
  int64_t phaseFloats = 0, planeFloats = 0;
  // weightOffset: the forward's and data gradient's packed weights, or the
  // weight gradient's 16-lane sums. rowOffset: the data gradient's fp32 row
  // of dx per work item, for words of shape.io (rounded from it).
  uint64_t xOffset = 0, weightOffset = 0, rowOffset = 0, bytes = 0;
};

uint64_t aligned(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

bool planOf(const ConvShape& s, Plan* p) {
  if (s.groups != 1 || s.inChannels < 1 || s.inChannels > kMaxChannels) return false;
  if (s.outChannels < 1 || s.outChannels > 4096) return false;
  if (s.in[0] != 1 || s.out[0] != 1 || s.kernel[0] != 1 || s.padBefore[0] != 0) return false;
  for (int d = 1; d < 3; ++d) {
    if (s.in[d] < 1 || s.out[d] < 1 || s.kernel[d] < 1 || s.stride[d] < 1 || s.dilation[d] < 1 ||
        s.out[d] > (int64_t{1} << 24) || s.stride[d] > 64 || s.dilation[d] > 64 ||
        s.kernel[d] > kMaxTaps)
      return false;
  }
  int64_t taps = 0;
  if (!checkedMul(s.inChannels, s.kernel[1] * s.kernel[2], &taps) || taps < 9 || taps > kMaxTaps)
    return false;
  p->taps = taps;
  // Rows every output row reads, and per phase the columns of every vector
  // of the row (rounded up to whole vectors) at the kernel's largest shift.
  p->rows = (s.out[1] - 1) * s.stride[1] + (s.kernel[1] - 1) * s.dilation[1] + 1;
  p->phaseW = (s.out[2] + kVector - 1) / kVector * kVector +
              (s.kernel[2] - 1) * s.dilation[2] / s.stride[2] + 1;
  int64_t xFloats = 0;
  if (!checkedMul(p->rows, p->phaseW, &p->phaseFloats) ||
      !checkedMul(p->phaseFloats, s.stride[2], &p->planeFloats) ||
      !checkedMul(p->planeFloats, s.inChannels, &xFloats) ||
      !checkedMul(xFloats, s.batch, &xFloats) || xFloats > (int64_t{1} << 40))
    return false;
  p->xOffset = 0;
  p->weightOffset = aligned(static_cast<uint64_t>(xFloats) * sizeof(float));
  // Weights in whole groups of kChannelGroup channels (the last one padded).
  const int64_t groups = (s.outChannels + kChannelGroup - 1) / kChannelGroup;
  p->bytes = p->weightOffset + aligned(static_cast<uint64_t>(taps * groups * kChannelGroup) * 4);
  return true;
}

// count elements `step` apart from src (the rest of the plane holds
// `readable`) into dst as fp32: the caller's fp32 values (rounded to HF32
// when the shape says so), or its words of shape.io.
// n raw fp32 values rounded to HF32 from `from` into `to` (in place too:
// each lane is loaded before it is stored), by the ISA's vector run where
// there is one.
struct Hf32Rounding {
  detail::GatherRunFn run = detail::vectorGatherRun(ElementType::F32, Rounding::HF32);
  void operator()(const float* from, int64_t n, float* to) const {
    if (run) return run(from, n, to);
    for (int64_t i = 0; i < n; ++i) to[i] = roundFloat(from[i], Rounding::HF32);
  }
};

struct InsideCopy {
  const ConvShape& s;
  conv_detail::StridedRowLoops loops = conv_detail::stridedRowLoops();
  detail::GatherRunFn widen = detail::vectorGatherRun(s.io, Rounding::None);
  Hf32Rounding roundHf32 = Hf32Rounding{};

  void operator()(const float* src, int64_t readable, int64_t step, int64_t count,
                  float* dst) const {
    const bool hf32 = s.inputRounding == Rounding::HF32;
    if (step == 1 && hf32) return roundHf32(src, count, dst);
    if (step == 1)
      std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(float));
    else
      loops.copy(src, readable, step, count, dst);
    if (hf32) roundHf32(dst, count, dst);
  }
  void operator()(const uint16_t* src, int64_t /*readable*/, int64_t step, int64_t count,
                  float* dst) const {
    if (step == 1 && widen) return widen(src, count, dst);
    if (widen) {
      // Strided: each span of words widened whole into a buffer, then its
      // columns picked (RN50 stem 7x7/2 bf16: word by word, this copy was
      // 8% of the forward's samples).
      constexpr int64_t kSpan = 1024;
      float wide[kSpan];
      const int64_t perSpan = (kSpan - 1) / step + 1;
      for (int64_t q = 0; q < count; q += perSpan) {
        const int64_t n = std::min(perSpan, count - q);
        const int64_t span = (n - 1) * step + 1;
        widen(src + q * step, span, wide);
        loops.copy(wide, span, step, n, dst + q);
      }
      return;
    }
    const bool half = s.io == ElementType::F16;
    for (int64_t q = 0; q < count; ++q)
      dst[q] = half ? halfToFloat(src[q * step]) : bf16ToFloat(src[q * step]);
  }
};

// Phase rows [begin, end) of the (image, channel) planes, numbered plane
// by plane (an image's are one run of inChannels * stride[2] * rows).
template <typename E>
void padRows(const ConvShape& s, const Plan& p, const E* x, float* xp, int64_t begin, int64_t end) {
  const int64_t inH = s.in[1], inW = s.in[2], step = s.stride[2];
  const int64_t phaseRows = step * p.rows;
  const InsideCopy copy{s};
  for (int64_t item = begin; item < end; ++item) {
    const int64_t plane = item / phaseRows, phase = item % phaseRows / p.rows;
    const int64_t r = item % p.rows;
    float* dst = xp + plane * p.planeFloats + phase * p.phaseFloats + r * p.phaseW;
    const int64_t ih = r - s.padBefore[1];
    if (ih < 0 || ih >= inH) {
      std::memset(dst, 0, static_cast<size_t>(p.phaseW) * sizeof(float));
      continue;
    }
    // Columns q whose x column iw = q * step + phase - padBefore[2] is
    // inside [0, inW): [lo, hi).
    const int64_t first = phase - s.padBefore[2];
    const int64_t lo = std::min(p.phaseW, first >= 0 ? 0 : (-first + step - 1) / step);
    const int64_t hi =
        std::clamp<int64_t>(inW - first <= 0 ? 0 : (inW - first + step - 1) / step, lo, p.phaseW);
    std::memset(dst, 0, static_cast<size_t>(lo) * sizeof(float));
    std::memset(dst + hi, 0, static_cast<size_t>(p.phaseW - hi) * sizeof(float));
    if (hi == lo) continue;
    const int64_t at = ih * inW + lo * step + first;  // in the plane
    copy(x + plane * inH * inW + at, inH * inW - at, step, hi - lo, dst + lo);
  }
}

int64_t phaseRowsPerImage(const ConvShape& s, const Plan& p) {
  return s.inChannels * s.stride[2] * p.rows;
}

// Tap k = (c * kh + i) * kw + j (w's own order): where it reads in an
// image's padded planes, relative to the output row's first input row.
// Each work range computes them into its own stack array (TapOffsets), not
// into the workspace: the kernels address memory with them, and a
// workspace that the caller hands to two runs at once (two streams) must
// cost wrong numbers at worst, never an access outside the buffers.
struct TapOffsets {
  int64_t at[kMaxTaps];
};
void tapOffsets(const ConvShape& s, const Plan& p, int64_t* taps) {
  const int64_t kw = s.kernel[2], kernelArea = s.kernel[1] * kw;
  for (int64_t k = 0; k < p.taps; ++k) {
    const int64_t c = k / kernelArea, i = k % kernelArea / kw, j = k % kw;
    const int64_t shift = j * s.dilation[2];
    taps[k] = c * p.planeFloats + shift % s.stride[2] * p.phaseFloats +
              i * s.dilation[1] * p.phaseW + shift / s.stride[2];
  }
}

// The weight gradient's scratch: the padded phases as the forward's, then
// kVector lane sums per (output channel, tap).
bool weightPlanOf(const ConvShape& s, Plan* p) {
  if (!planOf(s, p)) return false;
  int64_t sumFloats = 0;
  if (!checkedMul(s.outChannels, p->taps * kVector, &sumFloats)) return false;
  p->bytes = p->weightOffset + aligned(static_cast<uint64_t>(sumFloats) * sizeof(float));
  return true;
}

// A sum's 16 lanes, added in a fixed tree.
float laneTree(const float* lanes) {
  float half[8];
  for (int i = 0; i < 8; ++i) half[i] = lanes[i] + lanes[i + 8];
  for (int i = 0; i < 4; ++i) half[i] += half[i + 4];
  return (half[0] + half[2]) + (half[1] + half[3]);
}

// Output channels per work item of the weight gradient: each item runs
// every row of the batch for its channels, so the padded x is read once per
// item (from L3) and each channel's dy once.
constexpr int64_t kWeightGroup = 8;
// Positions per block of output rows (whole rows, or a segment of one long
// row, a multiple of kVector): a block's dy rows for kWeightChannels
// channels stay in L1 while every tap tile meets them.
constexpr int64_t kBlockPositions = 1024;
// Tap tiles of the weight gradient from which raw HF32 dy is rounded once per
// block of rows into a buffer rather than as each tile loads it: the
// separate pass does not overlap the FMAs as the kernel's loads do. HF32 dW,
// 1 thread, medians of 5, in-kernel -> buffered: RN50 stem (25 tiles) 21.6
// -> 19.2 ms (fp32 18.7), 1-channel 7x7/2 (9 tiles) 7.44 -> 7.12, 3-channel
// 5x5/2 (13) level; 4-5 tiles (3x3/2 RGB, 1D k7 / k12) 5-14% slower, wav2vec
// (2) 4.1 -> 6.1.
constexpr int64_t kRoundedDyTiles = 8;

}  // namespace

bool acceptsForward(const ConvShape& shape) {
  Plan p;
  return planOf(shape, &p);
}

uint64_t forwardScratchBytes(const ConvShape& shape) {
  Plan p;
  return planOf(shape, &p) ? p.bytes : 0;
}

// The forward writes y with streaming stores (FewChannelRowJob::stream)
// from 4 MiB up, twice a core's L2 (the output cannot stay there anyway):
// a row job writes a row of every output channel, as many store streams as
// channels, and ordinary stores wait on the reads for ownership of all of
// them. RN50 stem 7x7/2 3->64 on the Intel Xeon VM, medians of 5, 1 / 2
// threads: batch 8 17.5 -> 14.0 / 7.96 -> 7.08 ms, batch 4 8.20 -> 6.74 /
// 3.76 -> 3.27, batch 2 3.56 -> 3.13 / 1.77 -> 1.56, batch 1 (3.2 MB,
// ordinary stores) 1.65 -> 1.58 / 0.91 -> 0.78; wav2vec's stem (1D rows
// of 6399, few whole aligned vectors) level. Words runs too (two vectors of
// words per line): wav2vec's stem bf16 forward, 1 thread, medians of 5,
// 4.40 -> 4.02 ms, fp16 3.01 -> 2.93.
constexpr int64_t kStreamOutputBytes = int64_t{4} << 20;

namespace {

// The forward on elements E of x (fp32, or words of shape.io), into fp32 y
// or (yWords not null) words of shape.io.
template <typename E>
void runForward(const ConvShape& s, const E* x, const float* w, float* y, uint16_t* yWords,
                void* scratch, const float* bias) {
  Plan p;
  planOf(s, &p);
  float* xp = scratchRegion<float>(scratch, p.xOffset);
  float* wp = scratchRegion<float>(scratch, p.weightOffset);
  // Each tap's weight for every output channel, in groups of kChannelGroup.
  for (int64_t k = 0; k < p.taps; ++k)
    for (int64_t o = 0; o < s.outChannels; ++o)
      wp[(o / kChannelGroup * p.taps + k) * kChannelGroup + o % kChannelGroup] = w[o * p.taps + k];
  const int64_t outPlane = s.out[1] * s.out[2];
  const int64_t elementBytes = yWords ? 2 : 4;
  const bool stream = s.batch * s.outChannels * outPlane * elementBytes >= kStreamOutputBytes;
  auto rows = [&](int64_t begin, int64_t end) {
    TapOffsets taps;
    tapOffsets(s, p, taps.at);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / s.out[1], oh = item % s.out[1];
      FewChannelRowJob job;
      job.x = xp + n * s.inChannels * p.planeFloats + oh * s.stride[1] * p.phaseW;
      job.taps = taps.at;
      job.tapCount = p.taps;
      job.weights = wp;
      job.outChannels = s.outChannels;
      job.channelBegin = 0;
      job.channelCount = s.outChannels;
      const int64_t rowAt = n * s.outChannels * outPlane + oh * s.out[2];
      job.out = yWords ? nullptr : y + rowAt;
      job.outWords = yWords ? yWords + rowAt : nullptr;
      job.outWordType = s.io;
      job.outChannelStride = outPlane;
      job.count = s.out[2];
      job.bias = bias;
      job.stream = stream;
      f32_conv_fwd_rows_c6w64_avx512(job);
    }
  };
  const int64_t perImage = phaseRowsPerImage(s, p);
  const int64_t threads = computeThreadCount();
  if (s.batch >= threads && s.batch % threads == 0) {
    // Whole images per thread: each pads an image and computes its rows
    // while the padded planes are in its L2 (padding the whole batch first
    // sent them out to memory and back: RN50 stem batch 8 took 2.5x batch 4).
    parallelFor(s.batch, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        padRows(s, p, x, xp, n * perImage, (n + 1) * perImage);
        rows(n * s.out[1], (n + 1) * s.out[1]);
      }
    });
    return;
  }
  parallelFor(s.batch * perImage,
              [&](int64_t begin, int64_t end) { padRows(s, p, x, xp, begin, end); });
  parallelFor(s.batch * s.out[1], rows);
}

}  // namespace

void forward(const ConvShape& s, const float* x, const float* w, float* y, void* scratch,
             const float* bias) {
  runForward(s, x, w, y, nullptr, scratch, bias);
}

bool forwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y, void* scratch) {
  runForward(s, x, w, nullptr, y, scratch, bias);
  return true;
}

namespace {

// The data gradient's scratch: every (image, channel)'s padded phases as
// the forward's x, then the weights as [channel][tap tile][o][kWeightTaps]
// (zeros past a channel's last tap).
int64_t tapTilesPerChannel(const ConvShape& s) {
  return (s.kernel[1] * s.kernel[2] + kWeightTaps - 1) / kWeightTaps;
}

bool dataPlanOf(const ConvShape& s, Plan* p) {
  if (!planOf(s, p)) return false;
  int64_t weightFloats = 0, rowFloats = 0;
  if (!checkedMul(s.inChannels * tapTilesPerChannel(s) * kWeightTaps, s.outChannels,
                  &weightFloats) ||
      !checkedMul(s.batch * s.inChannels, s.in[2], &rowFloats))
    return false;
  p->rowOffset = p->weightOffset + aligned(static_cast<uint64_t>(weightFloats) * sizeof(float));
  p->bytes = p->rowOffset;
  if (s.io != ElementType::F32)
    p->bytes += aligned(static_cast<uint64_t>(rowFloats) * sizeof(float));
  return true;
}

// dx's rows of one (image, channel) from its padded phases: bias (or 0)
// plus the phase element each position is, 0 where no window reaches. Words
// of shape.io: each row summed in `rowBuffer` (inW floats), then rounded.
template <typename Out>
void unpadRows(const ConvShape& s, const Plan& p, const float* plane, float b, Out* dx,
               float* rowBuffer) {
  const int64_t inH = s.in[1], inW = s.in[2], step = s.stride[2], pad = s.padBefore[2];
  const conv_detail::StridedRowLoops loops = conv_detail::stridedRowLoops();
  constexpr bool kWords = std::is_same_v<Out, uint16_t>;
  const detail::ScatterRunFn round =
      kWords ? detail::vectorScatterRun(s.io, Rounding::None) : nullptr;
  for (int64_t ih = 0; ih < inH; ++ih) {
    float* row = rowBuffer;
    if constexpr (!kWords) row = dx + ih * inW;
    std::fill(row, row + inW, b);
    const int64_t r = ih + s.padBefore[1];
    for (int64_t phase = 0; phase < step && r < p.rows; ++phase) {
      // x column iw = q * step + phase - pad, for q in [lo, hi).
      const int64_t first = phase - pad;
      const int64_t lo = std::min(p.phaseW, first >= 0 ? 0 : (-first + step - 1) / step);
      const int64_t hi =
          std::clamp<int64_t>(inW - first <= 0 ? 0 : (inW - first + step - 1) / step, lo, p.phaseW);
      if (hi == lo) continue;
      const float* src = plane + phase * p.phaseFloats + r * p.phaseW + lo;
      float* dst = row + lo * step + first;
      if (step == 1)
        for (int64_t q = 0; q < hi - lo; ++q) dst[q] += src[q];
      else
        loops.add(src, hi - lo, step, dst);
    }
    if constexpr (kWords) {
      uint16_t* words = dx + ih * inW;
      if (round) {
        round(row, inW, words);
      } else {
        for (int64_t q = 0; q < inW; ++q)
          words[q] = s.io == ElementType::F16 ? floatToHalf(row[q]) : floatToBf16(row[q]);
      }
    }
  }
}

// Positions of a dy row per data micro-kernel call, and output channels
// per copied chunk of dy.
constexpr int64_t kDataPositions = 64;
constexpr int64_t kDataChannels = 64;

}  // namespace

bool acceptsBackwardData(const ConvShape& shape) {
  Plan p;
  return dataPlanOf(shape, &p);
}

uint64_t backwardDataScratchBytes(const ConvShape& shape) {
  Plan p;
  return dataPlanOf(shape, &p) ? p.bytes : 0;
}

namespace {

// The data gradient on elements E of dy and dx (fp32, or words of
// shape.io).
template <typename E>
void runBackwardData(const ConvShape& s, const E* dy, const float* w, E* dx, void* scratch,
                     const float* bias) {
  constexpr bool kWords = std::is_same_v<E, uint16_t>;
  // Words widened as each chunk is copied; fp32 dy copied as it is, then
  // (the caller's raw values) rounded to HF32 in place, a whole chunk per
  // call: rounding each 64-float row as it was copied cost as much again as
  // the copies (wav2vec stem dX HF32, 1 thread, medians of 5-7: 6.1 -> 5.3
  // ms, fp32 4.5; the RN50 stem, rows of 64 + 48, level within noise).
  const detail::GatherRunFn widen =
      kWords ? detail::vectorGatherRun(s.io, Rounding::None) : nullptr;
  const bool hf32 = !kWords && s.inputRounding == Rounding::HF32;
  const Hf32Rounding roundHf32;
  Plan p;
  dataPlanOf(s, &p);
  float* rows = scratchRegion<float>(scratch, p.rowOffset);
  float* planes = scratchRegion<float>(scratch, p.xOffset);
  float* wp = scratchRegion<float>(scratch, p.weightOffset);
  const int64_t C = s.inChannels, O = s.outChannels;
  const int64_t area = s.kernel[1] * s.kernel[2], tiles = tapTilesPerChannel(s);
  for (int64_t c = 0; c < C; ++c)
    for (int64_t tile = 0; tile < tiles; ++tile)
      for (int64_t o = 0; o < O; ++o)
        for (int64_t t = 0; t < kWeightTaps; ++t) {
          const int64_t k = tile * kWeightTaps + t;
          wp[((c * tiles + tile) * O + o) * kWeightTaps + t] =
              k < area ? w[(o * C + c) * area + k] : 0.0f;
        }
  const int64_t outH = s.out[1], outW = s.out[2], outPlane = outH * outW;
  const int64_t inPlane = s.in[1] * s.in[2];
  // Work items: whole images (every channel's planes from one copy of each
  // dy chunk), or (image, channel) when the batch is too small to spread.
  const int64_t perItem = s.batch >= computeThreadCount() ? C : 1;
  parallelFor(s.batch * C / perItem, [&](int64_t begin, int64_t end) {
    // Channel 0's tap offsets serve every channel (each has its plane).
    TapOffsets taps;
    tapOffsets(s, p, taps.at);
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item * perItem / C, c0 = item * perItem % C;
      float* itemPlanes = planes + item * perItem * p.planeFloats;
      std::memset(itemPlanes, 0, static_cast<size_t>(perItem * p.planeFloats) * sizeof(float));
      // Each chunk's dy rows, up to kDataChannels channels at a time, are
      // copied next to one another first: a row in every channel's plane
      // (planes a multiple of 1 KB apart, 112 x 112 floats) fell into a
      // few L1 sets and missed on every tap tile. The next chunk's rows
      // are requested ahead: too many streams for the hardware prefetcher.
      alignas(64) float chunk[kDataChannels * kDataPositions];
      FewChannelDataJob job;
      job.dy = chunk;
      job.dyChannelStride = kDataPositions;
      for (int64_t oh = 0; oh < outH; ++oh) {
        for (int64_t q0 = 0; q0 < outW; q0 += kDataPositions) {
          job.count = std::min(kDataPositions, outW - q0);
          for (int64_t o0 = 0; o0 < O; o0 += kDataChannels) {
            job.outChannels = std::min(kDataChannels, O - o0);
            const E* from = dy + (n * O + o0) * outPlane + oh * outW + q0;
            // The next chunk's address as an integer: past the last row it
            // points nowhere, which a prefetch may.
            const uintptr_t ahead =
                (q0 + kDataPositions < outW ? kDataPositions : outW - q0) * sizeof(float);
            for (int64_t o = 0; o < job.outChannels; ++o) {
              float* row = chunk + o * kDataPositions;
              if constexpr (kWords) {
                const uint16_t* words = from + o * outPlane;
                if (widen) {
                  widen(words, job.count, row);
                } else {
                  for (int64_t q = 0; q < job.count; ++q)
                    row[q] =
                        s.io == ElementType::F16 ? halfToFloat(words[q]) : bf16ToFloat(words[q]);
                }
              } else if (hf32 && job.count < kDataPositions) {
                // A short chunk's rows rounded as copied (the rest of each
                // chunk row holds nothing to round).
                roundHf32(from + o * outPlane, job.count, row);
              } else {
                std::memcpy(row, from + o * outPlane,
                            static_cast<size_t>(job.count) * sizeof(float));
              }
              const uintptr_t next = reinterpret_cast<uintptr_t>(from + o * outPlane) + ahead;
              for (uintptr_t b = 0; b < kDataPositions * sizeof(float); b += 64)
                _mm_prefetch(reinterpret_cast<const char*>(next + b), _MM_HINT_T0);
            }
            if (hf32 && job.count == kDataPositions)
              roundHf32(chunk, job.outChannels * kDataPositions, chunk);
            for (int64_t c = c0; c < c0 + perItem; ++c) {
              job.dx = planes + (n * C + c) * p.planeFloats + oh * s.stride[1] * p.phaseW + q0;
              for (int64_t tile = 0; tile < tiles; ++tile) {
                job.weights = wp + ((c * tiles + tile) * O + o0) * kWeightTaps;
                job.taps = taps.at + tile * kWeightTaps;
                job.tapCount =
                    static_cast<int>(std::min<int64_t>(kWeightTaps, area - tile * kWeightTaps));
                f32_conv_bwdd_rows_t6w64_avx512(job);
              }
            }
          }
        }
      }
      for (int64_t c = c0; c < c0 + perItem; ++c)
        unpadRows(s, p, planes + (n * C + c) * p.planeFloats, bias ? bias[c] : 0.0f,
                  dx + (n * C + c) * inPlane, kWords ? rows + item * s.in[2] : nullptr);
    }
  });
}

}  // namespace

void backwardData(const ConvShape& s, const float* dy, const float* w, float* dx, void* scratch,
                  const float* bias) {
  runBackwardData(s, dy, w, dx, scratch, bias);
}

bool backwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w, const float* bias,
                       uint16_t* dx, void* scratch) {
  runBackwardData(s, dy, w, dx, scratch, bias);
  return true;
}

bool acceptsBackwardWeight(const ConvShape& shape) {
  Plan p;
  return weightPlanOf(shape, &p);
}

uint64_t backwardWeightScratchBytes(const ConvShape& shape) {
  Plan p;
  return weightPlanOf(shape, &p) ? p.bytes : 0;
}

namespace {

// The weight gradient on elements E of x and dy (fp32, or words of
// shape.io); with dySums, also each channel's dy sum (channelSums' bits),
// added as each block of dy rows is met.
template <typename E>
void runWeight(const ConvShape& s, const E* x, const E* dy, float* dw, void* scratch,
               double* dySums) {
  const ElementType dyType = sizeof(E) == sizeof(float) ? ElementType::F32 : s.io;
  Plan p;
  weightPlanOf(s, &p);
  float* xp = scratchRegion<float>(scratch, p.xOffset);
  float* sums = scratchRegion<float>(scratch, p.weightOffset);
  const int64_t perImage = phaseRowsPerImage(s, p);
  parallelFor(s.batch * perImage,
              [&](int64_t begin, int64_t end) { padRows(s, p, x, xp, begin, end); });
  const int64_t outH = s.out[1], outW = s.out[2], outPlane = outH * outW;
  const int64_t segment = std::min(outW, kBlockPositions);
  const int64_t blockRows = std::clamp<int64_t>(kBlockPositions / outW, 1, outH);
  const int64_t sumChannel = p.taps * kVector;
  const int64_t groups = (s.outChannels + kWeightGroup - 1) / kWeightGroup;
  const Hf32Rounding roundHf32;
  parallelFor(groups, [&](int64_t begin, int64_t end) {
    alignas(64) float rounded[kWeightChannels * kBlockPositions];
    TapOffsets taps;
    tapOffsets(s, p, taps.at);
    for (int64_t g = begin; g < end; ++g) {
      const int64_t o0 = g * kWeightGroup;
      const int64_t channels = std::min(kWeightGroup, s.outChannels - o0);
      float* groupSums = sums + o0 * sumChannel;
      std::memset(groupSums, 0, static_cast<size_t>(channels * sumChannel) * sizeof(float));
      double lanes[kWeightGroup * kChannelSumLanes] = {};
      FewChannelWeightJob job;
      job.dyType = dyType;
      // Raw HF32 dy: rounded as the kernel loads it (once per tap tile), or,
      // from kRoundedDyTiles tap tiles up, once per block into `rounded`.
      const bool hf32Dy = dyType == ElementType::F32 && s.inputRounding == Rounding::HF32;
      const bool roundDy = hf32Dy && (p.taps + kWeightTaps - 1) / kWeightTaps >= kRoundedDyTiles;
      job.roundDyHf32 = hf32Dy && !roundDy;
      job.xRowStep = s.stride[1] * p.phaseW;
      job.dyChannelStride = outPlane;
      job.dyRowStep = outW;
      job.sumChannelStride = sumChannel;
      for (int64_t n = 0; n < s.batch; ++n) {
        for (int64_t r0 = 0; r0 < outH; r0 += blockRows) {
          job.rows = std::min(blockRows, outH - r0);
          for (int64_t c0 = 0; c0 < outW; c0 += segment) {
            job.count = std::min(segment, outW - c0);
            const float* xBlock = xp + n * s.inChannels * p.planeFloats + r0 * job.xRowStep + c0;
            for (int64_t ot = 0; ot < channels; ot += kWeightChannels) {
              job.channels = static_cast<int>(std::min<int64_t>(kWeightChannels, channels - ot));
              const E* dyBlock = dy + (n * s.outChannels + o0 + ot) * outPlane + r0 * outW + c0;
              job.dy = dyBlock;
              if (roundDy) {
                // The block in dense rows.
                const int64_t blockFloats = job.rows * job.count;
                for (int c = 0; c < job.channels; ++c)
                  for (int64_t r = 0; r < job.rows; ++r)
                    roundHf32(reinterpret_cast<const float*>(dyBlock) + c * outPlane + r * outW,
                              job.count, rounded + c * blockFloats + r * job.count);
                job.dy = rounded;
                job.dyChannelStride = blockFloats;
                job.dyRowStep = job.count;
              }
              for (int64_t t0 = 0; t0 < p.taps; t0 += kWeightTaps) {
                job.x = xBlock;
                job.taps = taps.at + t0;
                job.tapCount = static_cast<int>(std::min<int64_t>(kWeightTaps, p.taps - t0));
                job.sums = groupSums + ot * sumChannel + t0 * kVector;
                f32_conv_bwdw_rows_o4t6_avx512(job);
              }
              // The block's dy is whole rows or one row's segment: one run
              // per channel, its elements in row-major order.
              if (dySums)
                addChannelRuns(dyType, dyBlock, outPlane, job.channels, job.rows * job.count,
                               n * outPlane + r0 * outW + c0, lanes + ot * kChannelSumLanes);
            }
          }
        }
      }
      for (int64_t o = 0; o < channels; ++o) {
        for (int64_t k = 0; k < p.taps; ++k)
          dw[(o0 + o) * p.taps + k] = laneTree(groupSums + o * sumChannel + k * kVector);
        if (dySums) dySums[o0 + o] = channelLaneTotal(lanes + o * kChannelSumLanes);
      }
    }
  });
}

}  // namespace

void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw, void* scratch,
                    double* dySums) {
  runWeight(s, x, dy, dw, scratch, dySums);
}

bool backwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch, double* dySums) {
  runWeight(s, x, dy, dw, scratch, dySums);
  return true;
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
