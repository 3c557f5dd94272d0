#include "kernels/conv/blocked/blocked_plan.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/conv_geometry.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

using conv_detail::ceilDiv;
using conv_detail::floorDiv;

// Positions per work item: a whole number of register tiles of every kernel.
constexpr int64_t kSegmentLength = 112;
// Work items the weight pass aims at (a constant, never the thread count).
constexpr int64_t kWeightItemsTarget = 64;
// Output rows shorter than this are flattened into one row per plane.
constexpr int64_t kShortRow = 5;
// Dense channel padding wastes at most this factor of the multiply-adds.
constexpr double kMaxPaddingWaste = 1.5;

int64_t blocksOf(int64_t channels) { return (channels + kLanes - 1) / kLanes; }

using Sizes = CheckedSizes;

void setTileWidth(ChannelBlocks* b, int64_t width) {
  b->tileWidth = width;
  b->tiles = b->outBlocks / b->outPerGroup * ((b->outPerGroup + width - 1) / width);
}

bool channelBlocks(const ConvShape& s, bool backwardData, ChannelBlocks* b) {
  const int64_t G = s.groups;
  if (G <= 0 || s.inChannels % G != 0 || s.outChannels % G != 0) return false;
  const int64_t cig = s.inChannels / G, cog = s.outChannels / G;
  const int64_t outCh = backwardData ? s.inChannels : s.outChannels;
  const int64_t redCh = backwardData ? s.outChannels : s.inChannels;
  const int64_t outPg = backwardData ? cig : cog;
  const int64_t redPg = backwardData ? cog : cig;
  *b = ChannelBlocks{};
  b->outBlocks = blocksOf(outCh);
  b->redBlocks = blocksOf(redCh);
  if (G == 1) {
    const double padded = static_cast<double>(b->outBlocks * kLanes) * (b->redBlocks * kLanes);
    if (padded > kMaxPaddingWaste * static_cast<double>(outCh) * static_cast<double>(redCh))
      return false;
    b->outPerGroup = b->outBlocks;
    b->redPerGroup = b->redBlocks;
    b->tileWidth = 2;
  } else if (cig == 1 && cog == 1) {
    b->outPerGroup = b->redPerGroup = 1;
    b->depthwise = true;
  } else if (cig % kLanes == 0 && cog % kLanes == 0) {
    b->outPerGroup = outPg / kLanes;
    b->redPerGroup = redPg / kLanes;
    b->tileWidth = 2;
  } else if (cig == cog && kLanes % cig == 0 && cig >= 4) {
    // Several whole groups share one block: every pass stages it with the
    // groups' channels interleaved.
    b->outPerGroup = b->redPerGroup = 1;
    b->laneGroups = kLanes / cig;
  } else {
    return false;
  }
  setTileWidth(b, b->tileWidth);
  return true;
}

// One spatial dim of the convolution after 1x1 strided dims are reduced to
// unit stride (their input is staged subsampled, their data gradient
// scattered back onto the hit positions).
struct Dim {
  int64_t in, out, kernel, stride, pad, dilation;
  bool reduced;  // the staged grid is x[q * stride - pad]
  int64_t originalStride, originalPad;
};

Dim effectiveDim(const ConvShape& s, int d) {
  Dim dim{s.in[d],       s.out[d], s.kernel[d], s.stride[d],   s.padBefore[d],
          s.dilation[d], false,    s.stride[d], s.padBefore[d]};
  if (dim.kernel == 1 && dim.stride > 1) {
    dim.reduced = true;
    dim.in = dim.out;
    dim.stride = 1;
    dim.pad = 0;
    dim.dilation = 1;
  }
  return dim;
}

void finishLayout(StagedLayout* l, Sizes* sz) {
  l->blocks = blocksOf(l->channels);
  l->rowStride = sz->mul(l->size[2], kLanes);
  l->planeStride = sz->mul(l->rowStride, l->size[1]);
  l->blockStride = sz->mul(l->planeStride, l->size[0]);
  l->imageStride = sz->mul(l->blockStride, l->blocks);
  l->floats = static_cast<uint64_t>(sz->add(sz->mul(l->imageStride, l->images), l->slackFloats));
}

