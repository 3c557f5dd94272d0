// Drivers of the blocked direct convolution: stage the operands, pack the
// weights, run the micro-kernels over a static list of work items, and
// unstage the result. Every output element is computed by exactly one work
// item in a fixed order, and the weight gradient's chunks are combined in
// chunk order, so results never depend on the thread count.

#include "kernels/conv/blocked/blocked_conv.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>

#include "common/thread_pool.h"
#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/blocked_plan.h"
#include "kernels/conv/blocked/blocked_staging.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/scratch_region.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

const BlockedKernels& kernelsFor(Isa isa) {
  return isa >= Isa::Avx512 ? kAvx512Kernels : kAvx2Kernels;
}

// w [O, C/G, taps] of the normal convolution.
struct Weights {
  const float* w;
  int64_t inChannels, outChannels, cinPerGroup, coutPerGroup, taps;
};

Weights weightsOf(const ConvShape& s, const float* w) {
  return {w,
          s.inChannels,
          s.outChannels,
          s.inChannels / s.groups,
          s.outChannels / s.groups,
          s.kernel[0] * s.kernel[1] * s.kernel[2]};
}

// Where the weights of one channel of a block live: its group and the
// offset of its row (output channel) or column (reduction channel) in w;
// group -1 marks a padding channel.
struct ChannelSlot {
  int64_t group = -1;
  int64_t offset = 0;
};

constexpr int64_t kPackSliceTaps = 16;

