// Probe for the benchmark report: single-core AVX-512 FMA throughput (many
// independent accumulator chains) and the core clock (a chain of dependent
// integer adds retires one per cycle). Only run after a cpuid check.

#include <immintrin.h>

#include <chrono>
#include <cstdint>

double probeFmaGflops(double seconds) {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.999999f);
  const __m512 y = _mm512_set1_ps(1e-7f);
  int64_t iterations = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  do {
    for (int r = 0; r < 100000; ++r) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    iterations += 100000;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  __m512 total = acc[0];
  for (int i = 1; i < 24; ++i) total = _mm512_add_ps(total, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, total);
  float sink = 0.0f;
  for (float lane : lanes) sink += lane;
  volatile float keep = sink;
  (void)keep;
  return iterations * 24.0 * 16.0 * 2.0 / elapsed * 1e-9;
}

double probeClockGhz(double seconds) {
  uint64_t value = 0;
  int64_t adds = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0.0;
  do {
    for (int r = 0; r < 1000000; ++r) {
      // Eight dependent adds the compiler cannot fold.
      asm volatile(
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
          : "+r"(value));
    }
    adds += 8000000;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < seconds);
  return adds / elapsed * 1e-9;
}
