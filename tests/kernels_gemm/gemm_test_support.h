#pragma once
// Shared helpers for the sgemm tests: strided operand storage, a float64
// oracle, aligned scratch with an overrun guard, an ISA-forcing guard and
// the loop over every ISA this CPU runs.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_testing.h"

namespace gemm_test {

using aclcpu::kernels::GemmIsa;
using aclcpu::kernels::MatrixView;

// How a rows x cols operand is laid out in memory.
enum class Layout {
  RowMajor,   // padded leading dimension, unit column stride
  ColMajor,   // transposed: unit row stride
  Strided,    // neither stride is 1
  Reversed,   // negative strides: rows and columns run backwards
  Broadcast,  // row stride 0: every row is the same
};

inline const char* layoutName(Layout layout) {
  switch (layout) {
    case Layout::RowMajor:
      return "row";
    case Layout::ColMajor:
      return "col";
    case Layout::Strided:
      return "strided";
    case Layout::Reversed:
      return "reversed";
    case Layout::Broadcast:
      return "broadcast";
  }
  return "?";
}

// Owns the storage of one operand and exposes it as a MatrixView.
class Operand {
 public:
  Operand(int64_t rows, int64_t cols, Layout layout) : rows_(rows), cols_(cols) {
    int64_t span = 0;
    switch (layout) {
      case Layout::RowMajor:
        rowStride_ = cols + 3;
        colStride_ = 1;
        span = rows * rowStride_;
        break;
      case Layout::ColMajor:
        rowStride_ = 1;
        colStride_ = rows + 5;
        span = cols * colStride_;
        break;
      case Layout::Strided:
        colStride_ = 2;
        rowStride_ = 2 * cols + 7;
        span = rows * rowStride_;
        break;
      case Layout::Reversed:
        colStride_ = -1;
        rowStride_ = -(cols + 1);
        span = rows * (cols + 1);
        break;
      case Layout::Broadcast:
        rowStride_ = 0;
        colStride_ = 1;
        span = cols;
        break;
    }
    storage_.assign(static_cast<size_t>(span + 1), 0.0f);
    // Negative strides start from the far end of the storage.
    origin_ = layout == Layout::Reversed ? span - 1 : 0;
  }

  float& at(int64_t r, int64_t c) { return storage_[origin_ + r * rowStride_ + c * colStride_]; }
  float at(int64_t r, int64_t c) const {
    return storage_[origin_ + r * rowStride_ + c * colStride_];
  }
  MatrixView view() const { return MatrixView{storage_.data() + origin_, rowStride_, colStride_}; }
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }

  template <typename Gen>
  void fill(Gen&& gen) {
    for (int64_t r = 0; r < rows_; ++r) {
      for (int64_t c = 0; c < cols_; ++c) at(r, c) = gen();
    }
  }

 private:
  int64_t rows_, cols_;
  int64_t rowStride_ = 0, colStride_ = 0;
  int64_t origin_ = 0;
  std::vector<float> storage_;
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// 64-byte aligned scratch of exactly gemmScratchBytes() (or `bytes`)
// followed by a guard band, so writes past the promised size are caught.
class Scratch {
 public:
  static constexpr size_t kGuardBytes = 4096;
  static constexpr unsigned char kGuardByte = 0xA5;

  Scratch() : Scratch(aclcpu::kernels::gemmScratchBytes()) {}
  explicit Scratch(size_t bytes) : bytes_(bytes) {
    const size_t total = (bytes_ + kGuardBytes + 63) / 64 * 64;
    memory_.reset(std::aligned_alloc(64, total));
    std::memset(static_cast<unsigned char*>(memory_.get()) + bytes_, kGuardByte, kGuardBytes);
  }
  void* get() const { return memory_.get(); }
  float* floats() const { return static_cast<float*>(memory_.get()); }
  bool guardIntact() const {
    const unsigned char* guard = static_cast<const unsigned char*>(memory_.get()) + bytes_;
    for (size_t i = 0; i < kGuardBytes; ++i) {
      if (guard[i] != kGuardByte) return false;
    }
    return true;
  }