void packRowWeights(const BlockedKernels& k, const RowPassPlan& p, const TapTable& table,
                    const Weights& w, float* packed) {
  const bool data = p.kind == RowPassKind::BackwardData;
  const int64_t outChannels = data ? w.inChannels : w.outChannels;
  const int64_t redChannels = data ? w.outChannels : w.inChannels;
  const int64_t outPerGroup = data ? w.cinPerGroup : w.coutPerGroup;
  const int64_t redPerGroup = data ? w.coutPerGroup : w.cinPerGroup;
  // w[oc][ic % cinPerGroup][tap]: the element of (out o, reduction c) is at
  // outSlot.offset + redSlot.offset + tap in either direction.
  auto slot = [&](int64_t channel, int64_t count, int64_t perGroup, bool isOutputChannel) {
    ChannelSlot s;
    if (channel >= count) return s;
    s.group = channel / perGroup;
    s.offset =
        isOutputChannel ? channel * w.cinPerGroup * w.taps : channel % w.cinPerGroup * w.taps;
    return s;
  };
  parallelFor(p.blocks.tiles, [&](int64_t begin, int64_t end) {
    alignas(64) float buffer[kMaxTileBlocks * kLanes * kLanes * kPackSliceTaps];
    for (int64_t tile = begin; tile < end; ++tile) {
      int64_t ob0 = 0;
      int nb = 1;
      tileBlocks(p.blocks, tile, &ob0, &nb);
      const int64_t red0 = firstReduction(p.blocks, ob0);
      float* dst = packed + tile * p.tileWeightFloats;
      ChannelSlot outSlots[kMaxTileBlocks * kLanes];
      for (int64_t o = 0; o < nb * kLanes; ++o) {
        const int64_t ch = ob0 * kLanes + o;
        outSlots[o] = slot(ch, outChannels, outPerGroup, !data);
      }
      if (p.blocks.depthwise) {
        for (int64_t i = 0; i < p.tapsPerTile; ++i) {
          float* block = dst + i * p.tapFloats;
          const int64_t tap = table.weightTap[i];
          // w[ch][0][tap] in both directions.
          for (int64_t o = 0; o < kLanes; ++o) {
            const int64_t ch = ob0 * kLanes + o;
            block[o] = outSlots[o].group < 0 ? 0.0f : w.w[ch * w.taps + tap];
          }
        }
        continue;
      }
      if (p.blocks.laneGroups > 1) {
        // Interleaved groups (one block, its own groups): step j's vector
        // holds, in lane l, the weight from channel j of lane l's group to
        // lane l's output channel (lane orders as in StagedLayout).
        const int64_t groups = p.blocks.laneGroups, perGroup = kLanes / groups;
        for (int64_t i = 0; i < p.tapsPerTile; ++i) {
          float* block = dst + i * p.tapFloats;
          const int64_t tap = table.weightTap[i];
          const int64_t red = (red0 + table.redIndex[i]) * kLanes;
          for (int64_t j = 0; j < perGroup; ++j) {
            for (int64_t lane = 0; lane < kLanes; ++lane) {
              const ChannelSlot& s = outSlots[lane % groups * perGroup + lane / groups];
              const ChannelSlot r =
                  slot(red + lane % groups * perGroup + j, redChannels, redPerGroup, data);
              block[j * kLanes + lane] =
                  s.group >= 0 && s.group == r.group ? w.w[s.offset + r.offset + tap] : 0.0f;
            }
          }
        }
        continue;
      }
      // The weights of one reduction block and a slice of taps are first
      // gathered, in runs along w's rows, into a buffer in L1 laid out like
      // the packed blocks ([c][tap][o]); each packed block is then one copy.
      // Reading w straight in packed order strides by whole weight rows,
      // which for power-of-two channel counts land in a few cache sets and
      // thrash L1.
      const int64_t width = nb * kLanes;
      // The output lanes' offsets and groups as int32 for the vector gather,
      // where the ISA has one and they fit.
      int32_t outOffset[kMaxTileBlocks * kLanes], outGroup[kMaxTileBlocks * kLanes];
      bool vectorGather = k.gatherWeightSlice != nullptr;
      for (int64_t o = 0; o < width; ++o) {
        vectorGather =
            vectorGather && outSlots[o].offset <= INT32_MAX && outSlots[o].group <= INT32_MAX;
        outOffset[o] = static_cast<int32_t>(outSlots[o].offset);
        outGroup[o] = static_cast<int32_t>(outSlots[o].group);
      }
      int64_t bufferRed = -1, bufferTap0 = 0;
      // The current reduction block's blocks were written in place (no
      // buffer copies for its entries).
      bool direct = false;
      // One reduction block's entries at a time (the table may run the
      // blocks inside the taps), so that each buffer fill serves a run of
      // them.
      for (int64_t n = 0; n < table.blockBegin[table.blocks]; ++n) {
        const int64_t i = table.byBlock[n];
        const int64_t tap = table.weightTap[i];
        const int64_t red = (red0 + table.redIndex[i]) * kLanes;
        if (red != bufferRed || tap < bufferTap0 || tap >= bufferTap0 + kPackSliceTaps) {
          bufferRed = red;
          bufferTap0 = tap / kPackSliceTaps * kPackSliceTaps;
          const int64_t taps = std::min(kPackSliceTaps, w.taps - bufferTap0);
          if (vectorGather) {
            int64_t redOffset[kLanes], redGroup[kLanes];
            for (int64_t c = 0; c < kLanes; ++c) {
              const ChannelSlot r = slot(red + c, redChannels, redPerGroup, data);
              redOffset[c] = r.offset + bufferTap0;
              redGroup[c] = r.group;
            }
            WeightSliceJob job;
            job.w = w.w;
            job.outOffset = outOffset;
            job.outGroup = outGroup;
            job.width = static_cast<int>(width);
            job.redOffset = redOffset;
            job.redGroup = redGroup;
            job.taps = taps;
            job.sliceTaps = kPackSliceTaps;
            job.buffer = buffer;
            job.wFloats = w.outChannels * w.cinPerGroup * w.taps;
            // The next job: the next reduction block's slice at the same taps
            // (whole kernels), where it is one of the same group.
            const ChannelSlot here = slot(red, redChannels, redPerGroup, data);
            const ChannelSlot next = slot(red + kLanes, redChannels, redPerGroup, data);
            if (w.taps <= kPackSliceTaps && here.group >= 0 && next.group == here.group)
              job.nextJobStep = next.offset - here.offset;
            // Each tap's block of this reduction block, where the table
            // holds every tap once: the job may then write them in place.
            int64_t entryOfTap[kPackSliceTaps];
            float* tapDst[kPackSliceTaps];
            if (w.taps <= kPackSliceTaps &&
                entriesOfBlock(table, table.redIndex[i], w.taps, entryOfTap)) {
              for (int64_t t = 0; t < w.taps; ++t) tapDst[t] = dst + entryOfTap[t] * p.tapFloats;
              job.tapDst = tapDst;
            }
            direct = k.gatherWeightSlice(job);
          }
          for (int64_t c = 0; !vectorGather && c < kLanes; ++c) {
            const ChannelSlot r = slot(red + c, redChannels, redPerGroup, data);
            float* rows = buffer + c * kPackSliceTaps * width;
            for (int64_t o = 0; o < width; ++o) {
              const ChannelSlot& s = outSlots[o];
              const bool inGroup = s.group >= 0 && s.group == r.group;
              const float* from = w.w + s.offset + r.offset + bufferTap0;
              for (int64_t t = 0; t < taps; ++t) rows[t * width + o] = inGroup ? from[t] : 0.0f;
            }
          }
        }
        if (direct) continue;
        float* block = dst + i * p.tapFloats;
        for (int64_t c = 0; c < kLanes; ++c)
          std::memcpy(block + c * width, buffer + (c * kPackSliceTaps + tap - bufferTap0) * width,
                      static_cast<size_t>(width) * sizeof(float));
      }
    }
  });
}

// Every (image, tile, phase, row, segment) of one staged image group.
void runRowItems(const BlockedKernels& k, const RowPassPlan& p, const TapTable& table,
                 const float* in, const float* packed, int64_t images, float* out) {
  const bool slices = rowTapSlices();
  parallelFor(rowItemCount(p, images), [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const RowItem r = rowItemAt(p, images, item);
      RowJob job;
      job.in = in + r.in;
      job.taps = table.offsets + r.tapBegin;
      job.tapCount = r.tapCount;
      job.weights = packed + r.weights;
      job.tapStride = p.tapFloats;
      job.out = out + r.out;
      job.outColStep = r.outColStep;
      job.outBlockStride = p.out.blockStride;
      job.count = r.count;
      job.nb = r.nb;
      job.inStep = static_cast<int>(p.inStep);
      job.laneGroups = static_cast<int>(p.blocks.laneGroups);
      describeColumns(r, &job.cols);
      job.tapSlices = slices;
      (p.blocks.depthwise ? k.depthwiseRows : k.rows)(job);
    }
  });
}

