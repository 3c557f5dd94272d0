// Driver of the bf16 row passes: the fp32 row-pass plan of the problem with
// its reduction channels counted in words (two channels per word for bf16
// operands, two words per channel for hi/lo), word-staged operands, the
// micro-kernels of one bf16 ISA (AMX tiles or AVX512-BF16 registers), and
// the fp32 unstaging of the result.

#include "kernels/conv/blocked/blocked_bf16_conv.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/blocked_plan.h"
#include "kernels/conv/blocked/blocked_staging.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/conv/scratch_region.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// The AMX row kernel's input step (W stride) may go up to this (its tile
// loads take any row stride); the VDPBF16PS kernel's is 1 or 2.
constexpr int64_t kMaxAmxInStep = 8;

// Words the kernel may read past the staged input: 15 positions at the
// plan's input step, rounded up to 32.
int64_t slackWords(const RowPassPlan& p) { return (15 * p.inStep + 32) / 32 * 32 * kLanes; }

struct WordPlan {
  PairKind kind = PairKind::Pairs;
  ConvShape words;  // the problem with its reduction channels counted in words
  RowPassPlan rows;
  uint64_t inOffset = 0, outOffset = 0, weightOffset = 0, tapOffset = 0, bytes = 0;
};

struct Regions {
  uint64_t next = 0;
  bool ok = true;
  uint64_t take(uint64_t count, uint64_t size) {
    uint64_t bytes = 0, end = 0;
    const uint64_t at = next;
    if (!checkedMul(count, size, &bytes) || !checkedAdd(next, (bytes + 63) / 64 * 64, &end) ||
        bytes > (UINT64_MAX >> 1))
      ok = false;
    next = end;
    return at;
  }
};

// Positions whose sums one work item keeps in a local buffer when it stores
// them itself (16 KB for two blocks; items are row segments of at most
// RowPassPlan::segmentLength positions).
constexpr int64_t kLocalPositions = 128;
constexpr int64_t kLocalBlocks = 2;

// AMX: calls over 40 KB of weights, bf16 pairs' calls over 20 KB split
// between taps (see runWordPass). Planes whose rows are shorter than 32
// positions run as one flattened row over the staged width: a row of 7, 14
// or 28 positions leaves most of a 32-position tile pair idle, more than
// the padding columns a flattened row computes (measured, bf16 forward 1
// thread: 3x3 256ch 14x14 2.3 -> 2.0 ms, 512ch 7x7 5.3 -> 3.4; at 64,
// 56-wide rows moved within the noise).
const Bf16Kernels kAmxKernels = {configureBf16Tiles_amx,
                                 bf16_conv_rows_m16n16_amx,
                                 bf16_convbwdw_m16n16_amx,
                                 32,
                                 40 << 10,
                                 20 << 10};
// AVX512-BF16: register tiles of up to 14 or 28 positions.
const Bf16Kernels kAvx512Bf16Kernels = {
    nullptr, bf16_conv_rows_nb16_avx512bf16, bf16_convbwdw_8x32_avx512bf16, 5, 24 << 10, 0};

}  // namespace

const Bf16Kernels& bf16KernelsFor(Isa isa) {
  return isa >= Isa::Amx ? kAmxKernels : kAvx512Bf16Kernels;
}

