#include "kernels/conv/nchw_plane/conv_plane.h"

#include <atomic>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/scratch_region.h"
#include "kernels/conv/scratch_slots.h"
#include "kernels/convert/convert.h"
#include "kernels/convert/convert_runs.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {
namespace {

constexpr int64_t kMaxExtent = kMaxPlaneExtent;

int64_t srcChannelsOf(const ConvShape& s) { return s.inChannels / s.groups; }
int64_t dstChannelsOf(const ConvShape& s) { return s.outChannels / s.groups; }
// Taps of the whole kernel (depth taps outermost) and of one plane.
int64_t tapsOf(const ConvShape& s) { return s.kernel[0] * s.kernel[1] * s.kernel[2]; }
int64_t planeTapsOf(const ConvShape& s) { return s.kernel[1] * s.kernel[2]; }
// A 3D layer: the correlation also sums over depth taps.
bool hasDepth(const ConvShape& s) { return s.in[0] != 1 || s.out[0] != 1 || s.kernel[0] != 1; }

bool dimWithinLimits(const ConvShape& s, int d) {
  if (s.in[d] <= 0 || s.out[d] <= 0 || s.kernel[d] <= 0 || s.kernel[d] > kMaxTaps) return false;
  if (s.in[d] >= kMaxExtent || s.out[d] >= kMaxExtent) return false;
  if (s.dilation[d] <= 0 || (s.kernel[d] - 1) * s.dilation[d] >= kMaxExtent) return false;
  return s.padBefore[d] >= 0 && s.padBefore[d] < kMaxExtent;
}

// Unit strides along H and W, the plane dims within the limits.
bool planeDims(const ConvShape& s) {
  if (s.groups < 1 || s.inChannels % s.groups != 0 || s.outChannels % s.groups != 0) return false;
  if (s.stride[1] != 1 || s.stride[2] != 1) return false;
  if (!dimWithinLimits(s, 1) || !dimWithinLimits(s, 2)) return false;
  return planeTapsOf(s) <= kMaxTaps && s.in[1] * s.in[2] < kMaxExtent &&
         s.out[1] * s.out[2] < kMaxExtent;
}

}  // namespace

bool planeGeometry(const ConvShape& s) {
  return !hasDepth(s) && s.padBefore[0] == 0 && planeDims(s);
}

bool volumeGeometry(const ConvShape& s) {
  return s.stride[0] == 1 && dimWithinLimits(s, 0) && planeDims(s);
}

void planeSourceRange(const PlaneMap& m, const PlaneVectors& b, int64_t v0, int64_t v1, int64_t* lo,
                      int64_t* hi) {
  const int64_t taps = m.kh * m.kw, plane = m.srcH * m.srcW;
  int64_t minOffset = b.tapOffset[0], maxOffset = b.tapOffset[0];
  for (int64_t t = 1; t < taps; ++t) {
    minOffset = b.tapOffset[t] < minOffset ? b.tapOffset[t] : minOffset;
    maxOffset = b.tapOffset[t] > maxOffset ? b.tapOffset[t] : maxOffset;
  }
  // The vectors' src starts are not monotonic where dst rows are wider
  // than src rows (a data gradient of a short gradOutput): a row's last
  // vector starts past the next row's first.
  int64_t first = b.srcBase[v0], last = b.srcBase[v0];
  for (int64_t v = v0 + 1; v < v1; ++v) {
    if (!b.valid[v]) continue;
    first = b.srcBase[v] < first ? b.srcBase[v] : first;
    last = b.srcBase[v] > last ? b.srcBase[v] : last;
  }
  *lo = first + minOffset;
  *hi = last + kLanes + maxOffset;
  if (*lo < 0) *lo = 0;
  if (*hi > plane) *hi = plane;
}

void planeDestinationRange(const PlaneMap& m, const PlaneVectors& b, int64_t v0, int64_t v1,
                           int64_t* lo, int64_t* hi) {
  int64_t last = v1 - 1;
  while (last > v0 && !b.valid[last]) --last;
  *lo = b.dstBase[v0];
  *hi = b.dstBase[last] + kLanes;
  if (*hi > m.dstH * m.dstW) *hi = m.dstH * m.dstW;
}

void correlationSourceRange(const GroupCorrelation& j, int64_t* lo, int64_t* hi) {
  planeSourceRange(j.map, *j.vectors, j.v0, j.v1, lo, hi);
}

