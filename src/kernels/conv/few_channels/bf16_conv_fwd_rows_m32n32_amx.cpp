// The few-channel tile micro-kernel (few_channels_bf16.h): 2 x 2 accumulator
// tiles of 16 positions x 16 output channels, one TDPBF16PS per kernel row,
// chunk and weight variant, whose activation rows are the positions' windows
// in the interleaved rows (tile row stride: stride * cpad words, or twice
// that for hi/lo pairs), then each tile transposed into the output
// channels' rows. Only called after a cpuid check and the OS's
// tile-state permission. Free of library templates (see
// f32_conv_rows_nb16_avx512.cpp).

#include "kernels/simd/avx512_intrinsic_warnings.h"

#include <immintrin.h>

#include <cstdint>

#include "kernels/conv/few_channels/few_channels_bf16.h"
#include "kernels/simd/amx_tile_config.h"
#include "kernels/simd/half_words_avx512.h"
#include "kernels/simd/lane_masks_avx512.h"
#include "kernels/simd/stream_copy_avx512.h"
#include "kernels/simd/transpose_avx512.h"

namespace aclcpu {
namespace kernels {
namespace few_channels {
namespace {

using TileConfig = simd::AmxTileConfig;

// Accumulators 0..3 (16 x 16 fp32), activations 4 and 5 (16 positions x
// `pairs` word pairs), weights 6 and 7 (`pairs` rows of 16 channel pairs).
constexpr TileConfig configFor(int pairs) {
  TileConfig c{};
  c.palette = 1;
  for (int t = 0; t < 8; ++t) {
    const bool activation = t == 4 || t == 5, weights = t >= 6;
    c.bytesPerRow[t] = static_cast<uint16_t>(activation ? pairs * 4 : 64);
    c.rows[t] = static_cast<uint8_t>(weights ? pairs : 16);
  }
  return c;
}
struct TileConfigs {
  TileConfig byPairs[17];
};
constexpr TileConfigs makeConfigs() {
  TileConfigs all{};
  for (int pairs = 1; pairs <= 16; ++pairs) all.byPairs[pairs] = configFor(pairs);
  return all;
}
// Constant data (amx_tile_config.h says why).
constexpr TileConfigs kConfigs = makeConfigs();

// A tile image of 16 positions x 16 channels, + bias (per lane), transposed:
// r[c] holds channel c's positions.
void channelRows(const TileRowJob& j, const float* image, int64_t o0, int64_t channels,
                 __m512 r[16]) {
  for (int k = 0; k < 16; ++k) r[k] = _mm512_load_ps(image + 16 * k);
  if (j.bias) {
    // Not added without a bias: -0 + 0 would turn a negative zero positive.
    const __m512 b = _mm512_maskz_loadu_ps(simd::firstLanes(channels), j.bias + o0);
    for (int k = 0; k < 16; ++k) r[k] = _mm512_add_ps(r[k], b);
  }
  simd::transpose16x16(r);
}

// Positions per segment of a row: every channel pair runs a segment before
// the next one starts, so that a long row's stores stay in a few pages at a
// time; and in long rows of words, the segment's words of a channel pair
// are formed in a buffer and streamed out whole lines at a time. wav2vec's
// stem (rows of 6399 x 512 channels, bf16, 1 thread): one tile pair of all
// 512 channels at a time, 7.1 ms; by segments 6.7; buffered 4.5. RN50's
// stem (rows of 112) keeps direct stores: buffered 4.2 ms against 3.4.
constexpr int64_t kSegment = 256;

// The tile images of positions [p0, p0 + 16) (first) and, when second is
// not null, [p0 + 16, p0 + 32), channels [o0, o0 + 16): into the output rows,
// or (buffer not null) as bf16 words into buffer rows of kSegment words,
// channel o0 at the first. bf16 words of two tiles: one VCVTNE2PS2BF16 and
// one store per channel, where the exact rounding takes a dozen
// instructions per tile row; the instruction flushes subnormals, which only
// a subnormal bias makes (the caller's exactRounding then). Direct stores
// stream where a channel's 32 words are one aligned line (RN50 stem, medians
// of 7, 1 / 2 threads: 3.45 -> 3.36 / 1.76 -> 1.70 ms).
void storeTiles(const TileRowJob& j, const float* first, const float* second, int64_t p0,
                int64_t o0, uint16_t* buffer) {
  const int64_t positions = j.count - p0 < 32 ? j.count - p0 : 32;
  const int64_t channels = j.outChannels - o0 < 16 ? j.outChannels - o0 : 16;
  __m512 a[16], b[16];
  channelRows(j, first, o0, channels, a);
  if (second) channelRows(j, second, o0, channels, b);
  const __mmask16 lowMask = simd::firstLanes(positions);
  const __mmask16 highMask = simd::firstLanes(positions - 16);
  const __mmask32 mask = static_cast<__mmask32>(lowMask) | static_cast<__mmask32>(highMask) << 16;
  for (int c = 0; c < channels; ++c) {
    const int64_t row = (o0 + c) * j.outChannelStride + p0;
    if (!j.outWords) {
      _mm512_mask_storeu_ps(j.out + row, lowMask, a[c]);
      if (second) _mm512_mask_storeu_ps(j.out + row + 16, highMask, b[c]);
      continue;
    }
    uint16_t* at = buffer ? buffer + c * kSegment : j.outWords + row;
    if (j.outHalf) {
      simd::storeF16(at, lowMask, a[c]);
      if (second) simd::storeF16(at + 16, highMask, b[c]);
    } else if (second && !j.exactRounding) {
      const __m512i words = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b[c], a[c]));
      if (!buffer && j.stream && positions == 32 && (reinterpret_cast<uintptr_t>(at) & 63) == 0)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(at), words);
      else
        _mm512_mask_storeu_epi16(at, mask, words);
    } else {
      simd::storeBf16(at, lowMask, a[c]);
      if (second) simd::storeBf16(at + 16, highMask, b[c]);
    }
  }
}

}  // namespace

