#include "kernels/conv/pointwise_bf16/bf16_pointwise.h"

#include <algorithm>
#include <atomic>

#include "common/thread_pool.h"
#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/blocked/blocked_bf16_kernels.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/conv/pointwise_bf16/bf16_pointwise_kernels.h"

namespace aclcpu {
namespace kernels {
namespace pointwise_bf16 {
namespace {

// The problem as the fp32 algorithms take it (fp32 buffers, fp32 values).
ConvShape asFp32(const ConvShape& s) {
  ConvShape f = s;
  f.operands = OperandValues::F32;
  f.io = ElementType::F32;
  return f;
}

// The GEMM of one pass: m output channels, k reduction channels, positions
// per image.
struct Gemm {
  int64_t m = 0, k = 0, kSteps = 0, mTiles = 0, positions = 0;
  bool data = false;  // backward data: a = w transposed
  bool hiLo = false;  // fp16 or HF32 operands, split into bf16 hi + lo
};

bool plan(const ConvShape& s, bool data, Gemm* g) {
  if (s.operands == OperandValues::F32 || s.groups != 1) return false;
  if (!conv_detail::describe(s).columnsAreInput) return false;
  g->data = data;
  g->hiLo = s.operands != OperandValues::BF16;
  g->m = data ? s.inChannels : s.outChannels;
  g->k = data ? s.outChannels : s.inChannels;
  g->kSteps = g->hiLo ? (g->k + 15) / 16 : (g->k + 31) / 32;
  g->mTiles = (g->m + 15) / 16;
  g->positions = s.out[0] * s.out[1] * s.out[2];
  // More reduction steps than kMaxKSteps (1024 channels, 512 for hi/lo)
  // would not fit the L1 panel.
  return g->kSteps <= kMaxKSteps && g->mTiles <= (int64_t{1} << 20);
}

// Packed weights: one 1 KB tile per (output tile, step); two for hi/lo.
uint64_t packedBytes(const Gemm& g) {
  return static_cast<uint64_t>(g.mTiles * g.kSteps) * (g.hiLo ? 2048u : 1024u);
}

// The fp32 algorithm for data holding bf16Unsafe values (fp32 operands:
// never a bf16 entry).
const ConvAlgorithm& fallbackFor(const ConvShape& s, bool data) {
  const ConvShape f = asFp32(s);
  return selectConvAlgorithm(data ? ConvPass::BackwardData : ConvPass::Forward, f, Isa::Avx512Bf16);
}

uint64_t scratchBytes(const ConvShape& s, bool data) {
  Gemm g;
  if (!plan(s, data, &g)) return 0;
  const ConvShape f = asFp32(s);
  return std::max(packedBytes(g), fallbackFor(s, data).scratchBytes(f));
}

// a(m, k) = w[m][k] (forward; w is [O][C]) or w[k][m] (data), as the
// kernel's packed tiles; false when a weight is bf16Unsafe.
bool packWeights(const Gemm& g, const float* w, uint16_t* packed) {
  const int64_t perStep = g.hiLo ? 16 : 32;  // reduction channels per step
  const int64_t tiles = g.hiLo ? 2 : 1;      // a tiles per step
  std::atomic<bool> unsafe{false};
  parallelFor(g.mTiles * g.kSteps, [&](int64_t begin, int64_t end) {
    bool seen = false;
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t t = unit / g.kSteps, step = unit % g.kSteps;
      uint16_t* tile = packed + unit * tiles * 512;
      for (int64_t r = 0; r < 16; ++r)
        for (int64_t j = 0; j < perStep; ++j) {
          const int64_t m = t * 16 + r, k = step * perStep + j;
          float v = 0.0f;
          if (m < g.m && k < g.k) v = g.data ? w[k * g.m + m] : w[m * g.k + k];
          seen = seen || blocked::bf16Unsafe(v);
          if (!g.hiLo) {
            tile[r * 32 + j] = static_cast<uint16_t>(blocked::bf16Of(v));
            continue;
          }
          const uint32_t hiLo = blocked::hiLoWord(v), loHi = blocked::loHiWord(v);
          tile[r * 32 + 2 * j] = static_cast<uint16_t>(hiLo);
          tile[r * 32 + 2 * j + 1] = static_cast<uint16_t>(hiLo >> 16);
          tile[512 + r * 32 + 2 * j] = static_cast<uint16_t>(loHi);
          tile[512 + r * 32 + 2 * j + 1] = static_cast<uint16_t>(loHi >> 16);
        }
    }
    if (seen) unsafe.store(true, std::memory_order_relaxed);
  });
  return !unsafe.load();
}

// b and out: one dense operand per image, as words or fp32.
template <typename In, typename Out>
bool runGemm(Isa isa, const Gemm& g, int64_t batch, const In* b, const float* w, Out* out,
             void* scratch, const float* bias, bool halfWords = false) {
  const bool amx = isa >= Isa::Amx;
  uint16_t* packed = static_cast<uint16_t*>(scratch);
  if (!packWeights(g, w, packed)) return false;
  const bool subnormalBias = blocked::holdsSubnormal(bias, g.m);
  // Work items of as many panels as one buffer holds (packBf16Panels_avx512).
  const int64_t chunkPositions = kMaxKSteps / g.kSteps * kPanelPositions;
  const int64_t chunks = (g.positions + chunkPositions - 1) / chunkPositions;
  std::atomic<bool> unsafe{false};
  parallelFor(batch * chunks, [&](int64_t begin, int64_t end) {
    if (amx) blocked::configureBf16Tiles_amx();
    alignas(64) uint16_t panels[kChunkWords];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t image = item / chunks, c0 = item % chunks * chunkPositions;
      const int64_t positions = std::min(chunkPositions, g.positions - c0);
      Bf16PointwiseJob job;
      job.a = packed;
      job.m = g.m;
      job.k = g.k;
      job.kSteps = g.kSteps;
      job.hiLo = g.hiLo;
      job.outHalf = halfWords;
      job.bRowStride = g.positions;
      job.bias = bias;
      job.exactRounding = subnormalBias;
      job.outRowStride = g.positions;
      // The next item's rows, as these are read (AVX512-BF16 kernel, forced
      // on the Xeon, 1x1 256->64 56x56 bf16 forward, 1 thread, medians of
      // 5: 9.1 -> 8.6 ms; AMX within the noise).
      job.prefetchPositions = chunkPositions;
      const In* src = b + image * g.k * g.positions + c0;
      Out* dst = out + image * g.m * g.positions + c0;
      if constexpr (sizeof(In) == 2)
        job.bWords = src;
      else
        job.bFloats = src;
      if (!packBf16Panels_avx512(job, positions, panels)) {
        unsafe.store(true, std::memory_order_relaxed);
        return;
      }
      for (int64_t p0 = 0; p0 < positions; p0 += kPanelPositions) {
        job.n = std::min(kPanelPositions, positions - p0);
        job.panel = panels + p0 / kPanelPositions * panelWords(g.kSteps);
        if constexpr (sizeof(Out) == 2)
          job.outWords = dst + p0;
        else
          job.outFloats = dst + p0;
        (amx ? bf16_pointwise_m32n32_amx : bf16_pointwise_m8n32_avx512bf16)(job);
      }
    }
  });
  return !unsafe.load();
}

void runFloats(Isa isa, const ConvShape& s, bool data, const float* in, const float* w, float* out,
               void* scratch, const float* bias) {
  Gemm g;
  plan(s, data, &g);
  if (runGemm(isa, g, s.batch, in, w, out, scratch, bias)) return;
  const ConvShape f = asFp32(s);
  runConvAlgorithm(fallbackFor(s, data), f, in, w, bias, out, scratch);
}

bool runWords(Isa isa, const ConvShape& s, bool data, const uint16_t* in, const float* w,
              uint16_t* out, void* scratch, const float* bias) {
  Gemm g;
  plan(s, data, &g);
  return runGemm(isa, g, s.batch, in, w, out, scratch, bias, s.io == ElementType::F16);
}

// The weight gradient: steps of 32 positions of one image, image-major,
// split into chunks of consecutive steps; chunk partials of whole 32 x 32
// blocks.
constexpr int64_t kMaxChunks = 16;
constexpr uint64_t kMaxPartialBytes = uint64_t{256} << 20;

struct WeightPlan {
  int64_t m = 0, n = 0, positions = 0, stepsPerImage = 0, steps = 0, chunks = 0;
  int64_t mPad = 0, nPad = 0;
  uint64_t partialBytes = 0;
};

bool planWeight(const ConvShape& s, WeightPlan* p) {
  if (s.operands != OperandValues::BF16 || s.groups != 1) return false;
  if (!conv_detail::describe(s).columnsAreInput) return false;
  p->m = s.outChannels;
  p->n = s.inChannels;
  p->positions = s.out[0] * s.out[1] * s.out[2];
  p->stepsPerImage = (p->positions + 31) / 32;
  p->steps = s.batch * p->stepsPerImage;
  p->chunks = std::min(kMaxChunks, (p->steps + kMaxBlockSteps - 1) / kMaxBlockSteps);
  p->mPad = (p->m + 31) / 32 * 32;
  p->nPad = (p->n + 31) / 32 * 32;
  if (p->mPad > (int64_t{1} << 20) || p->nPad > (int64_t{1} << 20)) return false;
  p->partialBytes = static_cast<uint64_t>(p->chunks) * static_cast<uint64_t>(p->mPad) *
                    static_cast<uint64_t>(p->nPad) * 4u;
  return p->partialBytes <= kMaxPartialBytes;
}

const ConvAlgorithm& weightFallback(const ConvShape& s) {
  const ConvShape f = asFp32(s);
  return selectConvAlgorithm(ConvPass::BackwardWeight, f, Isa::Avx512Bf16);
}

template <typename In>
bool runWeight(const ConvShape& s, const In* x, const In* dy, float* dw, void* scratch) {
  WeightPlan p;
  planWeight(s, &p);
  float* partial = static_cast<float*>(scratch);
  const int64_t nPairs = p.nPad / 32;
  const int64_t chunkFloats = p.mPad * p.nPad;
  std::atomic<bool> unsafe{false};
  parallelFor(p.chunks * nPairs, [&](int64_t begin, int64_t end) {
    blocked::configureBf16Tiles_amx();
    alignas(64) uint16_t panel[kMaxBlockSteps * 2 * 512];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t chunk = item / nPairs, pair = item % nPairs;
      const int64_t first = p.steps * chunk / p.chunks, last = p.steps * (chunk + 1) / p.chunks;
      Bf16PointwiseWeightJob job;
      if constexpr (sizeof(In) == 2) {
        job.xWords = x;
        job.dyWords = dy;
      } else {
        job.xFloats = x;
        job.dyFloats = dy;
      }
      job.m = p.m;
      job.n = p.n;
      job.n0 = pair * 32;
      job.positions = p.positions;
      job.stepsPerImage = p.stepsPerImage;
      job.checkDy = pair == 0;
      job.partial = partial + chunk * chunkFloats + job.n0;
      job.partialStride = p.nPad;
      job.panel = panel;
      for (int64_t step = first; step < last; step += kMaxBlockSteps) {
        job.firstStep = step;
        job.steps = std::min(kMaxBlockSteps, last - step);
        job.accumulate = step > first;
        if (!bf16_pointwise_bwdw_m32n32_amx(job)) {
          unsafe.store(true, std::memory_order_relaxed);
          return;
        }
      }
    }
  });
  if (unsafe.load()) return false;
  // dw = the chunk partials added in chunk order.
  parallelFor(p.m, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o)
      for (int64_t c = 0; c < p.n; ++c) {
        float sum = partial[o * p.nPad + c];
        for (int64_t k = 1; k < p.chunks; ++k) sum += partial[k * chunkFloats + o * p.nPad + c];
        dw[o * p.n + c] = sum;
      }
  });
  return true;
}

}  // namespace