// x as the forward and weight passes read it: padded so that every window is
// in range, 1x1 strided dims subsampled.
StagedLayout stagedInput(const ConvShape& s, const Dim dims[3], Sizes* sz) {
  StagedLayout l;
  l.images = s.batch;
  l.channels = s.inChannels;
  for (int d = 0; d < 3; ++d) {
    l.source[d] = s.in[d];
    if (dims[d].reduced) {
      l.size[d] = dims[d].out;
      l.step[d] = dims[d].originalStride;
      l.first[d] = -dims[d].originalPad;
    } else {
      l.size[d] = sz->add(sz->add(sz->mul(dims[d].out - 1, dims[d].stride),
                                  sz->mul(dims[d].kernel - 1, dims[d].dilation)),
                          1);
      l.first[d] = -dims[d].pad;
    }
  }
  return l;
}

// How many images a staged group holds within kStagingBudgetBytes; the
// layouts are resized to hold one group. False when one image is too big.
bool groupImages(int64_t batch, std::initializer_list<StagedLayout*> layouts, int64_t* perGroup) {
  double perImage = 0.0;
  for (const StagedLayout* l : layouts)
    perImage += static_cast<double>(l->imageStride) * sizeof(float);
  const double fit = static_cast<double>(kStagingBudgetBytes) / std::max(perImage, 1.0);
  if (fit < 1.0 || batch < 1) return false;
  *perGroup = std::min<int64_t>(batch, static_cast<int64_t>(fit));
  for (StagedLayout* l : layouts) {
    l->images = *perGroup;
    l->floats = static_cast<uint64_t>(l->imageStride * l->images + l->slackFloats);
  }
  return true;
}

uint64_t align64(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

struct Region {
  uint64_t next = 0;
  bool ok = true;
  uint64_t take(uint64_t bytes) {
    const uint64_t at = next;
    uint64_t end = 0;
    if (!checkedAdd(next, align64(bytes), &end) || bytes > (UINT64_MAX >> 1)) ok = false;
    next = end;
    return at;
  }
};

uint64_t floatBytes(uint64_t floats, bool* ok) {
  uint64_t bytes = 0;
  if (!checkedMul(floats, uint64_t{sizeof(float)}, &bytes)) *ok = false;
  return bytes;
}

// Valid taps of one stride phase of the data gradient along a dim:
// dX[phase + stride * j] = sum over k of dy[j + e_k] * w[k].
struct PhaseTaps {
  int64_t count = 0;  // dX positions of this phase
  int64_t first = 0;  // the first valid k
  int64_t every = 1;  // valid k are first, first + every, ...
  int64_t taps = 0;
};

int64_t gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

PhaseTaps phaseTaps(const Dim& dim, int64_t phase) {
  PhaseTaps t;
  t.count = dim.in > phase ? ceilDiv(dim.in - phase, dim.stride) : 0;
  t.every = dim.stride / gcd(dim.stride, dim.dilation);
  t.first = -1;
  for (int64_t k = 0; k < std::min(dim.kernel, t.every); ++k) {
    if (((phase + dim.pad - k * dim.dilation) % dim.stride + dim.stride) % dim.stride == 0) {
      t.first = k;
      break;
    }
  }
  t.taps = t.first < 0 ? 0 : (dim.kernel - 1 - t.first) / t.every + 1;
  return t;
}

// Entry n of a phase's tap table: its reduction block and (D, H, W) tap
// indices, with the reduction block outermost or (pairsOuter, see
// RowPassPlan::skipsPaddingRows) the (D, H) pair, then the block, then W.
struct TapIndex {
  int64_t red, d, h, w;
};
TapIndex tableEntry(int64_t n, int64_t reds, int64_t dTaps, int64_t hTaps, int64_t wTaps,
                    bool pairsOuter) {
  TapIndex t;
  t.w = n % wTaps;
  if (pairsOuter) {
    t.red = n / wTaps % reds;
    t.h = n / (wTaps * reds) % hTaps;
    t.d = n / (wTaps * reds * hTaps);
  } else {
    t.h = n / wTaps % hTaps;
    t.d = n / (wTaps * hTaps) % dTaps;
    t.red = n / (wTaps * hTaps * dTaps);
  }
  return t;
}

int64_t tapShift(const Dim& dim, int64_t phase, int64_t k) {
  return floorDiv(phase + dim.pad - k * dim.dilation, dim.stride);
}

// Four output blocks per register tile (6 positions x 64 channels) instead
// of two (14 x 32): each input value broadcast feeds four FMAs. It pays for
// W-strided layers, whose tiles read twice the input lines per FMA (RN50
// 3x3/2 128ch 56x56 forward, batch 8, medians of 5: 1 thread 11.4-11.9 ->
// 10.1 ms, 2 threads 6.05 -> 5.40), and for long rows (3x3 64ch 56x56: 1
// thread 10.7 -> 10.0, 2 threads 5.34 -> 5.10; 3D 3x3x3 64ch 16x56x56 56.3
// -> 53.9), not for short ones, cut into slivers of tiles (3x3 256ch 14x14
// 8.9 -> 9.5; 28 wide: level; the Intel Xeon VM alike: 28 wide level, 14x14
// and 7x7 4-35% slower). The data gradient likewise: long rows (3x3 64ch
// 56x56: 11.1 -> 10.1 ms) and the stride-phase rows of W-strided layers,
// which the Zen 5 EPYC ran level (3x3/2, 28 wide) and the Intel Xeon VM
// faster (interleaved medians of 7, 1 / 2 threads: RN50 3x3/2 128ch dX 14.8
// -> 13.8 / 7.36 -> 6.94 ms, transposed 4x4/2 256->128 forward 30.6 -> 28.9
// / 14.8 -> 14.1, 128->64 11.4 -> 11.2 / 5.60 -> 5.55). Kernels that take
// four blocks only (the fp32 ones; the 16-bit word kernels take one or two,
// also for HF32 operands, which they run as hi/lo splits), measured on fp32
// operands only, and only where a group's blocks come in fours.
constexpr int64_t kQuadRow = 48;
bool takesQuadTiles(const ConvShape& s, const Dim& w, bool flatten, const ChannelBlocks& b,
                    const RowKernelTraits& traits) {
  const bool fp32 = s.io == ElementType::F32 && s.operands != OperandValues::BF16 &&
                    s.operands != OperandValues::F16;
  const bool longRows = w.stride == 1 && w.out >= kQuadRow;
  return traits.maxTileBlocks >= 4 && fp32 && !flatten && !w.reduced &&
         (longRows || w.stride == 2) && b.tileWidth == 2 && b.outPerGroup % 4 == 0;
}

}  // namespace