namespace {

bool groupedShape(const ConvShape& s) {
  return s.groups > 1 && planeGeometry(s) && srcChannelsOf(s) <= kMaxGroupChannels &&
         dstChannelsOf(s) <= kMaxGroupChannels;
}

// The share of lanes a correlation's tiles compute that are dst positions
// (tiles of 3 vectors inside blocks of kBlockVectors), in percent.
int64_t laneUsePercent(const PlaneMap& m) {
  const int64_t positions = m.dstH * m.dstW, vectors = m.vectors();
  const int64_t whole = vectors / kBlockVectors * kBlockVectors;
  const int64_t computed = whole + (vectors - whole + 2) / 3 * 3;
  return positions * 100 / (computed * kLanes);
}

PlaneMap forwardMap(const ConvShape& s) { return PlaneMap(forwardWindow(s)); }
PlaneMap dataGradientMap(const ConvShape& s) { return PlaneMap(dataGradientWindow(s)); }

// The larger of the two maps' tables: the scratch of either pass.
uint64_t maxPlaneVectorsBytes(const ConvShape& s) {
  const uint64_t fwd = planeVectorsBytes(forwardMap(s));
  const uint64_t data = planeVectorsBytes(dataGradientMap(s));
  return fwd > data ? fwd : data;
}

// The table of the pass's dst vectors, described once at `memory`.
PlaneVectors describedPlane(const PlaneMap& m, void* memory) {
  PlaneVectors v = placePlaneVectors(m, memory);
  f32_conv_plane_describe_avx512(m, &v);
  return v;
}

Elements wordsKind(const ConvShape& s) {
  return s.io == ElementType::F16 ? Elements::F16 : Elements::Bf16;
}

uint64_t packedWeightBytes(const ConvShape& s) {
  return static_cast<uint64_t>(s.groups * tapsOf(s) * srcChannelsOf(s) * dstChannelsOf(s)) *
         sizeof(float);
}
uint64_t partialSumBytes(const ConvShape& s) { return packedWeightBytes(s) * kLanes; }

// packed[g][t][src channel][dst channel] from w [O][S][taps]: the forward's
// (src x, dst y) or, flipped, the data gradient's (src dy, dst dx).
void packWeights(const ConvShape& s, const float* w, bool dataGradient, float* packed) {
  const int64_t G = s.groups, S = srcChannelsOf(s), D = dstChannelsOf(s), taps = tapsOf(s);
  for (int64_t g = 0; g < G; ++g) {
    float* pg = packed + g * taps * S * D;
    for (int64_t d = 0; d < D; ++d) {
      for (int64_t c = 0; c < S; ++c) {
        const float* wk = w + ((g * D + d) * S + c) * taps;
        for (int64_t t = 0; t < taps; ++t) {
          if (dataGradient)
            pg[((taps - 1 - t) * D + d) * S + c] = wk[t];
          else
            pg[(t * S + c) * D + d] = wk[t];
        }
      }
    }
  }
}

// Raw HF32 inputs (ConvShape::inputRounding): each work item first rounds
// the src elements its vectors read into its thread's slot of the scratch,
// and its tiles read them there (every element rounded once per item, not
// once per tap and tile as rounding while loading would, nor a rounded copy
// of the whole tensor, a pass through memory). A slot holds one group's
// src channels, `roundedSpan` elements each.
constexpr uint64_t kMaxRoundedSlotBytes = uint64_t{1} << 20;
// Items of a few blocks while their slot stays this small (a small group's
// whole planes: the rows around a block are then rounded once, not for
// every block that reads them).
constexpr uint64_t kRoundedItemBytes = uint64_t{64} << 10;

// At least the span of the plane elements (rows of rowElements, planes of
// planeElements) that any `count` consecutive vectors of the map start at,
// plus `reach` elements beyond the last (its lanes and taps), in whole
// vectors.
int64_t vectorsSpan(const PlaneMap& m, int64_t count, int64_t rowElements, int64_t reach,
                    int64_t planeElements) {
  int64_t base = (count - 1) * kLanes;  // across rows: the k-th starts at 16 k
  if (!m.acrossRows()) {
    // Row ends crossed by `count` consecutive vectors, and the largest
    // column step within a row: within one row at most count - 1 vectors;
    // across rows up to a whole row's, whose last vector may start past
    // the next row's first (dst rows wider than src rows).
    const int64_t perRow = m.vectorsPerRow();
    int64_t rows = (perRow - 1 + count - 1) / perRow;
    if (rows > m.dstH - 1) rows = m.dstH - 1;
    const int64_t columns = rows > 0 || count > perRow ? perRow - 1 : count - 1;
    base = rows * rowElements + columns * kLanes;
  }
  int64_t span = base + reach;
  if (span > planeElements) span = planeElements;
  return (span + kLanes - 1) / kLanes * kLanes;
}

// At least the span planeSourceRange gives any `count` consecutive vectors.
int64_t roundedSpan(const PlaneMap& m, int64_t count) {
  const int64_t tapSpan = (m.kh - 1) * m.dilH * m.srcW + (m.kw - 1) * m.dilW;
  return vectorsSpan(m, count, m.srcW, kLanes + tapSpan, m.srcH * m.srcW);
}
// And planeDestinationRange.
int64_t roundedDestinationSpan(const PlaneMap& m, int64_t count) {
  return vectorsSpan(m, count, m.dstW, kLanes, m.dstH * m.dstW);
}

uint64_t spanBytes(int64_t channels, int64_t span) {
  return scratchAligned(static_cast<uint64_t>(channels * span) * sizeof(float));
}

// Dst vectors per work item: one block, or with raw HF32 src as many blocks
// as kRoundedItemBytes allows.
int64_t itemVectors(const ConvShape& s, const PlaneMap& m, int64_t srcChannels) {
  if (s.inputRounding != Rounding::HF32) return kBlockVectors;
  const int64_t blocks = (m.vectors() + kBlockVectors - 1) / kBlockVectors;
  int64_t count = 1;
  while (count < blocks &&
         spanBytes(srcChannels, roundedSpan(m, (count + 1) * kBlockVectors)) <= kRoundedItemBytes)
    ++count;
  return count * kBlockVectors;
}

uint64_t roundedSlotBytes(const ConvShape& s, bool dataGradient) {
  const PlaneMap m = dataGradient ? dataGradientMap(s) : forwardMap(s);
  const int64_t channels = dataGradient ? dstChannelsOf(s) : srcChannelsOf(s);
  return spanBytes(channels, roundedSpan(m, itemVectors(s, m, channels)));
}

// HF32 operands need slots the limit allows, for the passes they may take
// (one block per item: what inputRounding, which selection never reads,
// changes is the slot, never whether the limit holds).
bool roundedSlotsFit(const ConvShape& s, bool dataGradient) {
  if (s.operands != OperandValues::HF32) return true;
  const PlaneMap m = dataGradient ? dataGradientMap(s) : forwardMap(s);
  const int64_t channels = dataGradient ? dstChannelsOf(s) : srcChannelsOf(s);
  return spanBytes(channels, roundedSpan(m, kBlockVectors)) <= kMaxRoundedSlotBytes;
}

uint64_t roundedSlotsBytes(const ConvShape& s) {
  if (s.inputRounding != Rounding::HF32) return 0;
  const uint64_t fwd = roundedSlotBytes(s, false), data = roundedSlotBytes(s, true);
  return (fwd > data ? fwd : data) * static_cast<uint64_t>(computeThreadCount());
}

// The weight gradient's slot: a block's x rows and dy rows of one image.
constexpr int64_t kWeightRun = 8;  // dy channels per work item
int64_t weightXSpan(const PlaneMap& m) { return roundedSpan(m, kWeightBlockVectors); }
int64_t weightDySpan(const PlaneMap& m) { return roundedDestinationSpan(m, kWeightBlockVectors); }
uint64_t weightSlotBytes(const ConvShape& s) {
  const PlaneMap m = forwardMap(s);
  const int64_t dy = dstChannelsOf(s) < kWeightRun ? dstChannelsOf(s) : kWeightRun;
  return scratchAligned(
      static_cast<uint64_t>(srcChannelsOf(s) * weightXSpan(m) + dy * weightDySpan(m)) *
      sizeof(float));
}

// Calls body(item, slot, end) for every item in [0, items), in the ranges
// the pool hands out (ending at `end`): with `slots`, each range holding a
// scratch slot of its own for as long as it runs (ScratchSlots; -1 when the
// pool has more threads than the scratch was sized for), else slot -1.
// Items are independent, so results never depend on the cut.
template <typename Body>
void forEachItem(int64_t items, bool slots, Body&& body) {
  ScratchSlots claims(slots ? computeThreadCount() : 0);
  parallelFor(items, [&](int64_t begin, int64_t end) {
    const ScratchSlots::Claim claim(claims);
    for (int64_t item = begin; item < end; ++item) body(item, claim.slot(), end);
  });
}

// j.src's elements the job reads, rounded to HF32 into `slot`.
void roundSource(GroupCorrelation* j, float* slot, int64_t span) {
  int64_t lo = 0, hi = 0;
  correlationSourceRange(*j, &lo, &hi);
  if (hi - lo > span) hi = lo + span;  // never (roundedSpan bounds it): the slot's end
  const auto* src = static_cast<const float*>(j->src);
  static const detail::GatherRunFn round =
      detail::vectorGatherRun(ElementType::F32, Rounding::HF32);
  // Each channel's run is a few lines, too short for the hardware
  // prefetcher to follow from one plane to the next: the lines this many
  // channels ahead are requested first.
  constexpr int64_t kAhead = 8;
  constexpr int64_t kLineFloats = 16;
  for (int64_t c = 0; c < j->srcChannels && hi > lo; ++c) {
    if (c + kAhead < j->srcChannels) {
      const float* ahead = src + (c + kAhead) * j->srcStride + lo;
      for (int64_t i = 0; i < hi - lo; i += kLineFloats) __builtin_prefetch(ahead + i);
      __builtin_prefetch(ahead + (hi - lo - 1));
    }
    const float* from = src + c * j->srcStride + lo;
    float* to = slot + c * span;
    if (round) {
      round(from, hi - lo, to);
    } else {
      for (int64_t i = 0; i < hi - lo; ++i) to[i] = roundFloat(from[i], Rounding::HF32);
    }
  }
  j->src = slot;
  j->srcStride = span;
  j->srcOrigin = lo;
}

// Calls run(job, group) for every work item of a correlation: (image,
// group, block of dst vectors), each writing its own outputs; stops early
// (and returns false) once a call returns false. With `slots` (raw HF32
// src), each item rounds into the slot its pool chunk holds (forEachItem).
template <typename Src, typename Dst, typename Run>
bool forEachCorrelationItem(const ConvShape& s, bool dataGradient, Elements kind, const Src* src,
                            const float* bias, Dst* dst, const PlaneMap& m,
                            const PlaneVectors& table, float* slots, Run&& run) {
  const int64_t G = s.groups;
  const int64_t srcChannels = dataGradient ? dstChannelsOf(s) : srcChannelsOf(s);
  const int64_t dstChannels = dataGradient ? srcChannelsOf(s) : dstChannelsOf(s);
  const int64_t srcPlane = m.srcH * m.srcW, dstPlane = m.dstH * m.dstW;
  // The depth dim (3D layers): dst plane z's depth tap k reads src plane
  // z - depthPad + k * dilation (the data gradient's taps flipped, as the
  // packed weights are), skipped outside the src.
  const int64_t kd = s.kernel[0], depthDilation = s.dilation[0];
  const int64_t srcDepth = dataGradient ? s.out[0] : s.in[0];
  const int64_t dstDepth = dataGradient ? s.in[0] : s.out[0];
  const int64_t depthPad =
      dataGradient ? (kd - 1) * depthDilation - s.padBefore[0] : s.padBefore[0];
  const int64_t srcChannelStride = srcDepth * srcPlane, dstChannelStride = dstDepth * dstPlane;
  const int64_t vectors = m.vectors();
  const int64_t perItem = itemVectors(s, m, srcChannels);
  const int64_t blocks = (vectors + perItem - 1) / perItem;
  const int64_t items = s.batch * G * dstDepth * blocks;
  std::atomic<bool> ok{true};
  auto jobOf = [&](int64_t item) {
    const int64_t block = item % blocks, z = item / blocks % dstDepth;
    const int64_t ng = item / blocks / dstDepth;
    const int64_t n = ng / G, g = ng % G;
    // Depth taps [k0, k1) read inside the src.
    const int64_t first = z - depthPad;
    int64_t k0 = 0, k1 = 0;
    conv_detail::validOutputRange(first, depthDilation, srcDepth, kd, &k0, &k1);
    GroupCorrelation j;
    j.map = m;
    j.vectors = &table;
    j.kind = kind;
    j.src = src + (n * G + g) * srcChannels * srcChannelStride;
    if (k1 > k0) j.src = static_cast<const Src*>(j.src) + (first + k0 * depthDilation) * srcPlane;
    j.srcChannels = srcChannels;
    j.srcStride = srcChannelStride;
    j.depthTaps = k1 - k0;
    j.depthTap0 = k0;
    j.depthSrcStep = depthDilation * srcPlane;
    j.dst = dst + (n * G + g) * dstChannels * dstChannelStride + z * dstPlane;
    j.dstChannels = dstChannels;
    j.dstStride = dstChannelStride;
    j.bias = bias ? bias + g * dstChannels : nullptr;
    j.v0 = block * perItem;
    j.v1 = j.v0 + perItem < vectors ? j.v0 + perItem : vectors;
    return j;
  };
  const int64_t span = roundedSpan(m, perItem);
  // Tiles per item, at least: the next item's lines are shared among them.
  const int64_t tiles = (dstChannels + 7) / 8 * ((perItem + 5) / 6);
  // Several dst channel groups of a 1x1 layer: the first rounds as it
  // reads, keeping the rounded src in the slot for the others, so that no
  // pass but the correlation's reads the src from memory (RN50 1x1 256->64
  // HF32 forward, 1 thread: 10.2 ms with the rounding pass first, 8.6 so,
  // cubeMathType 0 8.3-8.6). With more taps the first group would round and
  // store every element once per tap, and its tiles took 2.2x the others'
  // time: the rounding pass first (RN50 3x3 64ch 56x56 batch 8 HF32
  // forward, medians of 5: 1 thread 10.24 -> 9.38 ms, 2 threads 6.81 ->
  // 6.06, cubeMathType 0 9.87 / 6.15). One group (small groups) would round
  // every element once per tap as it reads: the rounding pass first
  // (ResNeXt g32: 3.1 against 3.7) on one thread.
  const bool keepRounded = dstChannels > 8 && m.kh * m.kw == 1;
  // On more threads, a small group's rounding pass is a burst of memory
  // reads that its short items' FMAs do not hide, which threads sharing the
  // memory bandwidth each take longer for:
  // ResNeXt g32 3x3 256ch 28x28 batch 16 HF32 forward, pass bench, medians
  // of 7: 2 threads 3.05 ms so, 2.24 rounded as read (fp32 1.97); 1 thread
  // 3.39 so, 4.76 rounded as read. Either way the same rounded values.
  // 3D layers round as they read (a slot would have to hold every depth
  // tap's planes); selection leaves them to the blocked passes, whose
  // staging rounds (denseCorrelation), so this only keeps a direct call right.
  const bool roundAsRead = (dstChannels <= 8 && computeThreadCount() > 1) || hasDepth(s);
  // The next item's lines are fetched into L2 while an item computes: after
  // the rounding pass, which reads them in a burst, and for dense 2D layers
  // read where they lie, whose items' few lines per plane the hardware
  // prefetcher does not follow from plane to plane (RN50 3x3 64ch 56x56
  // batch 8 forward, medians of 5: 1 thread 9.73 -> 9.23 ms, 2 threads 4.83
  // -> 4.65; dilated 3x3 d2 64ch 2 threads 5.04 -> 4.86). Not for 1D layers
  // (1D k5 64->128 L2048: 7.53 -> 7.64) or small groups (ResNeXt g32:
  // 1.51 -> 1.60), whose items' lines it already follows or that run too
  // briefly.
  const bool fetchInPlace = dstChannels > 8 && m.srcH > 1;
  auto runItem = [&](int64_t item, float* slot, bool hasNext) {
    GroupCorrelation j = jobOf(item);
    if (slots && !slot) {
      j.kind = Elements::Hf32;  // no slot (none free, or roundAsRead): rounded as read
    } else if (slot && keepRounded) {
      int64_t lo = 0, hi = 0;
      correlationSourceRange(j, &lo, &hi);
      j.kind = Elements::Hf32;
      j.keep = slot;
      j.keepStride = span;
      j.keepOrigin = lo;
    } else {
      if (slot) roundSource(&j, slot, span);
      if (hasNext && (slot || fetchInPlace)) {
        const GroupCorrelation next = jobOf(item + 1);
        int64_t lo = 0, hi = 0;
        correlationSourceRange(next, &lo, &hi);
        if (hi > lo) {
          j.nextSrc = static_cast<const Src*>(next.src) + lo;
          j.nextStride = next.srcStride;
          j.nextLines = ((hi - lo) * static_cast<int64_t>(sizeof(Src)) + 63) / 64 + 1;
          j.nextShare = (j.nextLines + tiles - 1) / tiles;
        }
      }
    }
    if (!run(j, item / blocks / dstDepth % G)) ok.store(false, std::memory_order_relaxed);
  };
  const auto slotFloats = static_cast<int64_t>(roundedSlotBytes(s, dataGradient) / sizeof(float));
  forEachItem(items, slots != nullptr && !roundAsRead,
              [&](int64_t item, int64_t slot, int64_t end) {
                if (!ok.load(std::memory_order_relaxed)) return;
                runItem(item, slot >= 0 ? slots + slot * slotFloats : nullptr, item + 1 < end);
              });
  return ok.load();
}

template <typename Src, typename Dst>
void runCorrelation(const ConvShape& s, bool dataGradient, Elements kind, const Src* src,
                    const float* w, const float* bias, Dst* dst, void* scratch) {
  auto* packed = static_cast<float*>(scratch);
  packWeights(s, w, dataGradient, packed);
  const PlaneMap m = dataGradient ? dataGradientMap(s) : forwardMap(s);
  const uint64_t tableOffset = scratchAligned(packedWeightBytes(s));
  const PlaneVectors table = describedPlane(m, static_cast<char*>(scratch) + tableOffset);
  float* slots = nullptr;
  if (kind == Elements::F32 && s.inputRounding == Rounding::HF32)
    slots = scratchRegion<float>(scratch, tableOffset + maxPlaneVectorsBytes(s));
  const int64_t groupWeights = tapsOf(s) * srcChannelsOf(s) * dstChannelsOf(s);
  forEachCorrelationItem(s, dataGradient, kind, src, bias, dst, m, table, slots,
                         [&](GroupCorrelation& j, int64_t g) {
                           j.weights = packed + g * groupWeights;
                           f32_conv_plane_correlate_o8w48_avx512(j);
                           return true;
                         });
}

// pairs[g][t][q][dst channel] from w: the bf16 words of src channels 2q
// (low) and 2q + 1 (high, 0 past the last). False when a weight is one the
// bf16 hardware does not take exactly.
bool packPairWeights(const ConvShape& s, const float* w, bool dataGradient, uint32_t* pairs) {
  const int64_t G = s.groups, S = srcChannelsOf(s), D = dstChannelsOf(s), taps = tapsOf(s);
  for (int64_t i = 0; i < G * D * S * taps; ++i)
    if (blocked::bf16Unsafe(w[i])) return false;
  const int64_t srcChannels = dataGradient ? D : S, dstChannels = dataGradient ? S : D;
  const int64_t P = (srcChannels + 1) / 2;
  for (int64_t g = 0; g < G; ++g) {
    uint32_t* pg = pairs + g * taps * P * dstChannels;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t q = 0; q < P; ++q) {
        for (int64_t d = 0; d < dstChannels; ++d) {
          // w [O][S][taps]: the forward's (src c, dst o) is w[o][c][t], the
          // data gradient's (src o, dst c) w[o][c][taps - 1 - t].
          auto at = [&](int64_t src) {
            if (src >= srcChannels) return 0.0f;
            return dataGradient ? w[((g * D + src) * S + d) * taps + taps - 1 - t]
                                : w[((g * D + d) * S + src) * taps + t];
          };
          pg[(t * P + q) * dstChannels + d] = blocked::pairWord(at(2 * q), at(2 * q + 1));
        }
      }
    }
  }
  return true;
}

