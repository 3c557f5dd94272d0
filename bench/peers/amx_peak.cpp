// Probe for the benchmark report: one core's AMX TDPBF16PS throughput. Each
// instruction multiplies a 16 x 32 bf16 tile by a 32 x 16 one into a 16 x 16
// fp32 tile: 16 * 16 * 32 multiply-adds. Four accumulator tiles are in
// flight (two A and two B tiles), so the loop is bound by throughput, not by
// the instruction's latency. Compiled with -mamx-tile -mamx-bf16 for this
// file only; call only when cpuid reports AMX-BF16 and the kernel granted
// the tile data permission (cpu_features.h).

#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstring>

namespace peers {
namespace {

// The LDTILECFG memory operand, palette 1.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t bytesPerRow[16] = {};
  uint8_t rows[16] = {};
};

}  // namespace

double probeAmxBf16Gflops(double seconds) {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.bytesPerRow[t] = 64;
    config.rows[t] = 16;
  }
  _tile_loadconfig(&config);
  // bf16 1.0 (0x3f80) in A and 2^-20 (0x3580) in B: normal products, sums far from overflow.
  alignas(64) uint16_t a[16 * 32], b[16 * 32];
  alignas(64) float c[16 * 16];
  for (auto& v : a) v = 0x3f80;
  for (auto& v : b) v = 0x3580;
  std::memset(c, 0, sizeof(c));
  _tile_loadd(0, c, 64);
  _tile_loadd(1, c, 64);
  _tile_loadd(2, c, 64);
  _tile_loadd(3, c, 64);
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a, 64);
  _tile_loadd(6, b, 64);
  _tile_loadd(7, b, 64);
  int64_t iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  do {
    for (int r = 0; r < 10000; ++r) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
    iterations += 10000;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  _tile_stored(0, c, 64);
  _tile_release();
  volatile float keep = c[0];
  (void)keep;
  return static_cast<double>(iterations) * 4 * 16 * 16 * 32 * 2 / elapsed * 1e-9;
}

}  // namespace peers
