#include "kernels/gemm/gemm.h"

#include <algorithm>
#include <atomic>

#include "common/thread_pool.h"
#include "kernels/cpu/cpu_info.h"
#include "kernels/gemm/gemm_kernel.h"
#include "kernels/gemm/gemm_pack.h"
#include "kernels/gemm/gemm_testing.h"

namespace aclcpu {
namespace kernels {
namespace {

using gemm_detail::GemmKernel;

// Block sizes: the packed B block (kc x nc, L2) is met by one A sliver
// (mr x kc, L1) at a time. They depend on the kernel only, never on threads
// or shapes, so every element's summation order is fixed.
// clang-format off
// Fields: name, mr, nr, kc, mc, nc, micro-kernel, packing micro-kernel, packer, rounding packer,
// HF32 rounding.
constexpr GemmKernel kScalarKernel{"scalar-4x16", gemm_detail::kScalarMr, gemm_detail::kScalarNr,
                                   256, 64, 512,
                                   gemm_detail::microKernelScalar, nullptr,
                                   gemm_detail::packBlockPortable,
                                   gemm_detail::packBlockHf32Portable, gemm_detail::roundHf32Portable,
                                   nullptr};
constexpr GemmKernel kAvx2Kernel{"avx2-6x16", gemm_detail::kAvx2Mr, gemm_detail::kAvx2Nr,
                                 256, 96, 512,
                                 gemm_detail::microKernelAvx2, nullptr,
                                 gemm_detail::packBlockPortable,
                                 gemm_detail::packBlockHf32Portable, gemm_detail::roundHf32Portable,
                                 nullptr};
constexpr GemmKernel kAvx512Kernel{"avx512-8x48", gemm_detail::kAvx512Mr, gemm_detail::kAvx512Nr,
                                   256, 144, 480,
                                   gemm_detail::microKernelAvx512,
                                   gemm_detail::microKernelStreamingBAvx512,
                                   gemm_detail::packBlockAvx512,
                                   gemm_detail::packBlockHf32Avx512, gemm_detail::roundHf32Avx512,
                                   gemm_detail::microKernelNarrowAvx512};
// clang-format on
constexpr const GemmKernel* kAllKernels[] = {&kScalarKernel, &kAvx2Kernel, &kAvx512Kernel};

// Fewer multiply-adds than this per thread (~10 us) is not worth waking one.
constexpr double kMinWorkPerPart = 1 << 21;

bool cpuHasAvx2() { return detectedIsa() >= Isa::Avx2; }
bool cpuHasAvx512() { return detectedIsa() >= Isa::Avx512; }

// The kernel for the active ISA level (ACLNN_CPU_ISA and tests may lower it).
const GemmKernel* autoKernel() {
  const Isa isa = activeIsa();
  if (isa >= Isa::Avx512) return &kAvx512Kernel;
  if (isa >= Isa::Avx2) return &kAvx2Kernel;
  return &kScalarKernel;
}

std::atomic<const GemmKernel*> gForcedKernel{nullptr};
std::atomic<int64_t> gKcOverride{0};
std::atomic<int64_t> gMcOverride{0};
std::atomic<int64_t> gNcOverride{0};

int64_t roundUp(int64_t value, int64_t step) { return (value + step - 1) / step * step; }

GemmKernel withBlocking(const GemmKernel& base, int64_t kc, int64_t mc, int64_t nc) {
  GemmKernel k = base;
  if (kc > 0) k.kc = kc;
  if (mc > 0) k.mc = roundUp(mc, k.mr);
  if (nc > 0) k.nc = roundUp(nc, k.nr);
  return k;
}

GemmKernel activeKernel() {
  const GemmKernel* forced = gForcedKernel.load(std::memory_order_acquire);
  return withBlocking(forced ? *forced : *autoKernel(), gKcOverride.load(), gMcOverride.load(),
                      gNcOverride.load());
}

struct SliceLayout {
  int64_t packedAFloats;
  int64_t packedBFloats;
  int64_t tileFloats;
  uint64_t bytes;
};

// Offsets are kept multiples of 16 floats so every part stays 64-byte aligned.
SliceLayout sliceLayout(const GemmKernel& k) {
  SliceLayout s;
  s.packedAFloats = roundUp(k.mc * k.kc, 16);
  s.packedBFloats = roundUp(k.kc * k.nc, 16);
  s.tileFloats = roundUp(int64_t{k.mr} * k.nr, 16);
  s.bytes = static_cast<uint64_t>(s.packedAFloats + s.packedBFloats + s.tileFloats) * sizeof(float);
  return s;
}

struct Problem {
  int64_t M, N, K;
  // K = taps x tapK: A's columns and B's rows [t * tapK, (t + 1) * tapK) are
  // the views A[t] and B[t] (one view each for a plain product).
  const MatrixView* A;
  const MatrixView* B;
  int64_t tapK;
  const PackedBSource* bSource;  // when not null, B's blocks come from here
  // When not null, A packed whole (packA): K block [pc, pc + kb)'s slivers
  // from packedA + pc * packedRows, row ic's from there + ic * kb.
  const float* packedA;
  int64_t packedRows;
  bool streamB;  // B's whole slivers are packed by the tiles (tilesPackB)
  float* C;
  int64_t ldc;
  bool accumulate;
  const float* rowBias;  // indexed by C's row; may be null
};

void addRowBias(const float* bias, float* c, int64_t ldc, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    const float value = bias[i];
    for (int64_t j = 0; j < cols; ++j) row[j] += value;
  }
}

// One register tile of C; `stream` (may be null) says how it meets a B
// that the tiles pack themselves; rowBias (may be null) joins in the store.
void runTile(const GemmKernel& k, int64_t kb, const float* pa, float* pb,
             const gemm_detail::BStream* stream, float* c, int64_t ldc, bool addToC,
             const float* rowBias) {
  if (stream) {
    k.runStreamingB(kb, pa, pb, c, ldc, addToC, rowBias, *stream);
  } else {
    k.run(kb, pa, pb, c, ldc, addToC, rowBias);
  }
}

// A ragged tile: compute the full tile into a temporary with the same kernel,
// then apply exactly the same final step (store or add, then the bias) to
// the valid part; a tile short of columns only, where the kernel has a
// narrow form, computes just those columns (the same bits).
void edgeTile(const GemmKernel& k, int64_t kb, const float* pa, float* pb,
              const gemm_detail::BStream* stream, float* c, int64_t ldc, int64_t rows, int64_t cols,
              bool addToC, const float* rowBias, float* tile) {
  if (!stream && k.runNarrow && rows == k.mr)
    return k.runNarrow(kb, pa, pb, c, ldc, addToC, rowBias, cols);
  runTile(k, kb, pa, pb, stream, tile, k.nr, false, nullptr);
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    const float* t = tile + i * k.nr;
    for (int64_t j = 0; j < cols; ++j)
      row[j] = gemm_detail::storedValue(row[j], t[j], addToC, rowBias, i);
  }
}

// The tiles of one (B block, A block) pair: C[ic:ic + mb, jc:jc + nb] +=
// packed A x packed B. The first `streamed` columns of the block (whole
// slivers) are not packed yet: B sliver by sliver, the first A sliver's tile
// packs it from B's rows as it uses it, and the other A slivers' tiles,
// which then reuse it from L1, share the prefetching of the next sliver's
// rows. So B's reads from memory overlap the multiply-adds, spread evenly
// over them (RN50 1x1 256->64 56x56: packing first was a third of the
// GEMM's time; packing in the first A sliver's tiles alone left them
// waiting on memory, 3x the others' time).
struct BlockTiles {
  int64_t ic, mb, jc, nb, pc, kb;
  int64_t streamed;
  const MatrixView* b;  // the view holding B's rows [pc, pc + kb), from its row bRow
  int64_t bRow;
};

void multiplyBlock(const GemmKernel& k, const Problem& p, const BlockTiles& t, const float* packedA,
                   float* packedB, float* tile) {
  const bool addToC = p.accumulate || t.pc > 0;
  const bool lastBlock = t.pc + t.kb == p.K;
  auto one = [&](int64_t ir, int64_t jr, const gemm_detail::BStream* stream) {
    const float* pa = packedA + ir * t.kb;
    float* pb = packedB + jr * t.kb;
    const int64_t rows = std::min<int64_t>(k.mr, t.mb - ir);
    const int64_t cols = std::min<int64_t>(k.nr, t.nb - jr);
    float* c = p.C + (t.ic + ir) * p.ldc + t.jc + jr;
    const float* bias = lastBlock && p.rowBias ? p.rowBias + t.ic + ir : nullptr;
    if (rows == k.mr && cols == k.nr) {
      runTile(k, t.kb, pa, pb, stream, c, p.ldc, addToC, bias);
    } else {
      edgeTile(k, t.kb, pa, pb, stream, c, p.ldc, rows, cols, addToC, bias, tile);
    }
  };
  const int64_t aSlivers = (t.mb + k.mr - 1) / k.mr;
  for (int64_t jr = 0; jr < t.streamed; jr += k.nr) {
    const float* rows = t.b->data + t.bRow * t.b->rowStride + t.jc + jr;
    gemm_detail::BStream stream;
    stream.packFrom = rows;
    stream.ldb = t.b->rowStride;
    stream.roundHf32 = t.b->roundHf32;
    one(0, jr, &stream);
    const bool nextStreamed = jr + k.nr < t.streamed;
    for (int64_t s = 1; s < aSlivers; ++s) {
      // Sliver s fetches its share [r0, r1) of the next sliver's kb rows.
      const int64_t r0 = t.kb * (s - 1) / (aSlivers - 1), r1 = t.kb * s / (aSlivers - 1);
      stream = gemm_detail::BStream{};
      stream.fetchFrom = rows + r0 * t.b->rowStride + k.nr;
      stream.ldb = t.b->rowStride;
      stream.fetchRows = nextStreamed ? r1 - r0 : 0;
      one(s * k.mr, jr, &stream);
    }
  }
  for (int64_t ir = 0; ir < t.mb; ir += k.mr) {
    for (int64_t jr = t.streamed; jr < t.nb; jr += k.nr) one(ir, jr, nullptr);
  }
}

// A row-major B (every view's) has its whole slivers packed by the tiles.
bool tilesPackB(const GemmKernel& k, const MatrixView* B, int64_t views,
                const PackedBSource* bSource) {
  if (!k.runStreamingB || bSource) return false;
  for (int64_t t = 0; t < views; ++t) {
    if (B[t].colStride != 1) return false;
  }
  return true;
}

// Each view's tapK rows of K are cut into equal blocks of at most kc (576
// -> 3 x 192, not 256 + 256 + 64), so no block straddles two views: this
// depends on tapK and kc only, never on the part being computed.
int64_t kBlockStep(int64_t tapK, int64_t kc) {
  const int64_t blocks = (tapK + kc - 1) / kc;
  return (tapK + blocks - 1) / blocks;
}

// Sequential blocked GEMM on C[m0:m1, n0:n1] using one scratch slice.
void runPart(const GemmKernel& k, const Problem& p, int64_t m0, int64_t m1, int64_t n0, int64_t n1,
             float* slice) {
  const SliceLayout layout = sliceLayout(k);
  float* packedA = slice;
  float* packedB = slice + layout.packedAFloats;
  float* tile = packedB + layout.packedBFloats;
  const int64_t kStep = kBlockStep(p.tapK, k.kc);
  for (int64_t jc = n0; jc < n1; jc += k.nc) {
    const int64_t nb = std::min(k.nc, n1 - jc);
    const int64_t streamed = p.streamB ? nb / k.nr * k.nr : 0;
    for (int64_t pc = 0; pc < p.K;) {
      const int64_t tap = pc / p.tapK;
      const int64_t local = pc - tap * p.tapK;
      const int64_t kb = std::min(kStep, p.tapK - local);
      const MatrixView& a = p.A[tap];
      const MatrixView* b = p.bSource ? nullptr : &p.B[tap];
      if (p.bSource) {
        p.bSource->pack(p.bSource->context, pc, jc, kb, nb, k.nr, packedB);
      } else if (streamed < nb) {
        gemm_detail::packB(*b, local, jc + streamed, kb, nb - streamed, k.nr,
                           b->roundHf32 ? k.packHf32 : k.pack, packedB + streamed * kb);
      }
      if (p.bSource && p.bSource->roundHf32) k.roundHf32(packedB, roundUp(nb, k.nr) * kb);
      for (int64_t ic = m0; ic < m1; ic += k.mc) {
        const int64_t mb = std::min(k.mc, m1 - ic);
        const float* blockA = packedA;
        if (p.packedA) {
          blockA = p.packedA + pc * p.packedRows + ic * kb;
        } else {
          gemm_detail::packA(a, ic, local, mb, kb, k.mr, a.roundHf32 ? k.packHf32 : k.pack,
                             packedA);
        }
        const BlockTiles tiles{ic, mb, jc, nb, pc, kb, ic == m0 ? streamed : 0, b, local};
        multiplyBlock(k, p, tiles, blockA, packedB, tile);
      }
      pc += kb;
    }
  }
}

// Splits C into a grid of tilesM x tilesN parts (at most maxParts, at least
// one tile each), preferring the grid that repacks least: every column of
// parts packs all of its A rows and every row of parts all of its B columns.
// A B that the tiles stream (multiplyBlock) counts half: its packing
// overlaps the multiply-adds, A's does not. Measured: 1D k10 s5 512ch L4000
// forward (M 512, N 799, K 5120 per image), 2 threads, split by rows 48 ms,
// by columns 54 (each part packed all 10 MB of A per image).
void chooseGrid(int64_t M, int64_t N, int64_t tilesM, int64_t tilesN, int64_t maxParts,
                double bWeight, int64_t* gridM, int64_t* gridN) {
  for (int64_t parts = std::min(maxParts, tilesM * tilesN); parts > 1; --parts) {
    double bestCost = -1.0;
    for (int64_t gm = 1; gm <= parts; ++gm) {
      if (parts % gm != 0) continue;
      const int64_t gn = parts / gm;
      if (gm > tilesM || gn > tilesN) continue;
      const double cost = static_cast<double>(gn) * M + bWeight * static_cast<double>(gm) * N;
      if (bestCost < 0.0 || cost < bestCost) {
        bestCost = cost;
        *gridM = gm;
        *gridN = gn;
      }
    }
    if (bestCost >= 0.0) return;
  }
  *gridM = 1;
  *gridN = 1;
}

// The largest slice any kernel needs with its default blocks.
uint64_t maxSliceBytes() {
  uint64_t slice = 0;
  for (const GemmKernel* k : kAllKernels) slice = std::max(slice, sliceLayout(*k).bytes);
  return slice;
}

void zeroMatrix(int64_t M, int64_t N, float* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0f);
}

