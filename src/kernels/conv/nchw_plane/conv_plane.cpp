#include "kernels/conv/nchw_plane/conv_plane.h"

#include <atomic>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/scratch_region.h"

namespace aclcpu {
namespace kernels {
namespace nchw_plane {
namespace {

constexpr int64_t kMaxExtent = kMaxPlaneExtent;

int64_t srcChannelsOf(const ConvShape& s) { return s.inChannels / s.groups; }
int64_t dstChannelsOf(const ConvShape& s) { return s.outChannels / s.groups; }
int64_t tapsOf(const ConvShape& s) { return s.kernel[1] * s.kernel[2]; }

}  // namespace

bool planeGeometry(const ConvShape& s) {
  if (s.groups < 1 || s.inChannels % s.groups != 0 || s.outChannels % s.groups != 0) return false;
  if (s.in[0] != 1 || s.out[0] != 1 || s.kernel[0] != 1 || s.padBefore[0] != 0) return false;
  if (s.stride[1] != 1 || s.stride[2] != 1) return false;
  for (int d = 1; d < 3; ++d) {
    if (s.in[d] <= 0 || s.out[d] <= 0 || s.kernel[d] <= 0 || s.kernel[d] > kMaxTaps) return false;
    if (s.in[d] >= kMaxExtent || s.out[d] >= kMaxExtent) return false;
    if (s.dilation[d] <= 0 || (s.kernel[d] - 1) * s.dilation[d] >= kMaxExtent) return false;
    if (s.padBefore[d] < 0 || s.padBefore[d] >= kMaxExtent) return false;
  }
  return tapsOf(s) <= kMaxTaps && s.in[1] * s.in[2] < kMaxExtent &&
         s.out[1] * s.out[2] < kMaxExtent;
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

// Calls run(job, group) for every work item of a correlation: (image,
// group, block of dst vectors), each writing its own outputs; stops early
// (and returns false) once a call returns false.
template <typename Src, typename Dst, typename Run>
bool forEachCorrelationItem(const ConvShape& s, bool dataGradient, Elements kind, const Src* src,
                            const float* bias, Dst* dst, const PlaneMap& m,
                            const PlaneVectors& table, Run&& run) {
  const int64_t G = s.groups;
  const int64_t srcChannels = dataGradient ? dstChannelsOf(s) : srcChannelsOf(s);
  const int64_t dstChannels = dataGradient ? srcChannelsOf(s) : dstChannelsOf(s);
  const int64_t srcPlane = m.srcH * m.srcW, dstPlane = m.dstH * m.dstW;
  const int64_t vectors = m.vectors();
  const int64_t blocks = (vectors + kBlockVectors - 1) / kBlockVectors;
  std::atomic<bool> ok{true};
  parallelFor(s.batch * G * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end && ok.load(std::memory_order_relaxed); ++item) {
      const int64_t block = item % blocks, ng = item / blocks;
      const int64_t n = ng / G, g = ng % G;
      GroupCorrelation j;
      j.map = m;
      j.vectors = &table;
      j.kind = kind;
      j.src = src + (n * G + g) * srcChannels * srcPlane;
      j.srcChannels = srcChannels;
      j.dst = dst + (n * G + g) * dstChannels * dstPlane;
      j.dstChannels = dstChannels;
      j.bias = bias ? bias + g * dstChannels : nullptr;
      j.v0 = block * kBlockVectors;
      j.v1 = j.v0 + kBlockVectors < vectors ? j.v0 + kBlockVectors : vectors;
      if (!run(j, g)) ok.store(false, std::memory_order_relaxed);
    }
  });
  return ok.load();
}

template <typename Src, typename Dst>
void runCorrelation(const ConvShape& s, bool dataGradient, Elements kind, const Src* src,
                    const float* w, const float* bias, Dst* dst, void* scratch) {
  auto* packed = static_cast<float*>(scratch);
  packWeights(s, w, dataGradient, packed);
  const PlaneMap m = dataGradient ? dataGradientMap(s) : forwardMap(s);
  const PlaneVectors table =
      describedPlane(m, static_cast<char*>(scratch) + scratchAligned(packedWeightBytes(s)));
  const int64_t groupWeights = tapsOf(s) * srcChannelsOf(s) * dstChannelsOf(s);
  forEachCorrelationItem(s, dataGradient, kind, src, bias, dst, m, table,
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
  return forEachCorrelationItem(
      s, dataGradient, kind, src, bias, dst, m, table, [&](GroupCorrelation& j, int64_t g) {
        return bf16_conv_plane_correlate_o8w48_avx512bf16(j, pairs + g * groupPairs);
      });
}

// Work items: (group, run of up to 8 dw channels), each summing its images
// in order into its own partial sums, whatever thread takes it, so the sums
// never depend on the thread count.
template <typename E>
void runBackwardWeight(const ConvShape& s, Elements kind, const E* x, const E* dy, float* dw,
                       void* scratch) {
  constexpr int64_t kRun = 8;
  const int64_t G = s.groups, S = srcChannelsOf(s), D = dstChannelsOf(s), taps = tapsOf(s);
  const PlaneMap m = forwardMap(s);
  const int64_t srcPlane = m.srcH * m.srcW, dstPlane = m.dstH * m.dstW;
  const int64_t runs = (D + kRun - 1) / kRun;
  auto* partial = static_cast<float*>(scratch);
  const PlaneVectors table =
      describedPlane(m, static_cast<char*>(scratch) + scratchAligned(partialSumBytes(s)));
  parallelFor(G * runs, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
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
    }
  });
}

}  // namespace

bool acceptsGroupedForward(const ConvShape& s) { return groupedShape(s); }
bool acceptsGroupedBackwardData(const ConvShape& s) { return groupedShape(s); }
bool acceptsGroupedBackwardWeight(const ConvShape& s) { return groupedShape(s); }

// A 1x1 layer is a GEMM; the correlation measured faster only where it
// reduces at least two src channels per dst channel (256 -> 64: 10-14%;
// 64 -> 256: no gain, its data gradient 4-8% slower).
//
// HF32 operands stay with the algorithms that round as they read (the
// blocked staging, the GEMM's packers): the plane kernels would need rounded
// copies of x or dy first (RN50 1x1 256->64 HF32 forward, 2 threads: 6.8 ms
// with copies against 5.6 for cubeMathType 0).
bool denseCorrelation(const ConvShape& s, int64_t srcChannels, int64_t dstChannels,
                      const PlaneMap& m) {
  if (s.groups != 1 || s.operands == OperandValues::HF32 || !planeGeometry(s)) return false;
  if (srcChannels * tapsOf(s) > kMaxDenseReduction) return false;
  if (tapsOf(s) == 1 && srcChannels < 2 * dstChannels) return false;
  return laneUsePercent(m) >= 90;
}

bool acceptsDenseForward(const ConvShape& s) {
  return denseCorrelation(s, s.inChannels, s.outChannels, forwardMap(s));
}
bool acceptsDenseBackwardData(const ConvShape& s) {
  return denseCorrelation(s, s.outChannels, s.inChannels, dataGradientMap(s));
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
  // The larger of the two maps' tables: the scratch of either pass.
  const uint64_t fwd = planeVectorsBytes(forwardMap(s));
  const uint64_t data = planeVectorsBytes(dataGradientMap(s));
  return scratchAligned(packedWeightBytes(s)) + (fwd > data ? fwd : data);
}
uint64_t backwardWeightScratchBytes(const ConvShape& s) {
  return scratchAligned(partialSumBytes(s)) + planeVectorsBytes(forwardMap(s));
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