// Staging and unstaging from fp32 buffers (rounded as staged when they are
// the caller's raw inputs), or from the caller's words of type shape.io
// (AVX-512 only).
void stageFrom(const BlockedKernels& k, const ConvShape& s, const float* dense,
               const StagedLayout& l, int64_t firstImage, int64_t images, float* staged) {
  stage(k, dense, l, firstImage, images, staged, s.inputRounding);
}
void stageFrom(const BlockedKernels&, const ConvShape& s, const uint16_t* dense,
               const StagedLayout& l, int64_t firstImage, int64_t images, float* staged) {
  stageWords(dense, s.io, l, firstImage, images, staged);
}
void unstageTo(const BlockedKernels& k, const ConvShape&, const float* staged,
               const StagedLayout& l, int64_t firstImage, int64_t images, float* dense,
               const float* bias) {
  unstage(k, staged, l, firstImage, images, dense, bias);
}
void unstageTo(const BlockedKernels&, const ConvShape& s, const float* staged,
               const StagedLayout& l, int64_t firstImage, int64_t images, uint16_t* dense,
               const float* bias) {
  unstageWords(staged, l, firstImage, images, dense, s.io, bias);
}

// The fp32 row kernels' traits. They skip the taps that read padding rows:
// RN50 3x3 512ch 7x7 (batch 8, 1 thread, medians of 5) forward 20.1 -> 17.8
// ms, data gradient 20.9 -> 18.3; 256ch 14x14 0.95-0.98, 3D video 16x28x28
// 0.95-0.96, RN50 3x3/2 data gradient 0.94 of before.
constexpr RowKernelTraits kRowTraits{0, true, kMaxTileBlocks};

template <typename Element>
void runRowPass(const BlockedKernels& k, const ConvShape& shape, RowPassKind kind,
                const Element* input, const float* w, Element* output, void* scratch,
                const float* bias) {
  RowPassPlan p;
  planRowPass(shape, kind, &p, nullptr, kRowTraits);
  TapTableStorage tableStorage;
  TapTable table = tableStorage.table(scratch, p.tapOffset, p.tapsPerTile);
  planRowPass(shape, kind, &p, &table, kRowTraits);
  float* in = scratchRegion<float>(scratch, p.inOffset);
  float* out = scratchRegion<float>(scratch, p.outOffset);
  float* packed = scratchRegion<float>(scratch, p.weightOffset);
  packRowWeights(k, p, table, weightsOf(shape, w), packed);
  const bool byImage = eachThreadTakesWholeImages(p, computeThreadCount(), true);
  for (int64_t image0 = 0; image0 < shape.batch; image0 += p.imagesPerGroup) {
    const int64_t images = std::min(p.imagesPerGroup, shape.batch - image0);
    if (!byImage) {
      stageFrom(k, shape, input, p.in, image0, images, in);
      runRowItems(k, p, table, in, packed, images, out);
      unstageTo(k, shape, out, p.out, image0, images, output, bias);
      continue;
    }
    // Each image staged, computed and written back by one thread while its
    // staged copies are in that core's L2 (the copies of a whole group
    // otherwise go out to memory and back twice), with a zeroed slack of its
    // own (wholeImagePitch), each thread in one room (wholeImageRoom). The
    // same work items with the same operands: the same bits as the loop
    // above.
    StagedLayout inOne = p.in, outOne = p.out;
    inOne.images = outOne.images = 1;
    const int64_t pitch = wholeImagePitch(p.in);
    parallelFor(images, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t room = wholeImageRoom(i, images);
        float* inImage = in + room * pitch;
        float* outImage = out + room * p.out.imageStride;
        stageFrom(k, shape, input, inOne, image0 + i, 1, inImage);
        runRowItems(k, p, table, inImage, packed, 1, outImage);
        unstageTo(k, shape, outImage, outOne, image0 + i, 1, output, bias);
      }
    });
  }
}

// A pointwise convolution on 16-bit words: the GEMM would read fp32 copies
// that the operator layer makes first, and staging the words directly
// measured faster for the forward (RN50 1x1 256->64 56x56 bf16, 1 thread,
// medians of 5: 11.3 -> 8.6 ms, and 13.6 -> 11.5 in a second run), not for
// the weight gradient (12.2 vs 13.3 ms) or the data gradient (12.1 vs 11.9).
bool wordsPointwise(const ConvShape& s) {
  return s.io != ElementType::F32 && conv_detail::describe(s).columnsAreInput;
}

bool channelKindMatches(const ConvShape& s, Channels kind, bool takesWordsPointwise = false) {
  // A pointwise convolution is a plain GEMM on the caller's memory; staging
  // it only adds traffic (measured slower for every pass).
  if (conv_detail::describe(s).columnsAreInput && !(takesWordsPointwise && wordsPointwise(s)))
    return false;
  const bool depthwise = s.groups > 1 && s.inChannels == s.groups && s.outChannels == s.groups;
  return depthwise == (kind == Channels::Depthwise);
}

// A strided pointwise data gradient is one GEMM (images with few positions
// stacked into one) and a strided scatter in the col2im algorithm, measured
// faster than the row passes: 1x1/2 256->512 at 56x56 dX 15.9 -> 10.9 ms, res5
// 1x1/2 1024->2048 at 14x14 15.3 -> 9.6 ms (2 threads).
bool col2imTakesPointwiseData(const ConvShape& s) { return conv_detail::unpaddedPointwise(s); }