// A packed by packA for this product's kernel and blocking.
bool packedFor(const PackedA* packed, const GemmKernel& k, int64_t M, int64_t K) {
  return packed && packed->data && packed->kernel == k.name && packed->kc == k.kc &&
         packed->M == M && packed->K == K;
}

void multiply(int64_t M, int64_t N, int64_t K, const MatrixView* A, const MatrixView* B,
              int64_t tapK, const PackedBSource* bSource, float* C, int64_t ldc, bool accumulate,
              void* scratch, const float* rowBias, const PackedA* packed = nullptr) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate) zeroMatrix(M, N, C, ldc);
    if (rowBias) addRowBias(rowBias, C, ldc, M, N);
    return;
  }
  const GemmKernel k = activeKernel();
  const bool streamB = tilesPackB(k, B, K / tapK, bSource);
  const bool usePacked = packedFor(packed, k, M, K);
  const Problem problem{M,
                        N,
                        K,
                        A,
                        B,
                        tapK,
                        bSource,
                        usePacked ? packed->data : nullptr,
                        roundUp(M, k.mr),
                        streamB,
                        C,
                        ldc,
                        accumulate,
                        rowBias};
  const int64_t tilesM = (M + k.mr - 1) / k.mr;
  const int64_t tilesN = (N + k.nr - 1) / k.nr;
  const double work = static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int64_t threads = computeThreadCount();
  const int64_t wanted = static_cast<int64_t>(std::min<double>(threads, work / kMinWorkPerPart));
  int64_t gridM = 1;
  int64_t gridN = 1;
  chooseGrid(M, N, tilesM, tilesN, std::max<int64_t>(wanted, 1), streamB ? 0.5 : 1.0, &gridM,
             &gridN);

  float* const base = static_cast<float*>(scratch);
  const int64_t sliceFloats = static_cast<int64_t>(sliceLayout(k).bytes / sizeof(float));
  // Part index == slice index: parts are disjoint and each runs on one thread
  // at a time, so no two threads ever share a slice.
  auto runRange = [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t pm = part / gridN;
      const int64_t pn = part % gridN;
      const int64_t m0 = std::min(M, tilesM * pm / gridM * k.mr);
      const int64_t m1 = std::min(M, tilesM * (pm + 1) / gridM * k.mr);
      const int64_t n0 = std::min(N, tilesN * pn / gridN * k.nr);
      const int64_t n1 = std::min(N, tilesN * (pn + 1) / gridN * k.nr);
      runPart(k, problem, m0, m1, n0, n1, base + part * sliceFloats);
    }
  };
  const int64_t parts = gridM * gridN;
  if (parts == 1) {
    runRange(0, 1);
  } else {
    parallelFor(parts, runRange);
  }
}

}  // namespace