// runCorrelation on VDPBF16PS; false (the output then incomplete) when the
// weights or the data hold a value the hardware does not take exactly.
template <typename E>
bool runPairCorrelation(const ConvShape& s, bool dataGradient, Elements kind, const E* src,
                        const float* w, const float* bias, E* dst, void* scratch) {
  auto* pairs = static_cast<uint32_t*>(scratch);
  if (!packPairWeights(s, w, dataGradient, pairs)) return false;
  const PlaneMap m = dataGradient ? dataGradientMap(s) : forwardMap(s);
  const PlaneVectors table =
      describedPlane(m, static_cast<char*>(scratch) + scratchAligned(packedWeightBytes(s)));
  const int64_t srcChannels = dataGradient ? dstChannelsOf(s) : srcChannelsOf(s);
  const int64_t dstChannels = dataGradient ? srcChannelsOf(s) : dstChannelsOf(s);
  const int64_t groupPairs = tapsOf(s) * ((srcChannels + 1) / 2) * dstChannels;
  return forEachCorrelationItem(s, dataGradient, kind, src, bias, dst, m, table, nullptr,
                                [&](GroupCorrelation& j, int64_t g) {
                                  return bf16_conv_plane_correlate_o8w48_avx512bf16(
                                      j, pairs + g * groupPairs);
                                });
}