bool acceptsBackwardWeight(const ConvShape& shape) {
  WeightPlan p;
  return planWeight(shape, &p);
}
uint64_t backwardWeightScratchBytes(const ConvShape& shape) {
  WeightPlan p;
  if (!planWeight(shape, &p)) return 0;
  const ConvShape f = asFp32(shape);
  return std::max(p.partialBytes, weightFallback(shape).scratchBytes(f));
}
void backwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                    void* scratch) {
  if (runWeight(shape, x, dy, dw, scratch)) return;
  const ConvShape f = asFp32(shape);
  runConvAlgorithm(weightFallback(shape), f, x, dy, nullptr, dw, scratch);
}
bool backwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy, float* dw,
                         void* scratch) {
  return runWeight(shape, x, dy, dw, scratch);
}

bool acceptsForward(const ConvShape& shape) {
  Gemm g;
  return plan(shape, false, &g);
}
bool acceptsBackwardData(const ConvShape& shape) {
  Gemm g;
  return plan(shape, true, &g);
}
uint64_t forwardScratchBytes(const ConvShape& shape) { return scratchBytes(shape, false); }
uint64_t backwardDataScratchBytes(const ConvShape& shape) { return scratchBytes(shape, true); }

void forward(Isa isa, const ConvShape& shape, const float* x, const float* w, float* y,
             void* scratch, const float* bias) {
  runFloats(isa, shape, false, x, w, y, scratch, bias);
}
void backwardData(Isa isa, const ConvShape& shape, const float* dy, const float* w, float* dx,
                  void* scratch, const float* bias) {
  runFloats(isa, shape, true, dy, w, dx, scratch, bias);
}
bool forwardWords(Isa isa, const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                  void* scratch, const float* bias) {
  return runWords(isa, shape, false, x, w, y, scratch, bias);
}
bool backwardDataWords(Isa isa, const ConvShape& shape, const uint16_t* dy, const float* w,
                       uint16_t* dx, void* scratch, const float* bias) {
  return runWords(isa, shape, true, dy, w, dx, scratch, bias);
}

}  // namespace pointwise_bf16
}  // namespace kernels
}  // namespace aclcpu