void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, MatrixView B, float* C, int64_t ldc,
           bool accumulate, void* scratch, const float* rowBias) {
  multiply(M, N, K, &A, &B, K, nullptr, C, ldc, accumulate, scratch, rowBias);
}

void sgemmTaps(int64_t M, int64_t N, int64_t tapK, int64_t taps, const MatrixView* A,
               const MatrixView* B, float* C, int64_t ldc, bool accumulate, void* scratch,
               const float* rowBias) {
  multiply(M, N, taps > 0 && tapK > 0 ? taps * tapK : 0, A, B, tapK, nullptr, C, ldc, accumulate,
           scratch, rowBias);
}

void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, const PackedBSource& B, float* C,
           int64_t ldc, bool accumulate, void* scratch, const float* rowBias) {
  multiply(M, N, K, &A, nullptr, K, &B, C, ldc, accumulate, scratch, rowBias);
}

void sgemm(int64_t M, int64_t N, int64_t K, const PackedA& A, MatrixView B, float* C, int64_t ldc,
           bool accumulate, void* scratch, const float* rowBias) {
  multiply(M, N, K, &A.view, &B, K, nullptr, C, ldc, accumulate, scratch, rowBias, &A);
}

void sgemm(int64_t M, int64_t N, int64_t K, const PackedA& A, const PackedBSource& B, float* C,
           int64_t ldc, bool accumulate, void* scratch, const float* rowBias) {
  multiply(M, N, K, &A.view, nullptr, K, &B, C, ldc, accumulate, scratch, rowBias, &A);
}