// Work items: (group, run of up to 8 dw channels), each summing its images
// in order into its own partial sums, whatever thread takes it, so the sums
// never depend on the thread count.
// Raw HF32 x and dy (ConvShape::inputRounding): each item rounds into the
// slot its pool chunk holds (forEachItem).
template <typename E>
void runBackwardWeight(const ConvShape& s, Elements kind, const E* x, const E* dy, float* dw,
                       void* scratch) {
  constexpr int64_t kRun = kWeightRun;
  const int64_t G = s.groups, S = srcChannelsOf(s), D = dstChannelsOf(s), taps = tapsOf(s);
  const PlaneMap m = forwardMap(s);
  const int64_t srcPlane = m.srcH * m.srcW, dstPlane = m.dstH * m.dstW;
  const int64_t runs = (D + kRun - 1) / kRun;
  auto* partial = static_cast<float*>(scratch);
  const uint64_t tableOffset = scratchAligned(partialSumBytes(s));
  const PlaneVectors table = describedPlane(m, static_cast<char*>(scratch) + tableOffset);
  const bool rounding = kind == Elements::F32 && s.inputRounding == Rounding::HF32;
  float* slots =
      rounding ? scratchRegion<float>(scratch, tableOffset + planeVectorsBytes(m)) : nullptr;
  const auto slotFloats = static_cast<int64_t>(weightSlotBytes(s) / sizeof(float));
  forEachItem(G * runs, rounding, [&](int64_t item, int64_t slot, int64_t /*end*/) {
    const int64_t g = item / runs, d0 = item % runs * kRun;
    const int64_t count = D - d0 < kRun ? D - d0 : kRun;
    float* acc = partial + (g * D + d0) * S * taps * kLanes;
    const int64_t accFloats = count * S * taps * kLanes;
    for (int64_t i = 0; i < accFloats; ++i) acc[i] = 0.0f;
    GroupWeightGrad j;
    j.map = m;
    j.vectors = &table;
    j.images = s.batch;
    j.xImage = G * S * srcPlane;
    j.dyImage = G * D * dstPlane;
    j.kind = kind;
    j.x = x + g * S * srcPlane;
    j.xChannels = S;
    j.dy = dy + (g * D + d0) * dstPlane;
    j.dCount = count;
    j.acc = acc;
    j.v0 = 0;
    j.v1 = m.vectors();
    if (rounding) {
      // Without a slot, rounded as read.
      j.kind = Elements::Hf32;
      j.slot = slot >= 0 ? slots + slot * slotFloats : nullptr;
      j.xSpan = weightXSpan(m);
      j.dySpan = weightDySpan(m);
    }
    f32_convbwdw_plane_o4c4_avx512(j);
    for (int64_t d = 0; d < count; ++d) {
      for (int64_t c = 0; c < S; ++c) {
        for (int64_t t = 0; t < taps; ++t) {
          const float* lanes = acc + ((t * S + c) * count + d) * kLanes;
          float sum = 0.0f;
          for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
          dw[((g * D + d0 + d) * S + c) * taps + t] = sum;
        }
      }
    }
  });
}

}  // namespace

