#pragma once
// Several images' matrices side by side as one GEMM operand, so that images
// with few output positions share one product (and one packing of the
// weights) instead of a product each. Column j of the stacked matrix is
// column j % perImage of image j / perImage.

#include <cstdint>
#include <cstring>

namespace aclcpu {
namespace kernels {
namespace conv_detail {

// Writes from[0, count) to lines [line0, line0 + count) of one step of a packed
// block (sgemm's sliver layout: `step` points at the step in sliver 0).
inline void copyRunIntoSlivers(const float* from, int64_t count, int64_t line0, int slot,
                               int64_t sliverFloats, float* step) {
  for (int64_t done = 0; done < count;) {
    const int64_t line = line0 + done;
    const int64_t length = count - done < slot - line % slot ? count - done : slot - line % slot;
    std::memcpy(step + line / slot * sliverFloats + line % slot, from + done,
                static_cast<size_t>(length) * sizeof(float));
    done += length;
  }
}

// B[k][j] = data[(j / perImage) * imageStride + k * rowStride + j % perImage]:
// row-major matrices of `perImage` columns, one per image (gemm.h,
// PackedBSource; `context` is a StackedRows).
struct StackedRows {
  const float* data;
  int64_t rowStride;
  int64_t imageStride;
  int64_t perImage;
};
void packStackedRowsBlock(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb,
                          int slot, float* dst);

// The inverse for a product's output: stacked[r][i * perImage + c] goes to
// to[i * imageStride + r * perImage + c]. Parallel over rows when large.
void unstackRows(const float* stacked, int64_t rows, int64_t images, int64_t perImage, float* to,
                 int64_t imageStride);

// How many images share one product when each has `positions` output
// positions and the stacked matrix `rows` rows (1: no stacking). Up to 512
// columns, only below 256 positions per image, and never a stacked matrix of
// more than 4 Mi floats. Depends on the shape only, never on threads.
int64_t imagesPerProduct(int64_t batch, int64_t positions, int64_t rows);

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
