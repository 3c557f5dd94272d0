// Driver of the bf16 weight gradient on AMX or AVX512-BF16 (no groups). x
// is staged split by stride residue (blocked_bf16_kernels.h), so every tap
// reads one residue volume at unit stride. The reduction runs over flat
// positions p = (od * Hr + oh) * Wr + ow of a residue volume's grid, so
// that every tap is one constant offset into the staged x and a K step of
// 32 entries never needs a boundary test: positions where oh or ow is past
// gradOutput's extent have dy = 0.
// The K steps of the whole batch are cut into a shape-only number of chunks;
// each chunk's partial sums are combined in chunk order, so results never
// depend on the thread count.

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/blocked/blocked_bf16_conv.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/conv/scratch_region.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

constexpr int64_t kStepEntries = 32;        // K entries per tile step
constexpr int64_t kWeightItemsTarget = 64;  // a constant, never the thread count
// K steps one kernel call covers: the x and dy tiles of 8 steps (with the
// taps' overlap, about 32 KB) stay in L1 while every tap reads them; the
// accumulators go through the (L1-resident) partial sums between calls.
constexpr int64_t kBlockSteps = 8;
constexpr uint64_t kStagingBudget = uint64_t{512} << 20;

struct WeightPlan {
  PairKind kind = PairKind::Pairs;
  Bf16PlaneLayout x;
  Bf16PairRowLayout dy;
  int64_t perPosition = 1;  // K entries per position
  int64_t stepsPerImage = 0;
  int64_t icBlocks = 0, ocBlocks = 0, icTiles = 0, ocTiles = 0;
  int64_t taps = 0;
  int64_t chunks = 0;
  int64_t xSlackEntries = 0;
  uint64_t xOffset = 0, dyOffset = 0, partialOffset = 0, bytes = 0;
};

uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }

bool planWeight(Isa isa, const ConvShape& s, WeightPlan* p) {
  if (s.operands == OperandValues::F32 || s.groups != 1) return false;
  // Pointwise on AMX: a GEMM on the caller's memory is faster
  // (pointwise_bf16/). With AVX512-BF16 the blocked pass measured faster
  // than that GEMM's VDPBF16PS form (1x1 256->64 56x56 bf16 dW, 1 thread:
  // 6.7 against 7.4 ms; 2 threads 3.7 against 4.8).
  if (isa >= Isa::Amx && conv_detail::describe(s).columnsAreInput) return false;
  p->kind = s.operands == OperandValues::BF16 ? PairKind::Pairs : PairKind::HiLo;
  p->perPosition = p->kind == PairKind::Pairs ? 1 : 4;
  CheckedSizes c;
  p->icBlocks = (s.inChannels + 15) / 16;
  p->ocBlocks = (s.outChannels + 15) / 16;
  // Channel padding to 16 wastes at most half the work.
  if (2 * p->icBlocks * 16 * p->ocBlocks * 16 > 3 * s.inChannels * s.outChannels) return false;
  p->icTiles = (p->icBlocks + 1) / 2;
  p->ocTiles = (p->ocBlocks + 1) / 2;
  Bf16PlaneLayout& x = p->x;
  x.channels = s.inChannels;
  x.paddedChannels = c.mul(p->icBlocks, 16);
  x.entries = p->perPosition;
  int64_t residues = 1, maxShift[3];
  for (int d = 0; d < 3; ++d) {
    if (s.stride[d] < 1) return false;
    x.source[d] = s.in[d];
    x.step[d] = s.stride[d];
    maxShift[d] = c.mul(s.kernel[d] - 1, s.dilation[d]) / s.stride[d];
    x.size[d] = c.add(s.out[d], maxShift[d]);
    x.first[d] = -s.padBefore[d];
    residues = c.mul(residues, s.stride[d]);
  }
  // Residue volumes multiply the staged x by the strides' product only when
  // the taps leave most of them unread; a few residues is the normal case.
  if (residues > 64) return false;
  const int64_t planePositions = c.mul(x.size[1], x.size[2]);
  const int64_t volume = c.mul(x.size[0], planePositions);
  x.residueEntries = c.mul(volume, x.entries);
  x.channelEntries = c.mul(x.residueEntries, residues);
  const int64_t maxTap =
      c.add(c.mul(maxShift[0], planePositions), c.add(c.mul(maxShift[1], x.size[2]), maxShift[2]));
  Bf16PairRowLayout& dy = p->dy;
  dy.channels = s.outChannels;
  dy.blocks = p->ocBlocks;
  for (int d = 0; d < 3; ++d) dy.out[d] = s.out[d];
  dy.rowsPerPlane = x.size[1];
  dy.rowLength = x.size[2];
  dy.positions =
      c.add(c.mul(c.add(c.mul(s.out[0] - 1, x.size[1]), s.out[1] - 1), x.size[2]), s.out[2]);
  const int64_t entries = c.mul(dy.positions, p->perPosition);
  p->stepsPerImage = c.add(entries, kStepEntries - 1) / kStepEntries;
  dy.rows = c.mul(p->stepsPerImage, 16);
  p->taps = c.mul(c.mul(s.kernel[0], s.kernel[1]), s.kernel[2]);
  // The last step of an image reads up to 32 entries past its positions,
  // plus the largest tap offset: past the last channel, zeroed slack.
  p->xSlackEntries = c.mul(c.add(maxTap, 2 * kStepEntries), p->perPosition);
  if (!c.ok || dy.positions <= 0 || p->taps <= 0 || s.batch <= 0) return false;

  const int64_t xEntries =
      c.add(c.mul(c.mul(s.batch, x.paddedChannels), x.channelEntries), p->xSlackEntries);
  const int64_t dyWords = c.mul(c.mul(c.mul(s.batch, dy.blocks), dy.rows), 16);
  const int64_t blockFloats = c.mul(c.mul(c.mul(p->icBlocks, p->ocBlocks), p->taps), 256);
  const int64_t steps = c.mul(s.batch, p->stepsPerImage);
  if (!c.ok) return false;
  const double operandBytes = 2.0 * xEntries + 4.0 * dyWords;
  if (operandBytes > static_cast<double>(kStagingBudget)) return false;
  int64_t chunks = std::clamp<int64_t>(
      (kWeightItemsTarget + p->icTiles * p->ocTiles - 1) / (p->icTiles * p->ocTiles), 1, steps);
  while (chunks > 1 && 4.0 * chunks * blockFloats > 0.5 * operandBytes) --chunks;
  p->chunks = chunks;
  uint64_t next = 0;
  p->xOffset = next;
  next += align64(static_cast<uint64_t>(xEntries) * 2);
  p->dyOffset = next;
  next += align64(static_cast<uint64_t>(dyWords) * 4);
  p->partialOffset = next;
  next += align64(static_cast<uint64_t>(chunks) * static_cast<uint64_t>(blockFloats) * 4);
  p->bytes = next;
  return true;
}

const ConvAlgorithm& fallbackFor(const ConvShape& s) {
  ConvShape f = s;
  f.operands = OperandValues::F32;
  return selectConvAlgorithm(ConvPass::BackwardWeight, f, Isa::Avx512Bf16);
}

// The staging functions on fp32 buffers (rounded to HF32 as read when the
// shape says so), or on words of type `io`.
bool stagePlanesOf(const float* x, const ConvShape& s, const Bf16PlaneLayout& l, PairKind kind,
                   int64_t begin, int64_t end, uint16_t* staged) {
  return stageBf16Planes_avx512(x, l, kind, begin, end, staged, s.inputRounding);
}
bool stagePlanesOf(const uint16_t* x, const ConvShape& s, const Bf16PlaneLayout& l, PairKind kind,
                   int64_t begin, int64_t end, uint16_t* staged) {
  return stageBf16Planes_avx512(x, s.io, l, kind, begin, end, staged);
}
bool stagePairRowsOf(const float* dy, const ConvShape& s, const Bf16PairRowLayout& l, PairKind kind,
                     int64_t begin, int64_t end, uint32_t* staged) {
  return stageBf16PairRows_avx512(dy, l, kind, begin, end, staged, s.inputRounding);
}
bool stagePairRowsOf(const uint16_t* dy, const ConvShape& s, const Bf16PairRowLayout& l,
                     PairKind kind, int64_t begin, int64_t end, uint32_t* staged) {
  return stageBf16PairRows_avx512(dy, s.io, l, kind, begin, end, staged);
}