bool acceptsGroupedForward(const ConvShape& s) {
  return groupedShape(s) && roundedSlotsFit(s, false);
}
bool acceptsGroupedBackwardData(const ConvShape& s) {
  return groupedShape(s) && roundedSlotsFit(s, true);
}
bool acceptsGroupedBackwardWeight(const ConvShape& s) {
  return groupedShape(s) &&
         (s.operands != OperandValues::HF32 || weightSlotBytes(s) <= kMaxRoundedSlotBytes);
}

// A 1x1 layer is a GEMM; the correlation measured faster than the sgemm
// with B packed before use only where it reduces at least two src channels
// per dst channel (256 -> 64: 10-14%; 64 -> 256: no gain, its data gradient
// 4-8% slower); since the sgemm's tiles pack B as they use it, only with
// fewer dst channels than this too (see denseCorrelation).
constexpr int64_t kMinPointwiseGemmRows = 32;

bool denseCorrelation(const ConvShape& s, int64_t srcChannels, int64_t dstChannels,
                      const PlaneMap& m) {
  if (s.groups != 1 || !volumeGeometry(s)) return false;
  // 3D HF32 operands would be rounded as read, once per tap and tile
  // (measured: 2 threads 1.2x the blocked pass's time, which rounds once).
  if (hasDepth(s) && s.operands == OperandValues::HF32) return false;
  if (srcChannels * planeTapsOf(s) > kMaxDenseReduction) return false;
  if (tapsOf(s) == 1 && srcChannels < 2 * dstChannels) return false;
  // With more dst channels the sgemm runs them faster; with fewer, one
  // GEMM per image is too small to split across threads. Measured, pass bench,
  // RN50 1x1 256->64 56x56 batch 8, 1 thread 5.3-5.9 -> 3.9-4.3 ms, 2
  // threads 2.5-3.2 -> 2.0-2.2 (raw HF32 operands 5.3-5.5 -> 3.9, 3.1-3.2
  // -> 2.3-2.4); 512->128 28x28 5.3 -> 4.1 (2.7 -> 2.3); but 64->16 56x56,
  // 2 threads, 0.17 plane, 0.31 GEMM.
  if (tapsOf(s) == 1 && dstChannels >= kMinPointwiseGemmRows) return false;
  return laneUsePercent(m) >= 90;
}