uint64_t packedABytes(int64_t M, int64_t K) {
  if (M <= 0 || K <= 0) return 0;
  uint64_t bytes = 0;
  for (const GemmKernel* k : kAllKernels) {
    bytes = std::max(
        bytes, static_cast<uint64_t>(roundUp(M, k->mr)) * static_cast<uint64_t>(K) * sizeof(float));
  }
  return (bytes + 63) / 64 * 64;
}

bool gemmRepacksA(int64_t N) {
  for (const GemmKernel* k : kAllKernels) {
    if (N > k->nc) return true;
  }
  return false;
}

PackedA packA(int64_t M, int64_t K, MatrixView A, float* buffer) {
  PackedA packed;
  packed.view = A;
  packed.M = M;
  packed.K = K;
  if (M <= 0 || K <= 0) return packed;
  const GemmKernel k = activeKernel();
  const int64_t step = kBlockStep(K, k.kc);
  const int64_t rows = roundUp(M, k.mr);
  const gemm_detail::PackBlockFn pack = A.roundHf32 ? k.packHf32 : k.pack;
  const int64_t kBlocks = (K + step - 1) / step;
  const int64_t rowBlocks = (M + k.mc - 1) / k.mc;
  // The blocks runPart would pack, each where it looks for them.
  parallelFor(kBlocks * rowBlocks, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t pc = unit / rowBlocks * step;
      const int64_t ic = unit % rowBlocks * k.mc;
      const int64_t kb = std::min(step, K - pc);
      gemm_detail::packA(A, ic, pc, std::min(k.mc, M - ic), kb, k.mr, pack,
                         buffer + pc * rows + ic * kb);
    }
  });
  packed.data = buffer;
  packed.kernel = k.name;
  packed.kc = k.kc;
  return packed;
}