void configureTileRows_amx(int pairs) { _tile_loadconfig(&kConfigs.byPairs[pairs]); }

void bf16_conv_fwd_rows_m32n32_amx(const TileRowJob& j) {
  const int64_t positionTiles = (j.count + 15) / 16, channelTiles = (j.outChannels + 15) / 16;
  const int64_t rowBytes = j.positionStep * 2;
  const int64_t weightRow = static_cast<int64_t>(j.pairs) * 16;  // pair words per weight tile
  const int64_t weightTile = j.kernelRows * j.chunks * j.variants * weightRow;
  alignas(64) float image[4][256];
  constexpr int64_t kSegmentTiles = kSegment / 16;
  alignas(64) uint16_t buffer[32 * kSegment];
  const bool buffered = j.outWords && j.stream && j.count >= kSegment;
  for (int64_t segment = 0; segment < positionTiles; segment += kSegmentTiles) {
    const int64_t end =
        positionTiles - segment < kSegmentTiles ? positionTiles : segment + kSegmentTiles;
    for (int64_t n = 0; n < channelTiles; n += 2) {
      const bool twoN = n + 1 < channelTiles;
      const uint32_t* b0 = j.weights + n * weightTile;
      for (int64_t t = segment; t < end; t += 2) {
        const bool twoM = t + 1 < end;
        const uint16_t* a0 = j.x + t * 16 * j.positionStep;
        const uint16_t* a1 = a0 + 16 * j.positionStep;
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
        const uint32_t* b = b0;  // the weight tiles in order
        for (int i = 0; i < j.kernelRows; ++i) {
          for (int h = 0; h < j.chunks; ++h) {
            const int64_t at = i * j.kernelRowStep + 32 * h;
            _tile_loadd(4, a0 + at, rowBytes);
            if (twoM) _tile_loadd(5, a1 + at, rowBytes);
            for (int v = 0; v < j.variants; ++v, b += weightRow) {
              _tile_loadd(6, b, 64);
              _tile_dpbf16ps(0, 4, 6);
              if (twoN) {
                _tile_loadd(7, b + weightTile, 64);
                _tile_dpbf16ps(1, 4, 7);
              }
              if (twoM) {
                _tile_dpbf16ps(2, 5, 6);
                if (twoN) _tile_dpbf16ps(3, 5, 7);
              }
            }
          }
        }
        _tile_stored(0, image[0], 64);
        _tile_stored(1, image[1], 64);
        _tile_stored(2, image[2], 64);
        _tile_stored(3, image[3], 64);
        const int64_t p0 = t * 16, o0 = n * 16;
        uint16_t* local = buffered ? buffer + (t - segment) * 16 : nullptr;
        storeTiles(j, image[0], twoM ? image[2] : nullptr, p0, o0, local);
        if (twoN)
          storeTiles(j, image[1], twoM ? image[3] : nullptr, p0, o0 + 16,
                     local ? local + 16 * kSegment : nullptr);
      }
      if (!buffered) continue;
      const int64_t p0 = segment * 16;
      const int64_t positions = j.count - p0 < kSegment ? j.count - p0 : kSegment;
      const int64_t channels = j.outChannels - n * 16 < 32 ? j.outChannels - n * 16 : 32;
      for (int64_t c = 0; c < channels; ++c)
        simd::streamCopy(buffer + c * kSegment, j.outWords + (n * 16 + c) * j.outChannelStride + p0,
                         positions * 2);
    }
  }
  if (j.stream) _mm_sfence();
}

}  // namespace few_channels
}  // namespace kernels
}  // namespace aclcpu