bool acceptsDenseForward(const ConvShape& s) {
  return denseCorrelation(s, s.inChannels, s.outChannels, forwardMap(s)) &&
         roundedSlotsFit(s, false);
}
bool acceptsDenseBackwardData(const ConvShape& s) {
  return denseCorrelation(s, s.outChannels, s.inChannels, dataGradientMap(s)) &&
         roundedSlotsFit(s, true);
}

uint64_t planeVectorsBytes(const PlaneMap& m) {
  const uint64_t padded =
      static_cast<uint64_t>((m.vectors() + kBlockVectors - 1) / kBlockVectors * kBlockVectors);
  const uint64_t taps = static_cast<uint64_t>(m.kh * m.kw);
  return scratchAligned(padded * sizeof(int64_t)) * 2 + scratchAligned(padded * sizeof(uint16_t)) +
         scratchAligned(padded * taps * sizeof(uint16_t));
}

PlaneVectors placePlaneVectors(const PlaneMap& m, void* memory) {
  PlaneVectors v;
  v.count = m.vectors();
  v.padded = (v.count + kBlockVectors - 1) / kBlockVectors * kBlockVectors;
  const auto padded = static_cast<uint64_t>(v.padded);
  char* p = static_cast<char*>(memory);
  v.srcBase = reinterpret_cast<int64_t*>(p);
  p += scratchAligned(padded * sizeof(int64_t));
  v.dstBase = reinterpret_cast<int64_t*>(p);
  p += scratchAligned(padded * sizeof(int64_t));
  v.valid = reinterpret_cast<uint16_t*>(p);
  p += scratchAligned(padded * sizeof(uint16_t));
  v.masks = reinterpret_cast<uint16_t*>(p);
  return v;
}