// Stages x from image `firstImage` on (the images before it are read in
// place: readsCallerX) and all of dy. False when a staged value is unsafe.
template <typename Source>
bool stage(const WeightPlan& p, const ConvShape& s, const Source* x, const Source* dy, uint16_t* xs,
           uint32_t* dys, int64_t firstImage = 0) {
  std::atomic<bool> unsafe{false};
  const int64_t first = firstImage * p.x.paddedChannels;
  parallelFor(s.batch * p.x.paddedChannels - first, [&](int64_t begin, int64_t end) {
    if (!stagePlanesOf(x, s, p.x, p.kind, first + begin, first + end, xs))
      unsafe.store(true, std::memory_order_relaxed);
  });
  std::memset(xs + s.batch * p.x.paddedChannels * p.x.channelEntries, 0,
              static_cast<size_t>(p.xSlackEntries) * sizeof(uint16_t));
  parallelFor(s.batch * p.dy.blocks, [&](int64_t begin, int64_t end) {
    if (!stagePairRowsOf(dy, s, p.dy, p.kind, begin, end, dys))
      unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

// A pointwise layer's staged x (stride 1, no padding, whole 16-channel
// blocks) is the caller's bf16 x word for word: every image but the last is
// read in place, after a check for unsafe words; the last is staged, since
// an image's last K step reads up to 31 words past its planes (at least 32
// positions per plane keep that inside the next image; there dy is zero and
// the words are safe, so the products add exact zeros: the staged run's
// bits). Measured on the Zen 5 EPYC, bf16 1x1 256->64 56x56 dW, 1 thread:
// staging x took 35% of the pass, the kernel 21%.
bool readsCallerX(const ConvShape& s, const WeightPlan& p) {
  if (p.kind != PairKind::Pairs || s.io != ElementType::BF16 || s.batch < 2 || p.taps != 1 ||
      s.inChannels % 16 != 0 || p.x.channelEntries < kStepEntries)
    return false;
  for (int d = 0; d < 3; ++d) {
    if (s.stride[d] != 1 || s.padBefore[d] != 0 || s.in[d] != s.out[d]) return false;
  }
  return true;
}

// True when the first `images` images of x hold no unsafe word.
bool safeInPlace(const WeightPlan& p, const uint16_t* x, int64_t images) {
  std::atomic<bool> unsafe{false};
  const int64_t planeWords = p.x.channelEntries;
  parallelFor(images * p.x.paddedChannels, [&](int64_t begin, int64_t end) {
    if (!bf16WordsSafe_avx512(x + begin * planeWords, (end - begin) * planeWords))
      unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

// Sums block pair (a, b)'s chunks in chunk order and writes its weights into
// dw [O, C, taps], a slice of taps at a time: the sums run along the
// partials' contiguous taps into a buffer in L1, from which one transpose
// per reduction channel writes every output channel's run of taps (the bf16
// passes run only where AVX-512 does).
void writeBlockPair(const WeightPlan& p, const ConvShape& s, const float* partial, int64_t a,
                    int64_t b, float* dw) {
  constexpr int64_t kTile = 256, kSliceTaps = 16;
  alignas(64) float sums[kSliceTaps * kTile];
  const int64_t ocBlockFloats = p.taps * kTile;
  const int64_t icBlockFloats = p.ocBlocks * ocBlockFloats;
  const int64_t chunkFloats = p.icBlocks * icBlockFloats;
  const int64_t cin = s.inChannels, taps = p.taps;
  const int64_t outs = std::min<int64_t>(16, s.outChannels - b * 16);
  const int64_t ins = std::min<int64_t>(16, cin - a * 16);
  for (int64_t t0 = 0; t0 < taps; t0 += kSliceTaps) {
    const int64_t n = std::min(kSliceTaps, taps - t0);
    const float* first = partial + a * icBlockFloats + b * ocBlockFloats + t0 * kTile;
    std::memcpy(sums, first, static_cast<size_t>(n * kTile) * sizeof(float));
    for (int64_t chunk = 1; chunk < p.chunks; ++chunk) {
      const float* part = first + chunk * chunkFloats;
      for (int64_t e = 0; e < n * kTile; ++e) sums[e] += part[e];
    }
    WeightTapTiles tiles;
    tiles.sums = sums;
    tiles.tapStride = kTile;
    tiles.taps = static_cast<int>(n);
    tiles.ins = static_cast<int>(ins);
    tiles.outs = static_cast<int>(outs);
    tiles.dw = dw + (b * 16 * cin + a * 16) * taps + t0;
    tiles.rowStride = cin * taps;
    tiles.channelStride = taps;
    f32_weight_taps_store_16x16_avx512(tiles);
  }
}

// The pass on staged operands; with callerX, images before the last read x
// there (readsCallerX).
void runStaged(const Bf16Kernels& kernels, const WeightPlan& p, const ConvShape& s, float* dw,
               void* scratch, const uint16_t* callerX = nullptr) {
  const uint16_t* xs = scratchRegion<uint16_t>(scratch, p.xOffset);
  const uint32_t* dys = scratchRegion<uint32_t>(scratch, p.dyOffset);
  float* partial = scratchRegion<float>(scratch, p.partialOffset);
  const int64_t totalSteps = s.batch * p.stepsPerImage;
  const int64_t tapFloats = 256;
  const int64_t ocBlockFloats = p.taps * tapFloats;
  const int64_t icBlockFloats = p.ocBlocks * ocBlockFloats;
  const int64_t chunkFloats = p.icBlocks * icBlockFloats;
  const int64_t xImageEntries = p.x.paddedChannels * p.x.channelEntries;
  const int64_t dyBlockWords = p.dy.rows * 16;
  parallelFor(p.chunks * p.icTiles * p.ocTiles, [&](int64_t begin, int64_t end) {
    Bf16WeightSegment segments[kBlockSteps];
    if (kernels.configure) kernels.configure();
    for (int64_t item = begin; item < end; ++item) {
      const int64_t chunk = item / (p.icTiles * p.ocTiles);
      const int64_t a0 = 2 * (item / p.ocTiles % p.icTiles), b0 = 2 * (item % p.ocTiles);
      const int64_t stepBegin = totalSteps * chunk / p.chunks;
      const int64_t stepEnd = totalSteps * (chunk + 1) / p.chunks;
      Bf16WeightJob job;
      job.xChannelBytes = p.x.channelEntries * 2;
      job.xBlockBytes = 16 * job.xChannelBytes;
      job.dyBlockBytes = dyBlockWords * 4;
      job.icBlocks = p.icBlocks - a0 >= 2 ? 2 : 1;
      job.ocBlocks = p.ocBlocks - b0 >= 2 ? 2 : 1;
      job.dwIcBlockFloats = icBlockFloats;
      job.dwOcBlockFloats = ocBlockFloats;
      float* base = partial + chunk * chunkFloats + a0 * icBlockFloats + b0 * ocBlockFloats;
      // Blocks of kBlockSteps steps (a segment per image they touch), every
      // tap of a block before the next; each block adds to the sums so far,
      // in step order.
      for (int64_t step = stepBegin, batch = 0; step < stepEnd; ++batch) {
        int64_t count = 0;
        for (int64_t inBlock = 0; step < stepEnd && inBlock < kBlockSteps; ++count) {
          const int64_t image = step / p.stepsPerImage, local = step % p.stepsPerImage;
          const int64_t steps =
              std::min({stepEnd - step, p.stepsPerImage - local, kBlockSteps - inBlock});
          inBlock += steps;
          const uint16_t* images = callerX && image + 1 < s.batch ? callerX : xs;
          segments[count].x = reinterpret_cast<const uint8_t*>(
              images + image * xImageEntries + a0 * 16 * p.x.channelEntries + local * kStepEntries);
          segments[count].dy = reinterpret_cast<const uint8_t*>(
              dys + (image * p.dy.blocks + b0) * dyBlockWords + local * 16 * 16);
          segments[count].steps = steps;
          step += steps;
        }
        job.segments = segments;
        job.segmentCount = count;
        job.accumulate = batch > 0;
        int64_t tap = 0;
        for (int64_t kd = 0; kd < s.kernel[0]; ++kd)
          for (int64_t kh = 0; kh < s.kernel[1]; ++kh)
            for (int64_t kw = 0; kw < s.kernel[2]; ++kw, ++tap) {
              // The tap's residue volume and its shift inside it.
              const int64_t k[3] = {kd * s.dilation[0], kh * s.dilation[1], kw * s.dilation[2]};
              int64_t residue = 0, shift = 0;
              for (int d = 0; d < 3; ++d) {
                residue = residue * s.stride[d] + k[d] % s.stride[d];
                shift = shift * p.x.size[d] + k[d] / s.stride[d];
              }
              job.xTapBytes = (residue * p.x.residueEntries + shift * p.perPosition) * 2;
              job.dw = base + tap * tapFloats;
              kernels.weight(job);
            }
      }
      if (stepBegin == stepEnd) {
        // An empty chunk (more chunks than steps cannot happen; kept exact).
        for (int64_t a = 0; a < job.icBlocks; ++a)
          for (int64_t b = 0; b < job.ocBlocks; ++b)
            std::memset(base + a * icBlockFloats + b * ocBlockFloats, 0,
                        static_cast<size_t>(ocBlockFloats) * sizeof(float));
      }
      // One chunk: nothing to combine, so the item writes its blocks' weights
      // while their sums are still in this core's cache (the pass over every
      // block's sums after the region read them back from L3: bf16 3x3
      // 256ch 14x14 dW spent 7.5% of its time there).
      if (p.chunks == 1)
        for (int64_t a = a0; a < a0 + job.icBlocks; ++a)
          for (int64_t b = b0; b < b0 + job.ocBlocks; ++b) writeBlockPair(p, s, partial, a, b, dw);
    }
  });
  if (p.chunks == 1) return;  // each item wrote its blocks' weights
  parallelFor(p.ocBlocks * p.icBlocks, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit)
      writeBlockPair(p, s, partial, unit % p.icBlocks, unit / p.icBlocks, dw);
  });
}

}  // namespace

bool acceptsBf16BackwardWeight(Isa isa, const ConvShape& shape) {
  WeightPlan p;
  return planWeight(isa, shape, &p);
}

uint64_t bf16BackwardWeightScratchBytes(Isa isa, const ConvShape& shape) {
  WeightPlan p;
  if (!planWeight(isa, shape, &p)) return 0;
  ConvShape f = shape;
  f.operands = OperandValues::F32;
  return std::max(p.bytes, fallbackFor(shape).scratchBytes(f));
}

void bf16BackwardWeight(Isa isa, const ConvShape& s, const float* x, const float* dy, float* dw,
                        void* scratch) {
  WeightPlan p;
  planWeight(isa, s, &p);
  if (stage(p, s, x, dy, scratchRegion<uint16_t>(scratch, p.xOffset),
            scratchRegion<uint32_t>(scratch, p.dyOffset))) {
    runStaged(bf16KernelsFor(isa), p, s, dw, scratch);
    return;
  }
  ConvShape f = s;
  f.operands = OperandValues::F32;
  fallbackFor(s).run(f, x, dy, dw, scratch);
}

bool bf16BackwardWeightWords(Isa isa, const ConvShape& s, const uint16_t* x, const uint16_t* dy,
                             float* dw, void* scratch) {
  WeightPlan p;
  planWeight(isa, s, &p);
  uint16_t* xs = scratchRegion<uint16_t>(scratch, p.xOffset);
  uint32_t* dys = scratchRegion<uint32_t>(scratch, p.dyOffset);
  const int64_t inPlace = readsCallerX(s, p) ? s.batch - 1 : 0;
  if (!safeInPlace(p, x, inPlace) || !stage(p, s, x, dy, xs, dys, inPlace)) return false;
  runStaged(bf16KernelsFor(isa), p, s, dw, scratch, inPlace > 0 ? x : nullptr);
  return true;
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