uint64_t gemmScratchBytes() {
  return maxSliceBytes() * static_cast<uint64_t>(computeThreadCount());
}

bool gemmFillsBetterTransposed(int64_t M, int64_t N) {
  if (M <= 0 || N <= 0) return false;
  const GemmKernel k = activeKernel();
  auto fill = [](int64_t rows, int64_t cols, int64_t mr, int64_t nr) {
    return static_cast<double>(rows * cols) /
           static_cast<double>(roundUp(rows, mr) * roundUp(cols, nr));
  };
  return fill(N, M, k.mr, k.nr) > 1.25 * fill(M, N, k.mr, k.nr);
}

const char* gemmKernelName() { return activeKernel().name; }

bool overrideGemmBlockingForTesting(int64_t kc, int64_t mc, int64_t nc) {
  if (kc < 0 || mc < 0 || nc < 0) return false;
  for (const GemmKernel* k : kAllKernels) {
    if (sliceLayout(withBlocking(*k, kc, mc, nc)).bytes > maxSliceBytes()) return false;
  }
  gKcOverride.store(kc);
  gMcOverride.store(mc);
  gNcOverride.store(nc);
  return true;
}

bool gemmIsaSupported(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::Auto:
    case GemmIsa::Scalar:
      return true;
    case GemmIsa::Avx2:
      return cpuHasAvx2();
    case GemmIsa::Avx512:
      return cpuHasAvx512();
  }
  return false;
}

bool forceGemmIsaForTesting(GemmIsa isa) {
  if (!gemmIsaSupported(isa)) return false;
  const GemmKernel* kernel = nullptr;
  switch (isa) {
    case GemmIsa::Auto:
      kernel = nullptr;
      break;
    case GemmIsa::Scalar:
      kernel = &kScalarKernel;
      break;
    case GemmIsa::Avx2:
      kernel = &kAvx2Kernel;
      break;
    case GemmIsa::Avx512:
      kernel = &kAvx512Kernel;
      break;
  }
  gForcedKernel.store(kernel, std::memory_order_release);
  return true;
}

}  // namespace kernels
}  // namespace aclcpu
