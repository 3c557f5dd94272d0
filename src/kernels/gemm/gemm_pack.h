#pragma once
// Packing copies a block of A or B (any strides) into the contiguous sliver
// layout the micro-kernels read, zero-padding ragged slivers to full size.

#include <cstdint>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_kernel.h"

namespace aclcpu {
namespace kernels {
namespace gemm_detail {

// Rows [row0, row0 + rows) and columns [col0, col0 + depth) of A into
// ceil(rows / mr) slivers of depth * mr floats.
inline void packA(const MatrixView& a, int64_t row0, int64_t col0, int64_t rows, int64_t depth,
                  int mr, PackBlockFn pack, float* dst) {
  pack(a.data + row0 * a.rowStride + col0 * a.colStride, a.rowStride, a.colStride, rows, depth, mr,
       dst);
}

// Rows [row0, row0 + depth) and columns [col0, col0 + cols) of B into
// ceil(cols / nr) slivers of depth * nr floats.
inline void packB(const MatrixView& b, int64_t row0, int64_t col0, int64_t depth, int64_t cols,
                  int nr, PackBlockFn pack, float* dst) {
  pack(b.data + row0 * b.rowStride + col0 * b.colStride, b.colStride, b.rowStride, cols, depth, nr,
       dst);
}

}  // namespace gemm_detail
}  // namespace kernels
}  // namespace aclcpu