bool planRowPass(const ConvShape& s, RowPassKind kind, RowPassPlan* plan, TapTable* table,
                 const RowKernelTraits& traits) {
  RowPassPlan& p = *plan;
  p = RowPassPlan{};
  p.kind = kind;
  const bool data = kind == RowPassKind::BackwardData;
  if (!channelBlocks(s, data, &p.blocks)) return false;
  Dim dims[3];
  for (int d = 0; d < 3; ++d) dims[d] = effectiveDim(s, d);
  Sizes sz;
  // Flattening runs each plane as one long row over the staged width, so it
  // also computes the (kernel - 1) * dilation padding columns of every row:
  // 22% of a 7x7 layer's multiply-adds, 12% of a 14x14 one's. It pays only
  // where a row alone is too short for a register tile (measured: 7x7 and
  // 14x14 layers, forward and data gradient, 5-30% faster unflattened).
  const bool flatten = dims[1].stride == 1 && dims[2].stride == 1 &&
                       s.out[2] < (traits.shortRow > 0 ? traits.shortRow : kShortRow);
  if (takesQuadTiles(s, dims[2], flatten, p.blocks, traits)) setTileWidth(&p.blocks, 4);
  const int64_t nbMax = p.blocks.tileWidth;
  // Interleaved groups: one 16-lane weight vector per channel of a group.
  const int64_t tapFloats = p.blocks.depthwise        ? kLanes
                            : p.blocks.laneGroups > 1 ? kLanes / p.blocks.laneGroups * kLanes
                                                      : kLanes * kLanes * nbMax;

  if (!data) {
    if (dims[2].stride > traits.maxInStep) return false;
    p.inStep = dims[2].stride;
    p.in = stagedInput(s, dims, &sz);
    p.in.slackFloats = sz.mul(sz.add(p.in.size[2], 1), kLanes);
    finishLayout(&p.in, &sz);
    p.out.images = s.batch;
    p.out.channels = s.outChannels;
    for (int d = 0; d < 3; ++d) {
      p.out.source[d] = s.out[d];
      p.out.size[d] = s.out[d];
    }
    if (flatten) p.out.size[2] = p.in.size[2];
    finishLayout(&p.out, &sz);
    Phase& ph = p.phases[0];
    p.phaseCount = 1;
    ph.rows[0] = s.out[0];
    ph.rows[1] = flatten ? 1 : s.out[1];
    ph.cols = flatten ? sz.mul(s.out[1], p.out.size[2]) : s.out[2];
    ph.inRowStep[0] = sz.mul(dims[0].stride, p.in.planeStride);
    ph.inRowStep[1] = sz.mul(dims[1].stride, p.in.rowStride);
    ph.outRowStep[0] = p.out.planeStride;
    ph.outRowStep[1] = p.out.rowStride;
    ph.tapCount = sz.mul(p.blocks.redPerGroup, s.kernel[0] * s.kernel[1] * s.kernel[2]);
    if (!sz.ok) return false;
    if (traits.skipPaddingRows) {
      p.skipsPaddingRows = true;
      for (int d = 0; d < 2; ++d) {
        const Dim& dim = dims[d];
        // One flattened row per plane: every kh runs.
        ph.tapRows[d] = d == 1 && flatten
                            ? TapRows{0, 0, 0, 1, dim.kernel}
                            : TapRows{dim.stride, -dim.pad, dim.dilation, dim.in, dim.kernel};
      }
      ph.tapsPerRowPair = p.blocks.redPerGroup * dims[2].kernel;
      if (!flatten) {
        const Dim& dim = dims[2];
        ph.tapCols = TapRows{dim.stride, -dim.pad, dim.dilation, dim.in, dim.kernel};
      }
    }
    if (table) {
      for (int64_t i = 0; i < ph.tapCount; ++i) {
        const TapIndex t = tableEntry(i, p.blocks.redPerGroup, dims[0].kernel, dims[1].kernel,
                                      dims[2].kernel, traits.skipPaddingRows);
        table->offsets[i] = t.red * p.in.blockStride + t.d * dims[0].dilation * p.in.planeStride +
                            t.h * dims[1].dilation * p.in.rowStride +
                            t.w * dims[2].dilation * kLanes;
        table->redIndex[i] = static_cast<int32_t>(t.red);
        table->weightTap[i] =
            static_cast<int32_t>((t.d * dims[1].kernel + t.h) * dims[2].kernel + t.w);
      }
    }
  } else {
    // gradOutput staged with margins so that every phase's shifted reads stay
    // inside; dX staged on its own grid (or the hit grid of reduced dims).
    PhaseTaps taps[3][kMaxPhases];
    int64_t margin[3], extent[3];
    int64_t phasesTotal = 1;
    for (int d = 0; d < 3; ++d) {
      const Dim& dim = dims[d];
      if (dim.stride > kMaxPhases) return false;
      phasesTotal *= dim.stride;
      if (phasesTotal > kMaxPhases) return false;
      int64_t lo = 0, hi = dim.out;  // read range in gradOutput index space
      for (int64_t phase = 0; phase < dim.stride; ++phase) {
        taps[d][phase] = phaseTaps(dim, phase);
        const PhaseTaps& t = taps[d][phase];
        if (t.count == 0 || t.taps == 0) continue;
        const int64_t last = t.first + (t.taps - 1) * t.every;
        lo = std::min(lo, tapShift(dim, phase, last));
        hi = std::max(hi, sz.add(t.count - 1 + 1, tapShift(dim, phase, t.first)));
      }
      margin[d] = -lo;
      extent[d] = sz.add(hi, margin[d]);
    }
    p.in.images = s.batch;
    p.in.channels = s.outChannels;
    for (int d = 0; d < 3; ++d) {
      p.in.source[d] = s.out[d];
      p.in.size[d] = extent[d];
      p.in.first[d] = -margin[d];
    }
    p.in.slackFloats = sz.mul(sz.add(p.in.size[2], 1), kLanes);
    finishLayout(&p.in, &sz);
    p.out.images = s.batch;
    p.out.channels = s.inChannels;
    for (int d = 0; d < 3; ++d) {
      p.out.source[d] = s.in[d];
      p.out.size[d] = dims[d].in;
      if (dims[d].reduced) {
        p.out.step[d] = dims[d].originalStride;
        p.out.first[d] = -dims[d].originalPad;
      }
    }
    if (flatten) p.out.size[2] = p.in.size[2];
    finishLayout(&p.out, &sz);
    if (!sz.ok) return false;
    int64_t tapIndex = 0;
    for (int64_t pd = 0; pd < dims[0].stride; ++pd)
      for (int64_t phh = 0; phh < dims[1].stride; ++phh)
        for (int64_t pw = 0; pw < dims[2].stride; ++pw) {
          const PhaseTaps& td = taps[0][pd];
          const PhaseTaps& th = taps[1][phh];
          const PhaseTaps& tw = taps[2][pw];
          if (td.count == 0 || th.count == 0 || tw.count == 0) continue;
          Phase& ph = p.phases[p.phaseCount++];
          ph.rows[0] = td.count;
          ph.rows[1] = flatten ? 1 : th.count;
          ph.cols = flatten ? sz.mul(th.count, p.out.size[2]) : tw.count;
          ph.inRowStep[0] = p.in.planeStride;
          ph.inRowStep[1] = p.in.rowStride;
          ph.outRowStep[0] = sz.mul(dims[0].stride, p.out.planeStride);
          ph.outRowStep[1] = sz.mul(dims[1].stride, p.out.rowStride);
          ph.outColStep = dims[2].stride * kLanes;
          ph.outBase = pd * p.out.planeStride + phh * p.out.rowStride + pw * kLanes;
          ph.tapBegin = tapIndex;
          ph.tapCount = p.blocks.redPerGroup * td.taps * th.taps * tw.taps;
          if (traits.skipPaddingRows) {
            // Tap j of the phase reads gradOutput row q + shift(first) - j *
            // every * dilation / stride (every * dilation is a multiple of
            // the stride).
            p.skipsPaddingRows = true;
            const PhaseTaps* t[2] = {&td, &th};
            const int64_t phase[2] = {pd, phh};
            for (int d = 0; d < 2; ++d) {
              const Dim& dim = dims[d];
              ph.tapRows[d] =
                  d == 1 && flatten
                      ? TapRows{0, 0, 0, 1, t[d]->taps}
                      : TapRows{1, tapShift(dim, phase[d], t[d]->first),
                                -(t[d]->every * dim.dilation / dim.stride), dim.out, t[d]->taps};
            }
            ph.tapsPerRowPair = p.blocks.redPerGroup * tw.taps;
            if (!flatten) {
              const Dim& dim = dims[2];
              ph.tapCols = TapRows{1, tapShift(dim, pw, tw.first),
                                   -(tw.every * dim.dilation / dim.stride), dim.out, tw.taps};
            }
          }
          if (table) {
            int64_t i = tapIndex;
            for (int64_t n = 0; n < ph.tapCount; ++n, ++i) {
              const TapIndex t = tableEntry(n, p.blocks.redPerGroup, td.taps, th.taps, tw.taps,
                                            traits.skipPaddingRows);
              const int64_t r = t.red, a = t.d, b = t.h, c = t.w;
              const int64_t kd = td.first + a * td.every;
              const int64_t kh = th.first + b * th.every;
              const int64_t kw = tw.first + c * tw.every;
              table->offsets[i] = r * p.in.blockStride +
                                  (tapShift(dims[0], pd, kd) + margin[0]) * p.in.planeStride +
                                  (tapShift(dims[1], phh, kh) + margin[1]) * p.in.rowStride +
                                  (tapShift(dims[2], pw, kw) + margin[2]) * kLanes;
              table->redIndex[i] = static_cast<int32_t>(r);
              table->weightTap[i] =
                  static_cast<int32_t>((kd * s.kernel[1] + kh) * s.kernel[2] + kw);
            }
          }
          tapIndex += ph.tapCount;
        }
  }

  p.in.laneGroups = p.out.laneGroups = p.blocks.laneGroups;
  p.segmentLength = kSegmentLength;
  int64_t items = 0, taps = 0;
  for (int64_t i = 0; i < p.phaseCount; ++i) {
    Phase& ph = p.phases[i];
    ph.segments = std::max<int64_t>(1, ceilDiv(ph.cols, p.segmentLength));
    ph.itemBegin = items;
    ph.weightBegin = sz.mul(ph.tapBegin, tapFloats);
    items = sz.add(items, sz.mul(sz.mul(ph.rows[0], ph.rows[1]), ph.segments));
    taps = sz.add(taps, ph.tapCount);
  }
  p.tapsPerTile = taps;
  p.tapFloats = tapFloats;
  p.tileWeightFloats = sz.mul(taps, tapFloats);
  p.itemsPerImageTile = items;
  if (!sz.ok || !groupImages(s.batch, {&p.in, &p.out}, &p.imagesPerGroup)) return false;
  // Room for whole images per thread, each staged with a slack of its own.
  const int64_t pitched = sz.add(sz.mul(wholeImagePitch(p.in), p.imagesPerGroup), p.in.slackFloats);
  p.in.floats = std::max<uint64_t>(p.in.floats, static_cast<uint64_t>(pitched));

  bool ok = true;
  Region region;
  p.inOffset = region.take(floatBytes(p.in.floats, &ok));
  p.outOffset = region.take(floatBytes(p.out.floats, &ok));
  p.weightOffset = region.take(
      floatBytes(static_cast<uint64_t>(sz.mul(p.tileWeightFloats, p.blocks.tiles)), &ok));
  p.tapOffset = region.take(static_cast<uint64_t>(sz.mul(sz.add(taps, 1), kTapTableEntryBytes)));
  p.bytes = region.next;
  if (table && sz.ok) indexByBlock(table, taps, p.blocks.redPerGroup);
  return ok && region.ok && sz.ok;
}

