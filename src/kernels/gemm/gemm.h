#pragma once
// Single-precision matrix multiply: the one hot loop of every convolution
// pass. Only the micro-kernels behind it are ISA-specific (chosen at run time
// by cpuid); packing makes both operands contiguous and aligned.

#include <cstdint>

namespace aclcpu {
namespace kernels {

// A read-only matrix with arbitrary element strides, so transposes are free:
// element (r, c) is data[r * rowStride + c * colStride].
struct MatrixView {
  const float* data = nullptr;
  int64_t rowStride = 0;
  int64_t colStride = 0;
  // The elements are raw values to be rounded to HF32 (ConvShape::
  // inputRounding): each packed block is rounded as it is packed, so the
  // product is that of the rounded matrix.
  bool roundHf32 = false;
};

// C[M x N] (row-major, leading dimension ldc) = (accumulate ? C : 0) + A[M x K] * B[K x N],
// then + rowBias[i] on row i when rowBias is not null: added by the
// micro-kernel to each value of a tile's last K block as it stores it; the
// same bits as adding it in a pass over C afterwards.
//
// Deterministic: every C element is the same sum in the same order whatever
// the thread count; the K loop's blocking never depends on threads. Runs on the
// shared pool over tiles of C (inline when called inside a parallel region).
// Needs no heap: scratch is the caller's, at least gemmScratchBytes() bytes,
// 64-byte aligned.
void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, MatrixView B, float* C, int64_t ldc,
           bool accumulate, void* scratch, const float* rowBias = nullptr);

// The product of A's `taps` views side by side and B's stacked:
//   C = (accumulate ? C : 0) + sum over t of A[t] (M x tapK) * B[t] (tapK x N), + rowBias,
// the K sum running over t, then each view's rows in order. Each view's rows
// are cut into K blocks of their own, so no block straddles two views: a
// convolution's taps as shifted views of one input, without the column
// matrix. The same bits as sgemm on the concatenated matrices when the
// concatenation's K blocks fall on the views' boundaries (tapK a multiple of
// kc, say), and always for one tap.
void sgemmTaps(int64_t M, int64_t N, int64_t tapK, int64_t taps, const MatrixView* A,
               const MatrixView* B, float* C, int64_t ldc, bool accumulate, void* scratch,
               const float* rowBias = nullptr);

// B given as the function that packs its blocks, for a B that never exists as
// a matrix (a convolution's column matrix, packed straight from the input).
// pack(context, k0, n0, kb, nb, slot, dst) writes, for p < kb and l < nb,
// B[k0 + p][n0 + l] to dst[(l / slot) * kb * slot + p * slot + l % slot], and
// zero for the l in [nb, ceil(nb / slot) * slot). It runs on the pool's threads,
// several at once on disjoint blocks.
struct PackedBSource {
  void (*pack)(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb, int slot,
               float* dst);
  const void* context;
  bool roundHf32 = false;  // as MatrixView::roundHf32
};

// The same product with B from a PackedBSource: the same blocking and
// micro-kernel, so the same bits as sgemm on the matrix that B describes.
void sgemm(int64_t M, int64_t N, int64_t K, MatrixView A, const PackedBSource& B, float* C,
           int64_t ldc, bool accumulate, void* scratch, const float* rowBias = nullptr);

// A packed once for several products that share it (a convolution's weights,
// the same for every image): packing it again for each product and column
// block was 3-10% of the pointwise passes' time. Made by packA below for the
// kernel active then; a product on another kernel or blocking (a test that
// forces one in between) packs from `view` as sgemm does: the same bits
// either way, since packing only copies (and rounds, view.roundHf32).
struct PackedA {
  MatrixView view;
  const float* data = nullptr;  // null: nothing packed, `view` is used
  int64_t M = 0;
  int64_t K = 0;
  const char* kernel = nullptr;  // gemmKernelName() when packed
  int64_t kc = 0;
};

// Bytes packA needs for an M x K matrix on any kernel: a multiple of 64.
uint64_t packedABytes(int64_t M, int64_t K);

// Packs A (M x K) into `buffer` (packedABytes(M, K) bytes, 64-byte aligned)
// on the pool's threads; the result refers to buffer and to A's data.
PackedA packA(int64_t M, int64_t K, MatrixView A, float* buffer);

// True when sgemm packs A more than once for N columns on some kernel (they
// span several column blocks): then packA once saves that work. Depends on N
// only, never on the active ISA, so a workspace sized with it fits any.
bool gemmRepacksA(int64_t N);

// sgemm with A packed by packA for this M and K.
void sgemm(int64_t M, int64_t N, int64_t K, const PackedA& A, MatrixView B, float* C, int64_t ldc,
           bool accumulate, void* scratch, const float* rowBias = nullptr);
void sgemm(int64_t M, int64_t N, int64_t K, const PackedA& A, const PackedBSource& B, float* C,
           int64_t ldc, bool accumulate, void* scratch, const float* rowBias = nullptr);

// Scratch bytes sgemm needs for any M, N, K: one slice of packing buffers
// per pool thread, so it is a constant for a given computeThreadCount(). Size
// (or re-size) scratch after any setComputeThreadCount(): sgemm may use as
// many slices as computeThreadCount() reports when it is called. A multiple
// of 64.
uint64_t gemmScratchBytes();

// True when the active micro-kernel's register tiles are clearly fuller for
// the transposed product (C^T[N x M] = B^T A^T) than for C[M x N] itself: a
// shape like 512 x 10 leaves most of a 48-column tile empty, 10 x 512 does not.
bool gemmFillsBetterTransposed(int64_t M, int64_t N);

// Name of the micro-kernel chosen for this CPU, e.g. "avx512-8x48".
const char* gemmKernelName();

}  // namespace kernels
}  // namespace aclcpu
