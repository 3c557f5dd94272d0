// Driver of the bf16 row passes: the fp32 row-pass plan of the problem with
// its reduction channels counted in words (two channels per word for bf16
// operands, two words per channel for hi/lo), word-staged operands, AMX
// micro-kernels, and the fp32 unstaging of the result.

#include "kernels/conv/blocked/blocked_bf16_conv.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/blocked/blocked_kernels.h"
#include "kernels/conv/blocked/blocked_plan.h"
#include "kernels/conv/blocked/blocked_staging.h"
#include "kernels/conv/conv_registry.h"

namespace aclcpu {
namespace kernels {
namespace blocked {
namespace {

// Words the kernel may read past the staged input (15 positions at input
// step 2, rounded up).
constexpr int64_t kSlackWords = 32 * kLanes;

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

bool planWords(const ConvShape& s, RowPassKind pass, WordPlan* wp, TapTable* table = nullptr) {
  if (s.operands == OperandValues::F32 || s.groups != 1) return false;
  wp->kind = s.operands == OperandValues::BF16 ? PairKind::Pairs : PairKind::HiLo;
  wp->words = s;
  int64_t& reduction = pass == RowPassKind::Forward ? wp->words.inChannels : wp->words.outChannels;
  if (wp->kind == PairKind::Pairs) {
    reduction = reduction / 2 + reduction % 2;
  } else if (!checkedMul(reduction, int64_t{2}, &reduction)) {
    return false;
  }
  RowPassPlan& p = wp->rows;
  if (!planRowPass(wp->words, pass, &p, table)) return false;
  // Tiles of one output block: the kernel then runs 64 positions x 16
  // channels per weight tile load, so big weight sets stream from L2 at a
  // quarter of the bytes per tile product of 2 x 2 blocking.
  if (p.blocks.pairs) {
    p.blocks.pairs = false;
    p.blocks.tiles = p.blocks.outBlocks;
    p.tapFloats = kLanes * kLanes;
    for (int64_t i = 0; i < p.phaseCount; ++i) p.phases[i].weightBegin = p.phases[i].tapBegin * p.tapFloats;
    p.tileWeightFloats = p.tapsPerTile * p.tapFloats;
  }
  Regions r;
  wp->inOffset = r.take(p.in.floats + kSlackWords, sizeof(uint32_t));
  wp->outOffset = r.take(p.out.floats, sizeof(float));
  wp->weightOffset =
      r.take(static_cast<uint64_t>(p.tileWeightFloats) * static_cast<uint64_t>(p.blocks.tiles),
             sizeof(uint32_t));
  wp->tapOffset =
      r.take(static_cast<uint64_t>(p.tapsPerTile), sizeof(int64_t) + 2 * sizeof(int32_t));
  wp->bytes = r.next;
  return r.ok && p.blocks.tiles > 0;
}

ConvPass passOf(RowPassKind kind) {
  return kind == RowPassKind::Forward ? ConvPass::Forward : ConvPass::BackwardData;
}

// The fp32 algorithm that runs when the data holds bf16Unsafe values. Below
// Amx, so never this one.
const ConvAlgorithm& fallbackFor(RowPassKind kind, const ConvShape& s) {
  ConvShape f = s;
  f.operands = OperandValues::F32;
  return selectConvAlgorithm(passOf(kind), f, Isa::Avx512Bf16);
}

uint64_t scratchBytes(const ConvShape& s, RowPassKind kind) {
  WordPlan wp;
  if (!planWords(s, kind, &wp)) return 0;
  ConvShape f = s;
  f.operands = OperandValues::F32;
  return std::max(wp.bytes, fallbackFor(kind, s).scratchBytes(f));
}

// Packs the weights of every tile as words, [tap entry][block][word][16];
// false when one is bf16Unsafe.
bool packWords(const WordPlan& wp, const TapTable& table, const ConvShape& s, const float* w,
               uint32_t* packed) {
  const RowPassPlan& p = wp.rows;
  const bool data = p.kind == RowPassKind::BackwardData;
  const int64_t taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
  const int64_t outChannels = data ? s.inChannels : s.outChannels;
  const int64_t redChannels = data ? s.outChannels : s.inChannels;
  // w [O, C, taps] (ungrouped): the element of (pass output o, reduction c).
  auto element = [&](int64_t o, int64_t c, int64_t tap) {
    if (o >= outChannels || c >= redChannels) return 0.0f;
    return data ? w[(c * s.inChannels + o) * taps + tap] : w[(o * s.inChannels + c) * taps + tap];
  };
  std::atomic<bool> unsafe{false};
  parallelFor(p.blocks.tiles, [&](int64_t begin, int64_t end) {
    bool seen = false;
    for (int64_t tile = begin; tile < end; ++tile) {
      int64_t ob0 = 0;
      int nb = 1;
      tileBlocks(p.blocks, tile, &ob0, &nb);
      uint32_t* dst = packed + tile * p.tileWeightFloats;
      for (int64_t i = 0; i < p.tapsPerTile; ++i) {
        const int64_t tap = table.weightTap[i];
        const int64_t word0 = (firstReduction(p.blocks, ob0) + table.redIndex[i]) * kLanes;
        uint32_t* block = dst + i * p.tapFloats;
        for (int b = 0; b < nb; ++b)
          for (int64_t k = 0; k < kLanes; ++k)
            for (int64_t o = 0; o < kLanes; ++o) {
              const int64_t oc = (ob0 + b) * kLanes + o, word = word0 + k;
              uint32_t& out = block[b * kLanes * kLanes + k * kLanes + o];
              if (wp.kind == PairKind::Pairs) {
                const float even = element(oc, 2 * word, tap), odd = element(oc, 2 * word + 1, tap);
                seen = seen || bf16Unsafe(even) || bf16Unsafe(odd);
                out = pairWord(even, odd);
              } else {
                const float v = element(oc, word / 2, tap);
                seen = seen || bf16Unsafe(v);
                out = word % 2 == 0 ? hiLoWord(v) : loHiWord(v);
              }
            }
      }
    }
    if (seen) unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

bool stageWords(const WordPlan& wp, const float* dense, int64_t denseChannels, int64_t firstImage,
                int64_t images, uint32_t* staged) {
  const StagedLayout& l = wp.rows.in;
  const float* src = dense + firstImage * denseChannels * l.source[0] * l.source[1] * l.source[2];
  std::atomic<bool> unsafe{false};
  parallelFor(images * rowsPerImage(l), [&](int64_t begin, int64_t end) {
    if (!stageBf16Rows_avx512(src, denseChannels, wp.kind, l, begin, end, staged))
      unsafe.store(true, std::memory_order_relaxed);
  });
  std::memset(staged + l.imageStride * l.images, 0,
              static_cast<size_t>(l.slackFloats + kSlackWords) * sizeof(uint32_t));
  return !unsafe.load();
}

template <typename T>
T* region(void* scratch, uint64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(scratch) + offset);
}

void runWordPass(RowPassKind kind, const ConvShape& s, const float* input, const float* w,
                 float* output, void* scratch) {
  WordPlan wp;
  planWords(s, kind, &wp);
  TapTable table;
  table.offsets = region<int64_t>(scratch, wp.tapOffset);
  table.redIndex = reinterpret_cast<int32_t*>(table.offsets + wp.rows.tapsPerTile);
  table.weightTap = table.redIndex + wp.rows.tapsPerTile;
  planWords(s, kind, &wp, &table);
  const RowPassPlan& p = wp.rows;
  uint32_t* in = region<uint32_t>(scratch, wp.inOffset);
  float* out = region<float>(scratch, wp.outOffset);
  uint32_t* packed = region<uint32_t>(scratch, wp.weightOffset);
  const int64_t inputChannels = kind == RowPassKind::Forward ? s.inChannels : s.outChannels;
  bool exact = packWords(wp, table, s, w, packed);
  for (int64_t image0 = 0; exact && image0 < s.batch; image0 += p.imagesPerGroup) {
    const int64_t images = std::min(p.imagesPerGroup, s.batch - image0);
    if (!stageWords(wp, input, inputChannels, image0, images, in)) {
      exact = false;
      break;
    }
    parallelFor(rowItemCount(p, images), [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) {
        const RowItem r = rowItemAt(p, images, item);
        Bf16RowJob job;
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
        bf16_conv_rows_m16n16_amx(job);
      }
    });
    unstage(kAvx512Kernels, out, p.out, image0, images, output);
  }
  if (exact) return;
  ConvShape f = s;
  f.operands = OperandValues::F32;
  fallbackFor(kind, s).run(f, input, w, output, scratch);
}

}  // namespace

bool acceptsBf16Forward(const ConvShape& shape) {
  WordPlan wp;
  return planWords(shape, RowPassKind::Forward, &wp);
}
bool acceptsBf16BackwardData(const ConvShape& shape) {
  WordPlan wp;
  return planWords(shape, RowPassKind::BackwardData, &wp);
}

uint64_t bf16ForwardScratchBytes(const ConvShape& shape) {
  return scratchBytes(shape, RowPassKind::Forward);
}
uint64_t bf16BackwardDataScratchBytes(const ConvShape& shape) {
  return scratchBytes(shape, RowPassKind::BackwardData);
}

void bf16Forward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch) {
  runWordPass(RowPassKind::Forward, shape, x, w, y, scratch);
}
void bf16BackwardData(const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch) {
  runWordPass(RowPassKind::BackwardData, shape, dy, w, dx, scratch);
}

}  // namespace blocked
}  // namespace kernels
}  // namespace aclcpu