void indexByBlock(TapTable* table, int64_t entries, int64_t blocks) {
  TapTable& t = *table;
  t.blocks = std::clamp<int64_t>(blocks, 0, entries);
  // Counts at blockBegin[r + 1], summed into block ends, then each entry
  // placed (in reverse, so each block keeps table order) at its block's end
  // moved down one; the ends are then starts, shifted down one place.
  std::fill(t.blockBegin, t.blockBegin + t.blocks + 1, 0);
  std::fill(t.byBlock, t.byBlock + entries, 0);
  int32_t counted = 0;
  for (int64_t i = 0; i < entries; ++i) {
    const int64_t r = t.redIndex[i];
    if (r < 0 || r >= t.blocks) continue;
    ++t.blockBegin[r + 1];
    ++counted;
  }
  for (int64_t r = 0; r < t.blocks; ++r) t.blockBegin[r + 1] += t.blockBegin[r];
  for (int64_t i = entries - 1; i >= 0; --i) {
    const int64_t r = t.redIndex[i];
    if (r >= 0 && r < t.blocks && t.blockBegin[r + 1] > 0)
      t.byBlock[--t.blockBegin[r + 1]] = static_cast<int32_t>(i);
  }
  for (int64_t r = 0; r < t.blocks; ++r) t.blockBegin[r] = t.blockBegin[r + 1];
  t.blockBegin[t.blocks] = counted;
}

