// Driver of the few-channel tile forward (few_channels_bf16.h): pack the
// weights per 16 output channels and kernel row as word pairs, stage each
// image's padded rows interleaved, then one work item per (image, output
// row) runs the tile kernel over every output channel of the row. Each
// output is one fixed sequence of tile multiplies, whatever the thread
// count.

#include "kernels/conv/few_channels/few_channels_bf16.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "common/checked_math.h"
#include "common/thread_pool.h"
#include "kernels/conv/blocked/bf16_pairs_inl.h"
#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/conv/scratch_region.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kTileRowWords = 32;
constexpr int64_t kMaxChunks = 4;

int64_t wholeTiles(int64_t n) { return (n + kTile - 1) / kTile * kTile; }

// Staged per image: `rows` rows of `columns` columns (whole 16-column steps
// covering every word the last position tile reads) of `columnWords` words
// (cpad channels, as words or hi/lo pairs); then the packed weights,
// [channel tile][kernel row][chunk][variant][pair][16 channels].
struct TilePlan {
  bool hiLo = false;
  int64_t cpad = 0, columnWords = 0, runWords = 0, chunks = 0, pairs = 0;
  int64_t rows = 0, columns = 0, rowWords = 0;
  int64_t channelTiles = 0;
  uint64_t weightOffset = 0, bytes = 0;
};

// Channels rounded up to whole permutes, and (bf16 words) so that a kernel
// row's run has whole pairs: 1 (even kw, or hi/lo) or 2, 2, 4.
int64_t paddedChannels(const ConvShape& s, bool hiLo) {
  if (s.inChannels == 1) return hiLo || s.kernel[2] % 2 == 0 ? 1 : 2;
  return s.inChannels == 2 ? 2 : 4;
}

bool tilePlanOf(const ConvShape& s, TilePlan* p) {
  if (s.operands == OperandValues::F32 || s.dilation[2] != 1 || !acceptsForward(s)) return false;
  // Below 16 taps the fp32 pass's FMAs cost less than the tiles' transposing
  // stores: wav2vec's stem (10 taps, bf16, 1 thread) 4.2 ms against 4.5; 16
  // to 20 taps of the same rows 2.8-4.7 against 3.3-5.9.
  if (s.inChannels * s.kernel[1] * s.kernel[2] < 16) return false;
  p->hiLo = s.operands != OperandValues::BF16;
  p->cpad = paddedChannels(s, p->hiLo);
  p->columnWords = p->cpad * (p->hiLo ? 2 : 1);
  p->runWords = s.kernel[2] * p->columnWords;
  p->chunks = (p->runWords + kTileRowWords - 1) / kTileRowWords;
  if (p->chunks > kMaxChunks) return false;
  p->pairs = p->chunks > 1 ? kTileRowWords / 2 : p->runWords / 2;
  p->rows = (s.out[1] - 1) * s.stride[1] + (s.kernel[1] - 1) * s.dilation[1] + 1;
  const int64_t reach = (wholeTiles(s.out[2]) - 1) * s.stride[2] * p->columnWords +
                        (p->chunks - 1) * kTileRowWords + 2 * p->pairs;
  p->columns = wholeTiles((reach + p->columnWords - 1) / p->columnWords);
  p->rowWords = p->columns * p->columnWords;
  p->channelTiles = (s.outChannels + kTile - 1) / kTile;
  int64_t words = 0;
  if (!checkedMul(p->rows, p->rowWords, &words) || !checkedMul(words, s.batch, &words) ||
      words > (int64_t{1} << 40))
    return false;
  p->weightOffset = scratchAligned(static_cast<uint64_t>(words) * 2);
  const int64_t weightWords =
      p->channelTiles * s.kernel[1] * p->chunks * (p->hiLo ? 2 : 1) * p->pairs * kTile;
  p->bytes = p->weightOffset + scratchAligned(static_cast<uint64_t>(weightWords) * 4);
  return true;
}

// False when a weight is bf16Unsafe. Word k of a kernel row's run: bf16
// (column k / cpad, channel k % cpad); hi/lo: part k % 2 of (column, channel)
// of value k / 2, the weight word the same part (variant 0) or the other.
bool packWeights(const ConvShape& s, const TilePlan& p, const float* w, uint32_t* packed) {
  const int64_t C = s.inChannels, O = s.outChannels, kh = s.kernel[1], kw = s.kernel[2];
  const int variants = p.hiLo ? 2 : 1;
  bool safe = true;
  uint32_t* dst = packed;
  for (int64_t tile = 0; tile < p.channelTiles; ++tile)
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t h = 0; h < p.chunks; ++h)
        for (int v = 0; v < variants; ++v)
          for (int64_t pair = 0; pair < p.pairs; ++pair)
            for (int64_t lane = 0; lane < kTile; ++lane) {
              const int64_t o = tile * kTile + lane;
              uint32_t word[2] = {0, 0};
              for (int e = 0; e < 2; ++e) {
                const int64_t k = h * kTileRowWords + 2 * pair + e;
                const int64_t value = p.hiLo ? k / 2 : k;
                const int64_t j = value / p.cpad, c = value % p.cpad;
                if (o >= O || c >= C || k >= p.runWords) continue;
                const float f = w[((o * C + c) * kh + i) * kw + j];
                safe = safe && !blocked::bf16Unsafe(f);
                if (!p.hiLo) {
                  word[e] = blocked::bf16Of(f);
                  continue;
                }
                const uint32_t hiLo = blocked::hiLoWord(f);  // hi low, lo high
                word[e] = (e == v ? hiLo : hiLo >> 16) & 0xFFFFu;
              }
              *dst++ = word[0] | word[1] << 16;
            }
  return safe;
}