// The forward of a strided pointwise layer with fewer than 256 output
// positions (res5 1x1/2 at 7x7): the im2col GEMM stacks the images into one
// product and measured faster (medians of 5: 1 thread 20.1 -> 14.8 ms, 2
// threads 11.9 -> 9.5 ms); at 28x28 outputs the row passes stay faster.
bool im2colTakesSmallPointwiseForward(const ConvShape& s) {
  return col2imTakesPointwiseData(s) && conv_detail::describe(s).outVolume < 256;
}

// The weight gradient of a 1D layer with stride 3 or more: each image is one
// row, so every work item is a single row whose x reads step stride * 16
// floats; im2col's GEMM measured twice as fast (1D k10 s5 512ch L4000, dW+db
// 2 threads 150-180 -> 84-94 ms; 2D stride-4 layers stay faster here).
bool im2colTakesStridedRowWeights(const ConvShape& s) {
  return s.out[0] == 1 && s.out[1] == 1 && s.in[0] == 1 && s.in[1] == 1 && s.stride[2] >= 3;
}

// The rows of one weight-gradient work item are cut into blocks inside one
// (image, outD) plane, at most kRowsPerBlock rows and kPositionsPerBlock
// positions each (long rows into column segments), so that the block's x
// and dy lines (2 x 64 bytes per position) stay in L1 across its taps: with
// 8 rows of 56 the kernels streamed them from L2 (pass bench, medians of 5,
// 1 / 2 threads: RN50 3x3 64ch 56x56 weight gradient 0.90 / 0.94 of before,
// 3D 3x3x3 0.90 / 0.89; blocks of 112 positions measured 1-7% slower than
// 224). Segments keep each sum's order (positions in order), so the bits do
// not depend on these sizes.
constexpr int64_t kRowsPerBlock = 8;
constexpr int64_t kPositionsPerBlock = 224;

// Taps along W whose x columns lie a whole number of output columns apart
// share their x reads (WeightTapsJob): taps kw, kw + step, kw + 2 step, ...
// read columns `shift` apart (stride 1: step 1, shift the dilation; stride
// 2, dilation 1: step 2, shift 1). step 0: every tap alone.
struct TapRuns {
  int64_t step = 0, shift = 0;
};

TapRuns tapRunsOf(const BlockedKernels& k, const WeightPassPlan& p) {
  TapRuns runs;
  const int64_t tapStep = p.tapStep[2], colStep = p.colStepX;
  if (!k.weightGradTaps || p.blocks.depthwise || p.blocks.laneGroups != 1 || tapStep <= 0 ||
      colStep <= 0)
    return runs;
  const int64_t common = std::gcd(tapStep, colStep);
  if (colStep / common >= p.taps[2]) return runs;  // no two taps share a column
  runs.step = colStep / common;
  runs.shift = tapStep / common;
  return runs;
}

// The taps of the next WeightTapsJob when `left` taps of a run's class
// remain: runs of three, and two twos rather than three and one.
int64_t tapRunLength(int64_t left) {
  return left == 4 ? 2 : std::min<int64_t>(left, WeightTapsJob::kMaxTaps);
}

// For each tap kw, the columns [lo, hi) of a segment [c0, c1) of the output
// rows whose x column is inside x (the others read padding; RN50 3x3 512ch
// 7x7 weight gradient, 1 thread, medians of 7: 21.2 -> 19.6 ms). Worked
// out once per segment for kernels up to kMaxTaps wide (per call they were
// 3-5% of a 7x7 layer's pass), per use for wider ones.
class SegmentColumns {
 public:
  SegmentColumns(const WeightPassPlan& p, int64_t width, int64_t c0, int64_t c1)
      : p_(p), width_(width), c0_(c0), c1_(c1), cached_(p.taps[2] <= kMaxTaps) {
    for (int64_t kw = 0; cached_ && kw < p.taps[2]; ++kw) compute(kw, &lo_[kw], &hi_[kw]);
  }
  void of(int64_t kw, int64_t* lo, int64_t* hi) const {
    if (!cached_) return compute(kw, lo, hi);
    *lo = lo_[kw];
    *hi = hi_[kw];
  }

 private:
  static constexpr int64_t kMaxTaps = 32;
  void compute(int64_t kw, int64_t* lo, int64_t* hi) const {
    rowsInside(p_.tapRows[2], 0, width_, kw, lo, hi);
    *lo = std::max(*lo, c0_);
    *hi = std::max(*lo, std::min(*hi, c1_));
  }
  const WeightPassPlan& p_;
  int64_t width_, c0_, c1_;
  bool cached_;
  int64_t lo_[kMaxTaps] = {}, hi_[kMaxTaps] = {};
};

// Where the weight pass reads x, in floats: its staged copy, or the
// caller's dense fp32 x itself (readsDenseX). Staging x was 13% of the RN50
// 3x3/2 128ch weight pass (x is 4x dy there) and 7% of the 3x3 64ch one.
struct XAddressing {
  const float* base = nullptr;  // image 0 (of the staged group), block 0, row 0, column 0
  int64_t imageStride = 0, blockStride = 0, laneStride = 1;
  int64_t rowStep[2] = {0, 0};  // per output row step along D and H
  int64_t tapStep[3] = {0, 0, 0};
  int64_t colStep = 0;  // per output column
};