bool entriesOfBlock(const TapTable& table, int64_t red, int64_t taps, int64_t* entryOfTap) {
  for (int64_t t = 0; t < taps; ++t) entryOfTap[t] = -1;
  if (red < 0 || red >= table.blocks) return false;
  const int64_t begin = table.blockBegin[red], end = table.blockBegin[red + 1];
  if (end - begin != taps) return false;
  for (int64_t k = begin; k < end; ++k) {
    const int64_t i = table.byBlock[k];
    const int64_t t = table.weightTap[i];
    if (t < 0 || t >= taps || entryOfTap[t] >= 0) return false;
    entryOfTap[t] = i;
  }
  return true;
}

void tileBlocks(const ChannelBlocks& b, int64_t tile, int64_t* first, int* nb) {
  const int64_t width = b.tileWidth;
  const int64_t perGroup = (b.outPerGroup + width - 1) / width;
  const int64_t group = tile / perGroup, k = tile % perGroup;
  *first = group * b.outPerGroup + width * k;
  *nb = static_cast<int>(std::min(width, b.outPerGroup - width * k));
}

void tapsInside(const TapRows& t, int64_t q, int64_t* lo, int64_t* hi) {
  const int64_t base = q * t.qStep + t.first;  // the row of tap 0
  if (t.jStep == 0) {
    *lo = 0;
    *hi = base >= 0 && base < t.extent ? t.taps : 0;
  } else if (t.jStep > 0) {
    conv_detail::validOutputRange(base, t.jStep, t.extent, t.taps, lo, hi);
  } else {
    // Taps in reverse order: tap taps - 1 - j reads base + (taps - 1) * jStep - j * jStep.
    int64_t rlo = 0, rhi = 0;
    conv_detail::validOutputRange(base + (t.taps - 1) * t.jStep, -t.jStep, t.extent, t.taps, &rlo,
                                  &rhi);
    *lo = t.taps - rhi;
    *hi = t.taps - rlo;
  }
}