// Staged rows [begin, end) of the batch (image-major); false when a value
// is bf16Unsafe.
template <typename Source>
bool stageRows(const ConvShape& s, const TilePlan& p, const Source* x, uint16_t* staged,
               int64_t begin, int64_t end) {
  const int64_t C = s.inChannels, inH = s.in[1], inW = s.in[2];
  for (int64_t item = begin; item < end; ++item) {
    uint16_t* dst = staged + item * p.rowWords;
    const int64_t n = item / p.rows, ih = item % p.rows - s.padBefore[1];
    if (ih < 0 || ih >= inH) {
      std::memset(dst, 0, static_cast<size_t>(p.rowWords) * 2);
      continue;
    }
    const Source* rows[4] = {};
    for (int64_t c = 0; c < C; ++c) rows[c] = x + ((n * C + c) * inH + ih) * inW;
    const bool safe =
        p.hiLo ? interleaveHiLoRow_avx512(rows, static_cast<int>(C), static_cast<int>(p.cpad), inW,
                                          s.padBefore[2], p.columns, dst)
               : interleaveBf16Row_avx512(rows, static_cast<int>(C), static_cast<int>(p.cpad), inW,
                                          s.padBefore[2], p.columns, dst);
    if (!safe) return false;
  }
  return true;
}

// The pass into fp32 y or (yWords not null) bf16 words; false (y
// incomplete) when an operand is bf16Unsafe.
template <typename Source>
bool runTiles(const ConvShape& s, const Source* x, const float* w, float* y, uint16_t* yWords,
              void* scratch, const float* bias) {
  TilePlan p;
  tilePlanOf(s, &p);
  uint16_t* staged = scratchRegion<uint16_t>(scratch, 0);
  uint32_t* packed = scratchRegion<uint32_t>(scratch, p.weightOffset);
  if (!packWeights(s, p, w, packed)) return false;
  const int64_t outPlane = s.out[1] * s.out[2];
  // Streaming stores from 4 MiB of output up (few_channels_conv.cpp says why).
  const bool stream = yWords && s.batch * s.outChannels * outPlane * 2 >= (int64_t{4} << 20);
  const bool subnormalBias = blocked::holdsSubnormal(bias, s.outChannels);
  auto rows = [&](int64_t begin, int64_t end) {
    configureTileRows_amx(static_cast<int>(p.pairs));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t n = item / s.out[1], oh = item % s.out[1];
      TileRowJob job;
      job.x = staged + (n * p.rows + oh * s.stride[1]) * p.rowWords;
      job.positionStep = s.stride[2] * p.columnWords;
      job.kernelRowStep = s.dilation[1] * p.rowWords;
      job.kernelRows = static_cast<int>(s.kernel[1]);
      job.chunks = static_cast<int>(p.chunks);
      job.variants = p.hiLo ? 2 : 1;
      job.pairs = static_cast<int>(p.pairs);
      job.weights = packed;
      job.outChannels = s.outChannels;
      job.count = s.out[2];
      const int64_t rowAt = n * s.outChannels * outPlane + oh * s.out[2];
      job.out = yWords ? nullptr : y + rowAt;
      job.outWords = yWords ? yWords + rowAt : nullptr;
      job.outHalf = s.io == ElementType::F16;
      job.outChannelStride = outPlane;
      job.bias = bias;
      job.exactRounding = subnormalBias;
      job.stream = stream;
      bf16_conv_fwd_rows_m32n32_amx(job);
    }
  };
  std::atomic<bool> unsafe{false};
  const int64_t threads = computeThreadCount();
  if (s.batch >= threads && s.batch % threads == 0) {
    // Whole images per thread, each computed while its staged rows are in
    // the thread's L2.
    parallelFor(s.batch, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end && !unsafe.load(std::memory_order_relaxed); ++n) {
        if (!stageRows(s, p, x, staged, n * p.rows, (n + 1) * p.rows)) {
          unsafe.store(true, std::memory_order_relaxed);
          return;
        }
        rows(n * s.out[1], (n + 1) * s.out[1]);
      }
    });
    return !unsafe.load();
  }
  parallelFor(s.batch * p.rows, [&](int64_t begin, int64_t end) {
    if (!stageRows(s, p, x, staged, begin, end)) unsafe.store(true, std::memory_order_relaxed);
  });
  if (unsafe.load()) return false;
  parallelFor(s.batch * s.out[1], rows);
  return true;
}

}  // namespace

bool acceptsTileForward(const ConvShape& shape) {
  TilePlan p;
  return tilePlanOf(shape, &p);
}

// The exact few-channel pass runs in the same scratch when an operand is
// bf16Unsafe.
uint64_t tileForwardScratchBytes(const ConvShape& shape) {
  TilePlan p;
  if (!tilePlanOf(shape, &p)) return 0;
  const uint64_t exact = forwardScratchBytes(shape);
  return p.bytes > exact ? p.bytes : exact;
}

void tileForward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
                 const float* bias) {
  if (runTiles(shape, x, w, y, nullptr, scratch, bias)) return;
  forward(shape, x, w, y, scratch, bias);
}

bool tileForwardWords(const ConvShape& shape, const uint16_t* x, const float* w, const float* bias,
                      uint16_t* y, void* scratch) {
  return runTiles(shape, x, w, nullptr, y, scratch, bias);
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