XAddressing stagedX(const WeightPassPlan& p, const float* xs) {
  XAddressing a;
  a.base = xs;
  a.imageStride = p.x.imageStride;
  a.blockStride = p.x.blockStride;
  std::copy(p.rowStepX, p.rowStepX + 2, a.rowStep);
  std::copy(p.tapStep, p.tapStep + 3, a.tapStep);
  a.colStep = p.colStepX;
  return a;
}

// The taps kernel takes x's channels a plane apart, and reads only columns
// and rows inside x (the pass leaves padding products out), so dense fp32 x
// whose reduction blocks are whole channels, with no HF32 rounding to apply
// and no 1x1 strided dim (staged subsampled, its padding rows read), can be
// read where it lies.
bool readsDenseX(const BlockedKernels& k, const ConvShape& s, const WeightPassPlan& p) {
  if (!k.weightGradTaps || p.blocks.depthwise || p.blocks.laneGroups != 1 ||
      s.inputRounding != Rounding::None || s.inChannels % kLanes != 0 ||
      (s.inChannels / s.groups) % kLanes != 0)
    return false;
  for (int d = 0; d < 3; ++d)
    if (s.kernel[d] == 1 && s.stride[d] > 1) return false;
  return true;
}

// x [N, C, D, H, W] as it lies, from image firstImage on; `base` is where
// column 0 of row 0 of that image's padded x would be (before its first
// element when there is padding).
XAddressing denseX(const ConvShape& s, const float* x, int64_t firstImage) {
  XAddressing a;
  const int64_t dims[3] = {s.in[1] * s.in[2], s.in[2], 1};  // floats per step along D, H, W
  a.laneStride = s.in[0] * dims[0];
  a.blockStride = kLanes * a.laneStride;
  a.imageStride = s.inChannels * a.laneStride;
  for (int d = 0; d < 2; ++d) a.rowStep[d] = s.stride[d] * dims[d];
  for (int d = 0; d < 3; ++d) a.tapStep[d] = s.dilation[d] * dims[d];
  a.colStep = s.stride[2];
  const int64_t before = s.padBefore[0] * dims[0] + s.padBefore[1] * dims[1] + s.padBefore[2];
  const int64_t offset = firstImage * a.imageStride - before;
  a.base = reinterpret_cast<const float*>(reinterpret_cast<uintptr_t>(x) +
                                          static_cast<uintptr_t>(offset) * sizeof(float));
  return a;
}

// The taps kw of one kernel row (kd, kh) of a weight-gradient row block,
// over each tap's `columns`. x and dy: the block's first row at column 0 (x
// of tap kw = 0); dw: tap kw = 0's partial sums. `job` holds the rows,
// strides and accumulate flag.
void weightTapRow(const BlockedKernels& k, const WeightPassPlan& p, const TapRuns& runs,
                  const XAddressing& xa, const WeightJob& job, const float* x, const float* dy,
                  float* dw, const SegmentColumns& columns) {
  const ChannelBlocks& b = p.blocks;
  const int64_t taps = p.taps[2];
  const int64_t tapFloats = weightTapFloats(b);
  const int64_t step = runs.step > 0 ? runs.step : taps;
  for (int64_t first = 0; first < std::min(step, taps); ++first) {
    for (int64_t kw = first; kw < taps;) {
      const int64_t n = runs.step > 0 ? tapRunLength((taps - 1 - kw) / step + 1) : 1;
      // A lone tap on dense x takes the taps kernel too (the per-tap kernel
      // reads a position's 16 channels from one line).
      if (n == 1 && xa.laneStride == 1) {
        int64_t lo = 0, hi = 0;
        columns.of(kw, &lo, &hi);
        WeightJob one = job;
        one.cols = hi - lo;
        one.dy = dy + lo * kLanes;
        one.x = x + kw * xa.tapStep[2] + lo * xa.colStep;
        one.dw = dw + kw * tapFloats;
        (b.depthwise ? k.depthwiseWeightGrad : k.weightGrad)(one);
        kw += step;
        continue;
      }
      WeightTapsJob run;
      run.x = x + kw * xa.tapStep[2];
      run.xColStep = job.xColStep;
      run.xRowStride = job.xRowStride;
      run.xLaneStride = xa.laneStride;
      run.dy = dy;
      run.dyRowStride = job.dyRowStride;
      run.rows = job.rows;
      run.taps = static_cast<int>(n);
      run.tapShift = runs.shift;
      run.accumulate = job.accumulate;
      for (int t = 0; t < run.taps; ++t, kw += step) {
        columns.of(kw, &run.lo[t], &run.hi[t]);
        run.dw[t] = dw + kw * tapFloats;
      }
      k.weightGradTaps(run);
    }
  }
}

}  // namespace

bool acceptsForward(const ConvShape& shape, Channels kind) {
  RowPassPlan p;
  return channelKindMatches(shape, kind, true) && !im2colTakesSmallPointwiseForward(shape) &&
         planRowPass(shape, RowPassKind::Forward, &p, nullptr, kRowTraits);
}
bool acceptsBackwardData(const ConvShape& shape, Channels kind) {
  RowPassPlan p;
  return channelKindMatches(shape, kind) && !col2imTakesPointwiseData(shape) &&
         planRowPass(shape, RowPassKind::BackwardData, &p, nullptr, kRowTraits);
}
bool acceptsBackwardWeight(const ConvShape& shape, Channels kind) {
  WeightPassPlan p;
  return channelKindMatches(shape, kind) && !im2colTakesStridedRowWeights(shape) &&
         planWeightPass(shape, &p);
}