void rowsInside(const TapRows& t, int64_t q, int64_t rows, int64_t j, int64_t* lo, int64_t* hi) {
  conv_detail::validOutputRange(q * t.qStep + t.first + j * t.jStep, t.qStep, t.extent, rows, lo,
                                hi);
}

int64_t wholeImagePitch(const StagedLayout& l, int64_t extraSlack) {
  return (l.imageStride + l.slackFloats + extraSlack + kLanes - 1) / kLanes * kLanes;
}

// Measured (pass bench, medians of 7, 1 / 2 threads): RN50 3x3 64ch 56x56
// fp32 forward 0.97 / 0.93, data gradient 0.97 / 0.95, 1D k5 forward 0.97 /
// 0.90; bf16 on AMX forward 1.00 / 0.95, 3x3 256ch 14x14 0.98 / 0.93. Past
// the budget (bf16 dilated 3x3 256ch 28x28: 1 MB of staged words and 1.2 MB
// of weights) whole images measured 6-11% slower.
bool eachThreadTakesWholeImages(const RowPassPlan& p, int64_t threads, bool stagesOutput) {
  const int64_t images = p.imagesPerGroup;
  if (images < threads || (images % threads != 0 && images < 4 * threads)) return false;
  const double floats =
      static_cast<double>(p.in.imageStride) +
      (stagesOutput ? static_cast<double>(p.out.imageStride) : 0.0) +
      static_cast<double>(p.blocks.tiles) * static_cast<double>(p.tileWeightFloats);
  return floats * sizeof(float) <= static_cast<double>(kWholeImageBytes);
}