uint64_t correlationScratchBytes(const ConvShape& s) {
  return scratchAligned(packedWeightBytes(s)) + maxPlaneVectorsBytes(s) + roundedSlotsBytes(s);
}
uint64_t backwardWeightScratchBytes(const ConvShape& s) {
  const uint64_t slots = s.inputRounding == Rounding::HF32
                             ? weightSlotBytes(s) * static_cast<uint64_t>(computeThreadCount())
                             : 0;
  return scratchAligned(partialSumBytes(s)) + planeVectorsBytes(forwardMap(s)) + slots;
}

void forward(const ConvShape& s, const float* x, const float* w, const float* bias, float* y,
             void* scratch) {
  runCorrelation(s, false, Elements::F32, x, w, bias, y, scratch);
}
void backwardData(const ConvShape& s, const float* dy, const float* w, const float* bias, float* dx,
                  void* scratch) {
  runCorrelation(s, true, Elements::F32, dy, w, bias, dx, scratch);
}
void backwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw, void* scratch) {
  runBackwardWeight(s, Elements::F32, x, dy, dw, scratch);
}
bool forwardBf16Words(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                      uint16_t* y, void* scratch) {
  return runPairCorrelation(s, false, Elements::Bf16, x, w, bias, y, scratch);
}
bool backwardDataBf16Words(const ConvShape& s, const uint16_t* dy, const float* w,
                           const float* bias, uint16_t* dx, void* scratch) {
  return runPairCorrelation(s, true, Elements::Bf16, dy, w, bias, dx, scratch);
}
void forwardBf16(const ConvShape& s, const float* x, const float* w, const float* bias, float* y,
                 void* scratch) {
  if (!runPairCorrelation(s, false, Elements::F32, x, w, bias, y, scratch))
    runCorrelation(s, false, Elements::F32, x, w, bias, y, scratch);
}
void backwardDataBf16(const ConvShape& s, const float* dy, const float* w, const float* bias,
                      float* dx, void* scratch) {
  if (!runPairCorrelation(s, true, Elements::F32, dy, w, bias, dx, scratch))
    runCorrelation(s, true, Elements::F32, dy, w, bias, dx, scratch);
}
void forwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                  uint16_t* y, void* scratch) {
  runCorrelation(s, false, wordsKind(s), x, w, bias, y, scratch);
}
void backwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w, const float* bias,
                       uint16_t* dx, void* scratch) {
  runCorrelation(s, true, wordsKind(s), dy, w, bias, dx, scratch);
}
void backwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch) {
  runBackwardWeight(s, wordsKind(s), x, dy, dw, scratch);
}

}  // namespace nchw_plane
}  // namespace kernels
}  // namespace aclcpu