 private:
  size_t bytes_;
  std::unique_ptr<void, FreeDeleter> memory_;
};

// C as the tests hold it: M x N inside rows of ldc = N + 4 floats; the padding
// holds a sentinel that sgemm must never touch.
struct OutputMatrix {
  static constexpr float kSentinel = -12345.5f;
  OutputMatrix(int64_t m, int64_t n)
      : M(m), N(n), ldc(n + 4), data(static_cast<size_t>(m * (n + 4) + 1), kSentinel) {}
  float& at(int64_t i, int64_t j) { return data[i * ldc + j]; }
  float at(int64_t i, int64_t j) const { return data[i * ldc + j]; }
  bool paddingIntact() const {
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = N; j < ldc; ++j) {
        if (data[i * ldc + j] != kSentinel) return false;
      }
    }
    return data.back() == kSentinel;
  }
  int64_t M, N, ldc;
  std::vector<float> data;
};

// Restores the default pool size when a test changes it.
class ThreadCountGuard {
 public:
  ~ThreadCountGuard() { aclcpu::setComputeThreadCount(0); }
};

// Restores every kernel's default cache blocks (overrideGemmBlockingForTesting).
class BlockingGuard {
 public:
  ~BlockingGuard() { aclcpu::kernels::overrideGemmBlockingForTesting(0, 0, 0); }
};

// Forces an ISA for the lifetime of the guard and restores Auto afterwards.
class ForcedIsa {
 public:
  explicit ForcedIsa(GemmIsa isa) : ok_(aclcpu::kernels::forceGemmIsaForTesting(isa)) {}
  ~ForcedIsa() { aclcpu::kernels::forceGemmIsaForTesting(GemmIsa::Auto); }
  bool ok() const { return ok_; }

 private:
  bool ok_;
};

inline const char* isaName(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::Auto:
      return "auto";
    case GemmIsa::Scalar:
      return "scalar";
    case GemmIsa::Avx2:
      return "avx2";
    case GemmIsa::Avx512:
      return "avx512";
  }
  return "?";
}

// The ISAs this CPU can run (Scalar always).
inline std::vector<GemmIsa> supportedIsas() {
  std::vector<GemmIsa> isas;
  for (GemmIsa isa : {GemmIsa::Scalar, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (aclcpu::kernels::gemmIsaSupported(isa)) isas.push_back(isa);
  }
  return isas;
}

struct GemmShape {
  int64_t M, N, K;
};

// body(shape) for every shape on every supported ISA, that ISA forced and
// the pair named in any failure's trace.
template <typename Body>
void forEachIsaAndShape(std::initializer_list<GemmShape> shapes, Body&& body) {
  for (GemmIsa isa : supportedIsas()) {
    ForcedIsa forced(isa);
    ASSERT_TRUE(forced.ok());
    for (const GemmShape& s : shapes) {
      SCOPED_TRACE(std::string(isaName(isa)) + " M=" + std::to_string(s.M) +
                   " N=" + std::to_string(s.N) + " K=" + std::to_string(s.K));
      body(s);
    }
  }
}

// run(out, scratch) on an M x N OutputMatrix with 1, 2 and 3 threads, the
// scratch sized after each change as documented: every run keeps the
// scratch guard and gives the 1-thread run's bits.
template <typename Run>
void expectSameBitsForThreadCounts(int64_t M, int64_t N, Run&& run) {
  ThreadCountGuard restore;
  std::vector<float> first;
  for (int threads : {1, 2, 3}) {
    aclcpu::setComputeThreadCount(threads);
    Scratch scratch;
    OutputMatrix out(M, N);
    run(out, scratch.get());
    ASSERT_TRUE(scratch.guardIntact());
    if (first.empty()) {
      first = out.data;
    } else {
      ASSERT_EQ(0, std::memcmp(first.data(), out.data.data(), first.size() * sizeof(float)))
          << threads << " threads differ from 1 thread";
    }
  }
}

}  // namespace gemm_test

namespace aclcpu {
namespace kernels {
// Readable parameter values in GoogleTest output.
inline void PrintTo(GemmIsa isa, std::ostream* out) { *out << gemm_test::isaName(isa); }
}  // namespace kernels
}  // namespace aclcpu