namespace {

// True when every work item's positions are consecutive staged output
// positions (of one row, or of a flattened plane's rows) whose dense
// elements no other item writes: one phase (no stride interleaving), a
// dense output grid, and items that fit the local buffer. Items then store
// their own sums.
bool storesDirectly(const RowPassPlan& p) {
  const StagedLayout& o = p.out;
  return p.phaseCount == 1 && p.phases[0].outColStep == kLanes && o.step[0] == 1 &&
         o.step[1] == 1 && o.step[2] == 1 && p.segmentLength <= kLocalPositions;
}

// The staged row (numbered as the staging functions do) and column of
// the position at element offset `offset` of a staged layout.
void locate(const StagedLayout& l, int64_t offset, int64_t* row, int64_t* col) {
  const int64_t image = offset / l.imageStride;
  int64_t rest = offset % l.imageStride;
  const int64_t block = rest / l.blockStride;
  rest %= l.blockStride;
  const int64_t q0 = rest / l.planeStride;
  rest %= l.planeStride;
  const int64_t q1 = rest / l.rowStride;
  *col = rest % l.rowStride / kLanes;
  *row = ((image * l.blocks + block) * l.size[0] + q0) * l.size[1] + q1;
}

// HiLo: every tap entry becomes two with the same input offset, for the
// weights' (hi, lo) and (lo, hi) words. The table (when given) holds room
// for the doubled count and is expanded in place from its end.
void doubleTaps(RowPassPlan* p, TapTable* table) {
  const int64_t n = p->tapsPerTile;
  if (table) {
    for (int64_t i = n - 1; i >= 0; --i) {
      for (int64_t j : {2 * i + 1, 2 * i}) {
        table->offsets[j] = table->offsets[i];
        table->redIndex[j] = table->redIndex[i];
        table->weightTap[j] = table->weightTap[i];
      }
    }
    indexByBlock(table, 2 * n, p->blocks.redPerGroup);
  }
  p->tapsPerTile = 2 * n;
  for (int64_t i = 0; i < p->phaseCount; ++i) {
    Phase& ph = p->phases[i];
    ph.tapBegin *= 2;
    ph.tapCount *= 2;
    ph.tapsPerRowPair *= 2;
    ph.weightBegin = ph.tapBegin * p->tapFloats;
  }
  p->tileWeightFloats = p->tapsPerTile * p->tapFloats;
}

bool planWords(Isa isa, const ConvShape& s, RowPassKind pass, WordPlan* wp,
               TapTable* table = nullptr) {
  if (s.operands == OperandValues::F32 || s.groups != 1) return false;
  // A pointwise convolution is a GEMM on the caller's memory; staging fp32
  // copies and converting them again costs more than the tiles save, unless
  // the pass reads and writes bf16 words (measured, 1x1 256->64 56x56
  // forward, 1 thread: fp16 17-20 ms on the tiles, 12.5-15 ms as an fp32
  // GEMM; bf16 words 5.5-8.7 ms; fp16 words, four products per multiply,
  // 20-23 ms).
  if (conv_detail::describe(s).columnsAreInput && s.io != ElementType::BF16) return false;
  // The weight packer gathers 32 reduction channels with int32 offsets.
  const int64_t taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
  int64_t span = 0;
  if (!checkedMul(s.inChannels, taps, &span) || !checkedMul(span, int64_t{33}, &span) ||
      span > INT32_MAX)
    return false;
  wp->kind = s.operands == OperandValues::BF16 ? PairKind::Pairs : PairKind::HiLo;
  wp->words = s;
  int64_t& reduction = pass == RowPassKind::Forward ? wp->words.inChannels : wp->words.outChannels;
  if (wp->kind == PairKind::Pairs) reduction = reduction / 2 + reduction % 2;
  RowPassPlan& p = wp->rows;
  // The VDPBF16PS rows skip the taps that read padding rows, as the fp32
  // rows do (bf16 RN50 3x3 256ch 14x14, 1 thread: forward 0.94, data
  // gradient 0.97 of before); the AMX rows, not measured with it, keep the
  // reduction blocks outermost.
  RowKernelTraits traits;
  traits.skipPaddingRows = isa == Isa::Avx512Bf16;
  traits.shortRow = bf16KernelsFor(isa).shortRow;
  traits.maxTileBlocks = kMaxRowTileBlocks;
  if (isa == Isa::Amx) traits.maxInStep = kMaxAmxInStep;
  if (!planRowPass(wp->words, pass, &p, table, traits)) return false;
  // A plan whose tiles the kernels cannot hold is refused (the registry
  // runs the next entry), never run: HF32 plans once got the fp32 kernels'
  // four-block tiles and wrong results on AMX.
  if (p.blocks.tileWidth > kMaxRowTileBlocks) return false;
  if (wp->kind == PairKind::HiLo) doubleTaps(&p, table);
  Regions r;
  // p.in.floats has room for whole images per thread with a slack each
  // (wholeImagePitch); these kernels' slack is slackWords longer.
  wp->inOffset = r.take(p.in.floats + slackWords(p) * (p.imagesPerGroup + 1), sizeof(uint32_t));
  wp->outOffset = r.take(storesDirectly(p) ? 0 : p.out.floats, sizeof(float));
  wp->weightOffset =
      r.take(static_cast<uint64_t>(p.tileWeightFloats) * static_cast<uint64_t>(p.blocks.tiles),
             sizeof(uint32_t));
  wp->tapOffset = r.take(static_cast<uint64_t>(p.tapsPerTile) + 1, kTapTableEntryBytes);
  wp->bytes = r.next;
  return r.ok && p.blocks.tiles > 0;
}

ConvPass passOf(RowPassKind kind) {
  return kind == RowPassKind::Forward ? ConvPass::Forward : ConvPass::BackwardData;
}

// The fp32 algorithm that runs when the data holds bf16Unsafe values (fp32
// operands: never a bf16 entry).
const ConvAlgorithm& fallbackFor(RowPassKind kind, const ConvShape& s) {
  ConvShape f = s;
  f.operands = OperandValues::F32;
  return selectConvAlgorithm(passOf(kind), f, Isa::Avx512Bf16);
}

uint64_t scratchBytes(Isa isa, const ConvShape& s, RowPassKind kind) {
  WordPlan wp;
  if (!planWords(isa, s, kind, &wp)) return 0;
  ConvShape f = s;
  f.operands = OperandValues::F32;
  return std::max(wp.bytes, fallbackFor(kind, s).scratchBytes(f));
}

// Packs the weights of every tile as words, [tap entry][block][word][16],
// one (tile, entry) per work unit, from fp32 `w` or (bf16 pairs only) the
// caller's dense bf16 words `wWords`; false when a value is bf16Unsafe.
bool packWords(const WordPlan& wp, const TapTable& table, const ConvShape& s, const float* w,
               const uint16_t* wWords, uint32_t* packed) {
  const RowPassPlan& p = wp.rows;
  const bool data = p.kind == RowPassKind::BackwardData;
  const int64_t taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
  const int64_t outChannels = data ? s.inChannels : s.outChannels;
  const int64_t redChannels = data ? s.outChannels : s.inChannels;
  const bool hiLo = wp.kind == PairKind::HiLo;
  const int64_t perBlock = hiLo ? kLanes : 2 * kLanes;  // reduction channels per block
  // w [O, C, taps] (ungrouped): from (pass output o, reduction c), the step
  // to the next reduction channel.
  const int64_t channelStride = data ? s.inChannels * taps : taps;
  // hi/lo entries come in pairs: the first packs both.
  const int64_t entryStep = hiLo ? 2 : 1;
  const uint16_t* wordsEnd = wWords ? wWords + s.outChannels * s.inChannels * taps : nullptr;
  // Pairs of an ungrouped layer: the weights of a reduction block are runs
  // of w (one per output channel forward, one per reduction channel for the
  // data gradient), packed for all taps at once from plain loads (the
  // per-block vector gathers were 7% of a bf16 RN50 3x3 256ch 14x14
  // forward, 35% of a 512ch 7x7 pass).
  const bool byRuns = !hiLo && s.groups == 1 && taps <= (data ? kLanes : kMaxRunTaps) &&
                      p.blocks.laneGroups == 1 && !p.blocks.depthwise;
  // Packs every entry of reduction block r of `tile` from runs; false
  // (nothing written) where a block is partial or the table does not hold
  // each of the block's taps once.
  auto packRuns = [&](int64_t tile, int64_t r, bool* seen) {
    int64_t ob0 = 0;
    int nb = 1;
    tileBlocks(p.blocks, tile, &ob0, &nb);
    const int64_t c0 = (firstReduction(p.blocks, ob0) + r) * perBlock;
    if (redChannels - c0 < perBlock) return false;
    int64_t entryOfTap[kMaxRunTaps];
    if (!entriesOfBlock(table, r, taps, entryOfTap)) return false;
    for (int b = 0; b < nb; ++b) {
      const int64_t o0 = (ob0 + b) * kLanes;
      const int outLanes = static_cast<int>(std::clamp<int64_t>(outChannels - o0, 0, kLanes));
      uint32_t* dst[kMaxRunTaps];
      for (int64_t t = 0; t < taps; ++t)
        dst[t] =
            packed + tile * p.tileWeightFloats + entryOfTap[t] * p.tapFloats + b * kLanes * kLanes;
      if (data) {
        // The lanes are input channels: w[c0 + j][o0 ..][taps] is one run.
        const float* rows[32] = {};
        const uint16_t* wordRows[32] = {};
        for (int j = 0; j < 32; ++j) {
          const int64_t at = ((c0 + j) * s.inChannels + o0) * taps;
          if (wWords)
            wordRows[j] = wWords + at;
          else
            rows[j] = w + at;
        }
        const void* end = wWords
                              ? static_cast<const void*>(wordsEnd)
                              : static_cast<const void*>(w + s.outChannels * s.inChannels * taps);
        if (!packBf16DataWeightRuns_avx512(wWords ? nullptr : rows, wWords ? wordRows : nullptr,
                                           outLanes, static_cast<int>(taps), end, dst))
          *seen = true;
        continue;
      }
      const float* rows[16] = {};
      const uint16_t* wordRows[16] = {};
      for (int o = 0; o < outLanes; ++o) {
        const int64_t at = ((o0 + o) * s.inChannels + c0) * taps;
        if (wWords)
          wordRows[o] = wWords + at;
        else
          rows[o] = w + at;
      }
      if (!packBf16WeightRuns_avx512(wWords ? nullptr : rows, wWords ? wordRows : nullptr, outLanes,
                                     static_cast<int>(taps), dst))
        *seen = true;
    }
    return true;
  };
  // One entry's blocks, each gathered from w's elements.
  auto packEntry = [&](int64_t tile, int64_t i, bool* seen) {
    int64_t ob0 = 0;
    int nb = 1;
    tileBlocks(p.blocks, tile, &ob0, &nb);
    const int64_t tap = table.weightTap[i];
    const int64_t c0 = (firstReduction(p.blocks, ob0) + table.redIndex[i]) * perBlock;
    uint32_t* block = packed + tile * p.tileWeightFloats + i * p.tapFloats;
    for (int b = 0; b < nb; ++b) {
      const int64_t o0 = (ob0 + b) * kLanes;
      const int outLanes = static_cast<int>(std::clamp<int64_t>(outChannels - o0, 0, kLanes));
      const int channels = static_cast<int>(std::clamp<int64_t>(redChannels - c0, 0, perBlock));
      // Element offsets in w of each lane's reduction channel c0.
      int64_t offsets[16] = {};
      for (int o = 0; o < outLanes; ++o) {
        const int64_t oc = o0 + o;
        offsets[o] =
            data ? (c0 * s.inChannels + oc) * taps + tap : (oc * s.inChannels + c0) * taps + tap;
      }
      uint32_t* first = block + b * kLanes * kLanes;
      bool safe = true;
      if (wWords) {
        const uint16_t* rows[16] = {};
        for (int o = 0; o < outLanes; ++o) rows[o] = wWords + offsets[o];
        safe = packBf16WeightWordBlock_avx512(rows, outLanes, channelStride, channels, wordsEnd,
                                              first);
      } else {
        const float* rows[16] = {};
        for (int o = 0; o < outLanes; ++o) rows[o] = w + offsets[o];
        safe = packBf16WeightBlock_avx512(rows, outLanes, channelStride, channels, wp.kind, first,
                                          first + p.tapFloats);
      }
      if (!safe) *seen = true;
    }
  };
  const int64_t entriesPerTile = p.tapsPerTile / entryStep;
  const int64_t unitsPerTile = byRuns ? p.blocks.redPerGroup : entriesPerTile;
  std::atomic<bool> unsafe{false};
  parallelFor(p.blocks.tiles * unitsPerTile, [&](int64_t begin, int64_t end) {
    bool seen = false;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t tile = unit / unitsPerTile;
      if (!byRuns) {
        packEntry(tile, unit % unitsPerTile * entryStep, &seen);
        continue;
      }
      const int64_t r = unit % unitsPerTile;
      // Blocks past table.blocks have no entries (and no index: a data
      // gradient whose windows reach no dx position has no taps at all).
      if (packRuns(tile, r, &seen) || r >= table.blocks) continue;
      for (int64_t k = table.blockBegin[r]; k < table.blockBegin[r + 1]; ++k)
        packEntry(tile, table.byBlock[k], &seen);
    }
    if (seen) unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

// stageBf16Rows_avx512 from fp32 buffers (rounded to HF32 as read when the
// shape says so) or from words of type `io`.
bool stageRowsOf(const float* src, ElementType, Rounding rounding, int64_t channels, PairKind kind,
                 const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged) {
  return stageBf16Rows_avx512(src, channels, kind, l, begin, end, staged, rounding);
}
bool stageRowsOf(const uint16_t* src, ElementType io, Rounding, int64_t channels, PairKind kind,
                 const StagedLayout& l, int64_t begin, int64_t end, uint32_t* staged) {
  return stageBf16Rows_avx512(src, io, channels, kind, l, begin, end, staged);
}

// The slack after the buffer's last image is zeroed by zeroSlack.
template <typename Source>
bool stageWords(const WordPlan& wp, const Source* dense, ElementType io, Rounding rounding,
                int64_t denseChannels, int64_t firstImage, int64_t images, uint32_t* staged) {
  const StagedLayout& l = wp.rows.in;
  const Source* src = dense + firstImage * denseChannels * l.source[0] * l.source[1] * l.source[2];
  std::atomic<bool> unsafe{false};
  parallelFor(images * rowsPerImage(l), [&](int64_t begin, int64_t end) {
    if (!stageRowsOf(src, io, rounding, denseChannels, wp.kind, l, begin, end, staged))
      unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

void zeroSlack(const RowPassPlan& p, const StagedLayout& l, uint32_t* staged) {
  std::memset(staged + l.imageStride * l.images, 0,
              static_cast<size_t>(l.slackFloats + slackWords(p)) * sizeof(uint32_t));
}

// The pass's input and output: dense fp32 buffers, or the caller's dense
// 16-bit tensors (words of type shape.io).
struct PassIo {
  const float* in = nullptr;
  const uint16_t* inWords = nullptr;
  float* out = nullptr;
  uint16_t* outWords = nullptr;
  // The weights as the caller's dense bf16 words instead of fp32 (bf16
  // pairs only).
  const uint16_t* weightWords = nullptr;
};

// False when a value is bf16Unsafe: the output is then incomplete and the
// pass has to run on the exact fp32 path.
bool runWordPass(Isa isa, RowPassKind kind, const ConvShape& s, const PassIo& io, const float* w,
                 void* scratch, const float* bias) {
  const Bf16Kernels& kernels = bf16KernelsFor(isa);
  WordPlan wp;
  planWords(isa, s, kind, &wp);
  TapTableStorage tableStorage;
  TapTable table = tableStorage.table(scratch, wp.tapOffset, wp.rows.tapsPerTile);
  planWords(isa, s, kind, &wp, &table);
  const RowPassPlan& p = wp.rows;
  uint32_t* in = scratchRegion<uint32_t>(scratch, wp.inOffset);
  float* out = scratchRegion<float>(scratch, wp.outOffset);
  uint32_t* packed = scratchRegion<uint32_t>(scratch, wp.weightOffset);
  const int64_t inputChannels = kind == RowPassKind::Forward ? s.inChannels : s.outChannels;
  const bool direct = storesDirectly(p);
  // Weight words are taken as bf16 pairs only (fp16 weights go the fp32 way).
  if (io.weightWords && wp.kind != PairKind::Pairs) return false;
  if (!packWords(wp, table, s, w, io.weightWords, packed)) return false;
  // The items [begin, end) of a group of `images` images staged at `staged`,
  // whose first image is dense image `image0`.
  auto runItems = [&](const uint32_t* staged, int64_t image0, int64_t images, int64_t begin,
                      int64_t end) {
    uint16_t* outWords = io.outWords ? io.outWords + image0 * denseImageFloats(p.out) : nullptr;
    float* outFloats = io.out ? io.out + image0 * denseImageFloats(p.out) : nullptr;
    if (kernels.configure) kernels.configure();
    alignas(64) float local[kLocalBlocks * kLocalPositions * kLanes];
    for (int64_t item = begin; item < end; ++item) {
      const RowItem r = rowItemAt(p, images, item);
      Bf16RowJob job;
      job.tapStride = p.tapFloats;
      job.nb = r.nb;
      job.inStep = static_cast<int>(p.inStep);
      // Calls over whole reduction blocks (the tap table is ordered by
      // block) with at most kernels.callWeightBytes of weights, so that
      // they stay in cache across the position tiles; the accumulators go
      // through memory between calls, in the same order of sums as one
      // long call (the fp32 sums are stored and reloaded exactly, so any
      // split gives the same bits). (Measured on AMX, 1 thread: one block
      // per call, 3x3 64ch 56x56 2.2 ms, 1D k3 512ch 25 ms; two blocks or
      // more 2.0 and 22.7.) bf16 pairs on AMX: calls of 20 KB of weights
      // split between taps keep a call's weights and input rows in L1
      // together (a 2 x 2 tile step from L1 runs at 91% of the TDPBF16PS
      // peak, from L2 at 61-68%; medians of 5, bf16 1 thread, forward:
      // 3D 3x3x3 64ch 10.8 -> 8.2 ms, 1D k3 512ch 23.9 -> 20.2, dilated
      // 0.94, 2D 3x3 1.00; data gradient 0.82-0.93). hi/lo words, whose
      // two entries per tap share an input tile, measured no gain.
      const int64_t tapBytes = r.nb * kLanes * kLanes * 4;
      const int64_t perBlock = r.tapCount / p.blocks.redPerGroup;
      const int64_t blockBytes = std::max<int64_t>(1, perBlock * tapBytes);
      const int64_t step =
          wp.kind == PairKind::Pairs && kernels.pairCallTapBytes > 0
              ? std::max<int64_t>(1, kernels.pairCallTapBytes / tapBytes)
              : std::max<int64_t>(
                    1, std::max<int64_t>(1, kernels.callWeightBytes / blockBytes) * perBlock);
      auto run = [&]() {
        // At least one call: a phase no tap meets stores zeros.
        for (int64_t k = 0; k == 0 || k < r.tapCount; k += step) {
          job.taps = table.offsets + r.tapBegin + k;
          job.tapCount = std::min(step, r.tapCount - k);
          job.weights = packed + r.weights + k * p.tapFloats;
          job.accumulate = k > 0;
          kernels.rows(job);
        }
      };
      if (!direct) {
        job.in = staged + r.in;
        job.out = out + r.out;
        job.outColStep = r.outColStep;
        job.outBlockStride = p.out.blockStride;
        job.count = r.count;
        run();
        continue;
      }
      // The item's sums in L1, then stored: the staged output never
      // reaches memory.
      job.in = staged + r.in;
      job.out = local;
      job.outColStep = kLanes;
      job.outBlockStride = kLocalPositions * kLanes;
      job.count = r.count;
      run();
      // A flattened segment runs on across staged rows (their padding
      // columns are not stored).
      for (int64_t done = 0; done < r.count;) {
        int64_t row = 0, col = 0;
        locate(p.out, r.out + done * kLanes, &row, &col);
        const int64_t length = std::min(r.count - done, p.out.size[2] - col);
        for (int b = 0; b < r.nb; ++b) {
          const float* sums = local + (b * kLocalPositions + done) * kLanes;
          const int64_t blockRow = row + b * p.out.size[0] * p.out.size[1];
          if (outWords)
            unstageWordSegment_avx512(sums, p.out, blockRow, col, length, outWords, s.io, bias);
          else
            unstageSegment_avx512(sums, p.out, blockRow, col, length, outFloats, bias);
        }
        done += length;
      }
    }
  };
  auto stageImages = [&](int64_t image0, int64_t images, uint32_t* staged) {
    return io.inWords ? stageWords(wp, io.inWords, s.io, s.inputRounding, inputChannels, image0,
                                   images, staged)
                      : stageWords(wp, io.in, s.io, s.inputRounding, inputChannels, image0, images,
                                   staged);
  };
  // Whole images per thread, as the fp32 row passes do (see
  // eachThreadTakesWholeImages): each image's staged words are read by the
  // core that wrote them, from its L2. Only for passes that store directly
  // (no staged output to write back). Medians of 7, 1 / 2 threads: pass
  // bench (fp32 sources) RN50 3x3 64ch forward 0.95 / 0.97, 256ch 14x14 0.97
  // / 0.93-0.96; through the operator on bf16 words 1.02 / 0.99-1.02, no
  // gain beyond the noise there.
  if (direct && eachThreadTakesWholeImages(p, computeThreadCount(), false)) {
    const int64_t itemsPerImage = rowItemCount(p, 1);
    // Each image with a zeroed slack of its own (wholeImagePitch), each
    // thread in one room (wholeImageRoom).
    StagedLayout inOne = p.in;
    inOne.images = 1;
    const int64_t pitch = wholeImagePitch(p.in, slackWords(p));
    std::atomic<bool> unsafe{false};
    for (int64_t image0 = 0; image0 < s.batch; image0 += p.imagesPerGroup) {
      const int64_t images = std::min(p.imagesPerGroup, s.batch - image0);
      parallelFor(images, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end && !unsafe.load(std::memory_order_relaxed); ++i) {
          uint32_t* staged = in + wholeImageRoom(i, images) * pitch;
          zeroSlack(p, inOne, staged);
          if (!stageImages(image0 + i, 1, staged)) {
            unsafe.store(true, std::memory_order_relaxed);
            break;
          }
          runItems(staged, image0 + i, 1, 0, itemsPerImage);
        }
      });
      if (unsafe.load()) return false;
    }
    return true;
  }
  zeroSlack(p, p.in, in);  // after the group's last image
  for (int64_t image0 = 0; image0 < s.batch; image0 += p.imagesPerGroup) {
    const int64_t images = std::min(p.imagesPerGroup, s.batch - image0);
    if (!stageImages(image0, images, in)) return false;
    parallelFor(rowItemCount(p, images),
                [&](int64_t begin, int64_t end) { runItems(in, image0, images, begin, end); });
    if (direct) continue;
    if (io.outWords)
      unstageWords(out, p.out, image0, images, io.outWords, s.io, bias);
    else
      unstage(kAvx512Kernels, out, p.out, image0, images, io.out, bias);
  }
  return true;
}

void runFloatPass(Isa isa, RowPassKind kind, const ConvShape& s, const float* input, const float* w,
                  float* output, void* scratch, const float* bias) {
  PassIo io;
  io.in = input;
  io.out = output;
  if (runWordPass(isa, kind, s, io, w, scratch, bias)) return;
  ConvShape f = s;
  f.operands = OperandValues::F32;
  runConvAlgorithm(fallbackFor(kind, s), f, input, w, bias, output, scratch);
}

bool runWordsPass(Isa isa, RowPassKind kind, const ConvShape& s, const uint16_t* input,
                  const float* w, const uint16_t* wWords, uint16_t* output, void* scratch,
                  const float* bias) {
  PassIo io;
  io.inWords = input;
  io.outWords = output;
  io.weightWords = wWords;
  return runWordPass(isa, kind, s, io, w, scratch, bias);
}

}  // namespace

bool acceptsBf16Forward(Isa isa, const ConvShape& shape) {
  WordPlan wp;
  return planWords(isa, shape, RowPassKind::Forward, &wp);
}
bool acceptsBf16BackwardData(Isa isa, const ConvShape& shape) {
  WordPlan wp;
  return planWords(isa, shape, RowPassKind::BackwardData, &wp);
}

uint64_t bf16ForwardScratchBytes(Isa isa, const ConvShape& shape) {
  return scratchBytes(isa, shape, RowPassKind::Forward);
}
uint64_t bf16BackwardDataScratchBytes(Isa isa, const ConvShape& shape) {
  return scratchBytes(isa, shape, RowPassKind::BackwardData);
}

void bf16Forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
                 void* scratch, const float* bias) {
  runFloatPass(isa, RowPassKind::Forward, shape, x, w, y, scratch, bias);
}
void bf16BackwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch, const float* bias) {
  runFloatPass(isa, RowPassKind::BackwardData, shape, dy, w, dx, scratch, bias);
}
bool bf16ForwardWords(Isa isa, const ConvShape& shape, const uint16_t* x, const float* w,
                      uint16_t* y, void* scratch, const float* bias) {
  return runWordsPass(isa, RowPassKind::Forward, shape, x, w, nullptr, y, scratch, bias);
}
bool bf16BackwardDataWords(Isa isa, const ConvShape& shape, const uint16_t* dy, const float* w,
                           uint16_t* dx, void* scratch, const float* bias) {
  return runWordsPass(isa, RowPassKind::BackwardData, shape, dy, w, nullptr, dx, scratch, bias);
}
bool bf16ForwardWordWeights(Isa isa, const ConvShape& shape, const uint16_t* x, const uint16_t* w,
                            uint16_t* y, void* scratch, const float* bias) {
  return runWordsPass(isa, RowPassKind::Forward, shape, x, nullptr, w, y, scratch, bias);
}
bool bf16BackwardDataWordWeights(Isa isa, const ConvShape& shape, const uint16_t* dy,
                                 const uint16_t* w, uint16_t* dx, void* scratch,
                                 const float* bias) {
  return runWordsPass(isa, RowPassKind::BackwardData, shape, dy, nullptr, w, dx, scratch, bias);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