uint64_t forwardScratchBytes(const ConvShape& shape) {
  RowPassPlan p;
  return planRowPass(shape, RowPassKind::Forward, &p, nullptr, kRowTraits) ? p.bytes : 0;
}
uint64_t backwardDataScratchBytes(const ConvShape& shape) {
  RowPassPlan p;
  return planRowPass(shape, RowPassKind::BackwardData, &p, nullptr, kRowTraits) ? p.bytes : 0;
}
uint64_t backwardWeightScratchBytes(const ConvShape& shape) {
  WeightPassPlan p;
  return planWeightPass(shape, &p) ? p.bytes : 0;
}

void forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
             void* scratch, const float* bias) {
  runRowPass(kernelsFor(isa), shape, RowPassKind::Forward, x, w, y, scratch, bias);
}

void backwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                  void* scratch, const float* bias) {
  runRowPass(kernelsFor(isa), shape, RowPassKind::BackwardData, dy, w, dx, scratch, bias);
}

namespace {

// Combines the partial sums of one (output block, reduction block) pair over
// the chunks in chunk order and writes them into dw [O, C/G, taps], a slice
// of its taps at a time: the sum over chunks runs along the partials' memory
// (a stream the prefetcher follows) into a buffer in L1, and the transpose
// into dw's rows reads that buffer. (Transposing straight out of the
// partials missed the cache on every element: half of the pass on 512
// channels.)
void combinePairChunks(const BlockedKernels& k, const WeightPassPlan& p, const ConvShape& shape,
                       const float* partial, int64_t pair, float* dw) {
  const ChannelBlocks& b = p.blocks;
  const int64_t tapFloats = weightTapFloats(b);
  const int64_t tapCount = p.taps[0] * p.taps[1] * p.taps[2];
  const Weights shapeW = weightsOf(shape, nullptr);
  const int64_t chunkFloats = p.pairs * p.blockFloats;
  constexpr int64_t kSliceTaps = 16;
  alignas(64) float buffer[kSliceTaps * kLanes * kLanes];
  const int64_t ob = pair / b.redPerGroup;
  const int64_t cb = firstReduction(b, ob) + pair % b.redPerGroup;
  for (int64_t t0 = 0; t0 < tapCount; t0 += kSliceTaps) {
    const int64_t taps = std::min(kSliceTaps, tapCount - t0);
    const float* first = partial + pair * p.blockFloats + t0 * tapFloats;
    // One chunk: its partial sums are the sums, read where they lie (its
    // item wrote them just now, so they are in cache; copying them was 4%
    // of RN50 3x3 512ch 7x7's weight pass).
    const float* sums = first;
    if (p.chunks > 1) {
      const int64_t n = taps * tapFloats;
      for (int64_t j = 0; j < n; ++j) buffer[j] = first[j];
      for (int64_t chunk = 1; chunk < p.chunks; ++chunk) {
        const float* more = first + chunk * chunkFloats;
        for (int64_t j = 0; j < n; ++j) buffer[j] += more[j];
      }
      sums = buffer;
    }
    if (b.laneGroups > 1) {
      // sums[(tap * perGroup + j) * 16 + lane]: from channel j of lane
      // l's group to lane l's output channel (StagedLayout lane order).
      const int64_t groups = b.laneGroups, perGroup = kLanes / groups;
      for (int64_t lane = 0; lane < kLanes; ++lane) {
        const int64_t oc = ob * kLanes + lane % groups * perGroup + lane / groups;
        if (oc >= shapeW.outChannels) continue;
        float* dwRow = dw + oc * shapeW.cinPerGroup * tapCount + t0;
        for (int64_t j = 0; j < perGroup; ++j)
          for (int64_t tap = 0; tap < taps; ++tap)
            dwRow[j * tapCount + tap] = sums[(tap * perGroup + j) * kLanes + lane];
      }
      continue;
    }
    if (!b.depthwise && (shape.groups == 1 ||
                         (shapeW.coutPerGroup % kLanes == 0 && shapeW.cinPerGroup % kLanes == 0))) {
      // Blocks inside one group: reduction block cb holds channels cb * 16
      // on (up to 16) of output block ob's group.
      const int64_t icBegin = ob * kLanes / shapeW.coutPerGroup * shapeW.cinPerGroup;
      WeightTapTiles tiles;
      tiles.sums = sums;
      tiles.tapStride = tapFloats;
      tiles.taps = static_cast<int>(taps);
      tiles.ins =
          static_cast<int>(std::min<int64_t>(kLanes, icBegin + shapeW.cinPerGroup - cb * kLanes));
      tiles.outs = static_cast<int>(std::min<int64_t>(kLanes, shapeW.outChannels - ob * kLanes));
      tiles.dw = dw + ob * kLanes * shapeW.cinPerGroup * tapCount +
                 (cb * kLanes - icBegin) * tapCount + t0;
      tiles.rowStride = shapeW.cinPerGroup * tapCount;
      tiles.channelStride = tapCount;
      k.storeWeightTaps(tiles);
      continue;
    }
    for (int64_t o = 0; o < kLanes; ++o) {
      const int64_t oc = ob * kLanes + o;
      if (oc >= shapeW.outChannels) break;
      // The reduction channels of oc's group: [icBegin, icBegin + cinPerGroup).
      const int64_t icBegin = oc / shapeW.coutPerGroup * shapeW.cinPerGroup;
      float* dwRow = dw + oc * shapeW.cinPerGroup * tapCount + t0;
      for (int64_t c = 0; c < (b.depthwise ? 1 : kLanes); ++c) {
        const int64_t ic = b.depthwise ? oc : cb * kLanes + c;
        if (ic < icBegin || ic >= icBegin + shapeW.cinPerGroup) continue;
        const float* src = sums + (b.depthwise ? o : c * kLanes + o);
        float* dst = dwRow + (ic - icBegin) * tapCount;
        for (int64_t tap = 0; tap < taps; ++tap) dst[tap] = src[tap * tapFloats];
      }
    }
  }
}

void combineWeightChunks(const BlockedKernels& k, const WeightPassPlan& p, const ConvShape& shape,
                         const float* partial, float* dw) {
  parallelFor(p.pairs, [&](int64_t begin, int64_t end) {
    for (int64_t pair = begin; pair < end; ++pair)
      combinePairChunks(k, p, shape, partial, pair, dw);
  });
}

// The weight pass's x as fp32 values it can read in place, if it is that.
const float* denseFloats(const float* x) { return x; }
const float* denseFloats(const uint16_t*) { return nullptr; }

template <typename Element>
void runWeightPass(const BlockedKernels& k, const ConvShape& shape, const Element* x,
                   const Element* dy, float* dw, void* scratch) {
  WeightPassPlan p;
  planWeightPass(shape, &p);
  float* xs = scratchRegion<float>(scratch, p.xOffset);
  float* dys = scratchRegion<float>(scratch, p.dyOffset);
  float* partial = scratchRegion<float>(scratch, p.partialOffset);
  const ChannelBlocks& b = p.blocks;
  const int64_t planeRows = shape.out[1];
  const int64_t rowsPerImage = shape.out[0] * planeRows;
  const int64_t width = shape.out[2];
  const int64_t segment = std::max<int64_t>(1, std::min(width, kPositionsPerBlock));
  // A strided layer reads colStepX / 16 x lines per position.
  const int64_t linesPerPosition = std::max<int64_t>(1, p.colStepX / kLanes);
  const int64_t rowsPerBlock = std::max<int64_t>(
      1, std::min(kRowsPerBlock, kPositionsPerBlock / (segment * linesPerPosition)));
  const int64_t tapFloats = weightTapFloats(b);
  const TapRuns runs = tapRunsOf(k, p);
  // The first row of chunk c (chunk c ends where c + 1 begins).
  auto chunkBegin = [&](int64_t c) { return p.rows * c / p.chunks; };
  // Staged groups of about one L2 of images per thread (see
  // weightGroupImages); the slack after a group's last image is zeroed
  // behind it.
  const int64_t groupSize = weightGroupImages(p, computeThreadCount());
  StagedLayout xGroup = p.x, dyGroup = p.dy;
  xGroup.images = dyGroup.images = groupSize;
  const float* denseXs = denseFloats(x);
  const bool xInPlace = denseXs && readsDenseX(k, shape, p);
  // Work item (chunk, ob): the chunk's rows [rowBegin, rowEnd) of images
  // image0 on, whose x xa addresses and whose dy is staged in dys. Each row
  // block of the chunk is read once for every reduction block and tap while
  // it is in cache.
  auto runItem = [&](int64_t chunk, int64_t ob, int64_t rowBegin, int64_t rowEnd, int64_t image0,
                     const XAddressing& xa) {
    const int64_t firstRow = chunkBegin(chunk);
    const int64_t cb0 = firstReduction(b, ob);
    float* part = partial + (chunk * p.pairs + ob * b.redPerGroup) * p.blockFloats;
    for (int64_t r0 = rowBegin; r0 < rowEnd;) {
      const int64_t plane = r0 / planeRows, oh = r0 % planeRows;
      const int64_t rows = std::min({rowsPerBlock, rowEnd - r0, planeRows - oh});
      const int64_t image = plane / shape.out[0] - image0, od = plane % shape.out[0];
      WeightJob job;
      job.xColStep = xa.colStep;
      job.xRowStride = xa.rowStep[1];
      job.dyRowStride = p.dy.rowStride;
      job.laneGroups = static_cast<int>(b.laneGroups);
      const float* dyBase = dys + image * p.dy.imageStride + ob * p.dy.blockStride +
                            od * p.dy.planeStride + oh * p.dy.rowStride;
      for (int64_t c0 = 0; c0 == 0 || c0 < width; c0 += segment) {  // one pass if empty
        const SegmentColumns columns(p, width, c0, std::min(width, c0 + segment));
        job.accumulate = r0 != firstRow || c0 > 0;
        for (int64_t r = 0; r < b.redPerGroup; ++r) {
          const float* xBase = xa.base + image * xa.imageStride + (cb0 + r) * xa.blockStride +
                               od * xa.rowStep[0] + oh * xa.rowStep[1];
          int64_t tap = 0;
          for (int64_t kd = 0; kd < p.taps[0]; ++kd) {
            int64_t depthLo = 0, depthHi = 0;  // the block's plane: inside or not
            rowsInside(p.tapRows[0], od, 1, kd, &depthLo, &depthHi);
            for (int64_t kh = 0; kh < p.taps[1]; ++kh) {
              // The block's rows whose x row is inside x: the others read
              // padding (a first block still runs, with no rows, so that
              // it zeroes its partial sums).
              // (RN50 3x3 512ch 7x7 weight gradient, 1 thread, medians of
              // 5: 22.2 -> 19.8 ms; 256ch 14x14 19.8 -> 18.3.)
              int64_t lo = 0, hi = 0;
              if (depthHi > depthLo) rowsInside(p.tapRows[1], oh, rows, kh, &lo, &hi);
              job.rows = hi - lo;
              weightTapRow(k, p, runs, xa, job,
                           xBase + kd * xa.tapStep[0] + kh * xa.tapStep[1] + lo * xa.rowStep[1],
                           dyBase + lo * p.dy.rowStride, part + r * p.blockFloats + tap * tapFloats,
                           columns);
              tap += p.taps[2];
            }
          }
        }
      }
      r0 += rows;
    }
  };
  // One chunk: an item's sums are final once it has run the last rows, so it
  // writes its output block's weights while they are in its cache (a region
  // after the pass read every partial sum back from L3: RN50 3x3 512ch 7x7
  // dW spent 13% of its time there).
  auto writeBlockWeights = [&](int64_t ob) {
    for (int64_t r = 0; r < b.redPerGroup; ++r)
      combinePairChunks(k, p, shape, partial, ob * b.redPerGroup + r, dw);
  };
  if constexpr (std::is_same_v<Element, float>) {
    if (xInPlace && p.imagesPerGroup >= shape.batch) {
      // Each item stages its own dy (its chunk's rows of block ob, which no
      // other item reads) right before it sums them, from L1 / L2: one
      // parallel region for the batch instead of a staging and a summing
      // region per image group, at whose ends a thread waited.
      const XAddressing xa = denseX(shape, denseXs, 0);
      parallelFor(p.chunks * b.outBlocks, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
          const int64_t chunk = item / b.outBlocks, ob = item % b.outBlocks;
          const int64_t rowBegin = chunkBegin(chunk), rowEnd = chunkBegin(chunk + 1);
          for (int64_t r = rowBegin; r < rowEnd;) {
            const int64_t image = r / rowsPerImage, within = r % rowsPerImage;
            const int64_t n = std::min(rowEnd - r, rowsPerImage - within);
            const int64_t staged = (image * p.dy.blocks + ob) * rowsPerImage + within;
            k.stageRows(dy, p.dy, staged, staged + n, dys);
            r += n;
          }
          runItem(chunk, ob, rowBegin, rowEnd, 0, xa);
          if (p.chunks == 1) writeBlockWeights(ob);
        }
      });
      if (p.chunks > 1) combineWeightChunks(k, p, shape, partial, dw);
      return;
    }
  }
  for (int64_t image0 = 0; image0 < shape.batch; image0 += groupSize) {
    const int64_t images = std::min(groupSize, shape.batch - image0);
    XAddressing xa = stagedX(p, xs);
    if (xInPlace) {
      xa = denseX(shape, denseXs, image0);
    } else {
      stageFrom(k, shape, x, xGroup, image0, images, xs);
    }
    stageFrom(k, shape, dy, dyGroup, image0, images, dys);
    const int64_t groupBegin = image0 * rowsPerImage;
    const int64_t groupEnd = (image0 + images) * rowsPerImage;
    // The chunks with rows in this group: [firstChunk, endChunk).
    int64_t firstChunk = 0, endChunk = 0;
    for (int64_t c = 0; c < p.chunks; ++c) {
      if (chunkBegin(c + 1) <= groupBegin) firstChunk = c + 1;
      if (chunkBegin(c) < groupEnd) endChunk = c + 1;
    }
    parallelFor((endChunk - firstChunk) * b.outBlocks, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const int64_t chunk = firstChunk + item / b.outBlocks, ob = item % b.outBlocks;
        runItem(chunk, ob, std::max(chunkBegin(chunk), groupBegin),
                std::min(chunkBegin(chunk + 1), groupEnd), image0, xa);
        if (p.chunks == 1 && image0 + images == shape.batch) writeBlockWeights(ob);
      }
    });
  }
  if (p.chunks > 1) combineWeightChunks(k, p, shape, partial, dw);
}

}  // namespace

void backwardWeight(Isa isa, const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch) {
  runWeightPass(kernelsFor(isa), shape, x, dy, dw, scratch);
}

void forwardWords(const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                  void* scratch, const float* bias) {
  runRowPass(kAvx512Kernels, shape, RowPassKind::Forward, x, w, y, scratch, bias);
}
void backwardDataWords(const ConvShape& shape, const uint16_t* dy, const float* w, uint16_t* dx,
                       void* scratch, const float* bias) {
  runRowPass(kAvx512Kernels, shape, RowPassKind::BackwardData, dy, w, dx, scratch, bias);
}
void backwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch) {
  runWeightPass(kAvx512Kernels, shape, x, dy, dw, scratch);
}

void storeWeightTaps(const WeightTapTiles& j) {
  for (int o = 0; o < j.outs; ++o)
    for (int i = 0; i < j.ins; ++i)
      for (int t = 0; t < j.taps; ++t)
        j.dw[o * j.rowStride + i * j.channelStride + t] = j.sums[t * j.tapStride + i * 16 + o];
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