int64_t wholeImageRoom(int64_t image, int64_t images) {
  const RegionWorker worker = regionWorker();
  return worker.threads <= images ? worker.index : image;
}

RowItem rowItemAt(const RowPassPlan& p, int64_t images, int64_t item) {
  // Consecutive items share the larger of one tile's weights and one
  // image's staged input, so it stays in cache.
  const bool imageMajor = p.in.imageStride >= p.tileWeightFloats;
  const int64_t outer = item / p.itemsPerImageTile;
  const int64_t image = imageMajor ? outer / p.blocks.tiles : outer % images;
  const int64_t tile = imageMajor ? outer % p.blocks.tiles : outer / images;
  int64_t local = item % p.itemsPerImageTile;
  int64_t ph = 0;
  while (ph + 1 < p.phaseCount && p.phases[ph + 1].itemBegin <= local) ++ph;
  const Phase& phase = p.phases[ph];
  local -= phase.itemBegin;
  const int64_t segment = local % phase.segments;
  const int64_t row = local / phase.segments;
  const int64_t rowD = row / phase.rows[1], rowH = row % phase.rows[1];
  int64_t ob0 = 0;
  RowItem r;
  tileBlocks(p.blocks, tile, &ob0, &r.nb);
  const int64_t col0 = segment * p.segmentLength;
  r.in = image * p.in.imageStride + firstReduction(p.blocks, ob0) * p.in.blockStride +
         rowD * phase.inRowStep[0] + rowH * phase.inRowStep[1] + col0 * p.inStep * kLanes;
  r.tapBegin = phase.tapBegin;
  r.tapCount = phase.tapCount;
  r.weights = tile * p.tileWeightFloats + phase.weightBegin;
  if (p.skipsPaddingRows) {
    // The (D, H) tap pairs from the first with both input rows inside to the
    // last (at a 3D corner the pairs between include some that read padding).
    int64_t lo[2], hi[2];
    tapsInside(phase.tapRows[0], rowD, &lo[0], &hi[0]);
    tapsInside(phase.tapRows[1], rowH, &lo[1], &hi[1]);
    const int64_t hTaps = phase.tapRows[1].taps;
    if (hi[0] <= lo[0] || hi[1] <= lo[1]) {
      r.tapCount = 0;
    } else {
      const int64_t first = lo[0] * hTaps + lo[1], last = (hi[0] - 1) * hTaps + hi[1] - 1;
      r.tapBegin += first * phase.tapsPerRowPair;
      r.tapCount = (last - first + 1) * phase.tapsPerRowPair;
      r.weights += first * phase.tapsPerRowPair * p.tapFloats;
    }
  }
  r.out = image * p.out.imageStride + ob0 * p.out.blockStride + phase.outBase +
          rowD * phase.outRowStep[0] + rowH * phase.outRowStep[1] + col0 * phase.outColStep;
  r.outColStep = phase.outColStep;
  r.count = std::min(p.segmentLength, phase.cols - col0);
  if (p.skipsPaddingRows && phase.tapCols.taps > 0) {
    r.tapCols = &phase.tapCols;
    r.firstCol = col0;
  }
  return r;
}

void describeColumns(const RowItem& r, ColumnRanges* c) {
  if (!r.tapCols || r.tapCols->taps > ColumnRanges::kMaxTaps || r.count > INT16_MAX) return;
  c->taps = static_cast<int>(r.tapCols->taps);
  for (int64_t j = 0; j < r.tapCols->taps; ++j) {
    int64_t lo = 0, hi = 0;
    rowsInside(*r.tapCols, r.firstCol, r.count, j, &lo, &hi);
    c->lo[j] = static_cast<int16_t>(lo);
    c->hi[j] = static_cast<int16_t>(hi < lo ? lo : hi);
  }
}

// Measured through aclnnConvolutionBackward (dW only, medians of 7, against
// one group of the whole batch): 1 thread RN50 3x3 64ch 56x56 0.88, 3x3/2
// 128ch 0.84, 1D k5 L2048 0.85 (pass bench 0.74-0.88); 2 threads within
// the noise (0.95-1.12 across runs; one image per thread measured best
// against 2, 4 or all of them per thread in a third run).
int64_t weightGroupImages(const WeightPassPlan& p, int64_t threads) {
  const double perImage =
      (static_cast<double>(p.x.imageStride) + static_cast<double>(p.dy.imageStride)) *
      sizeof(float);
  const double fit = static_cast<double>(kWholeImageBytes) / std::max(perImage, 1.0);
  const int64_t perThread = fit >= 1.0 ? static_cast<int64_t>(std::min(fit, 1e6)) : 1;
  return std::clamp<int64_t>(perThread * std::max<int64_t>(threads, 1), 1,
                             std::max<int64_t>(p.imagesPerGroup, 1));
}

bool planWeightPass(const ConvShape& s, WeightPassPlan* plan) {
  WeightPassPlan& p = *plan;
  p = WeightPassPlan{};
  if (!channelBlocks(s, false, &p.blocks)) return false;
  Dim dims[3];
  for (int d = 0; d < 3; ++d) dims[d] = effectiveDim(s, d);
  Sizes sz;
  p.x = stagedInput(s, dims, &sz);
  p.x.slackFloats = kLanes;
  finishLayout(&p.x, &sz);
  p.dy.images = s.batch;
  p.dy.channels = s.outChannels;
  for (int d = 0; d < 3; ++d) {
    p.dy.source[d] = s.out[d];
    p.dy.size[d] = s.out[d];
  }
  finishLayout(&p.dy, &sz);
  const int64_t strides[3] = {p.x.planeStride, p.x.rowStride, kLanes};
  for (int d = 0; d < 3; ++d) {
    p.taps[d] = dims[d].kernel;
    p.tapStep[d] = sz.mul(dims[d].dilation, strides[d]);
  }
  for (int d = 0; d < 3; ++d)
    p.tapRows[d] =
        TapRows{dims[d].stride, -dims[d].pad, dims[d].dilation, dims[d].in, dims[d].kernel};
  p.rowStepX[0] = sz.mul(dims[0].stride, p.x.planeStride);
  p.rowStepX[1] = sz.mul(dims[1].stride, p.x.rowStride);
  p.colStepX = sz.mul(dims[2].stride, kLanes);
  p.rows = sz.mul(sz.mul(s.batch, s.out[0]), s.out[1]);
  p.pairs = sz.mul(p.blocks.outBlocks, p.blocks.redPerGroup);
  if (!sz.ok || !groupImages(s.batch, {&p.x, &p.dy}, &p.imagesPerGroup)) return false;
  const int64_t tapCount = sz.mul(sz.mul(p.taps[0], p.taps[1]), p.taps[2]);
  // Interleaved groups keep 16 / laneGroups vectors per tap, not 16.
  p.x.laneGroups = p.dy.laneGroups = p.blocks.laneGroups;
  p.blockFloats = sz.mul(tapCount, weightTapFloats(p.blocks));
  if (!sz.ok || p.pairs == 0 || p.rows == 0) return false;
  // More chunks balance more threads but cost partial sums; both limits are
  // shape-only, so the reduction order is the same for every thread count.
  int64_t chunks = std::clamp<int64_t>(ceilDiv(kWeightItemsTarget, p.blocks.outBlocks), 1, p.rows);
  const double operandFloats = static_cast<double>(p.x.floats) + static_cast<double>(p.dy.floats);
  const double partialFloats = static_cast<double>(p.pairs) * static_cast<double>(p.blockFloats);
  while (chunks > 1 && chunks * partialFloats > 0.5 * operandFloats) --chunks;
  p.chunks = chunks;
  bool ok = true;
  Region region;
  p.xOffset = region.take(floatBytes(p.x.floats, &ok));
  p.dyOffset = region.take(floatBytes(p.dy.floats, &ok));
  p.partialOffset = region.take(
      floatBytes(static_cast<uint64_t>(sz.mul(sz.mul(chunks, p.pairs), p.blockFloats)), &ok));
  p.bytes = region.next;
  return ok && region.ok && sz.ok;
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
