#include "kernels/conv/im2col_gemm/stacked_images.h"

#include <algorithm>

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace conv_detail {

void packStackedRowsBlock(const void* context, int64_t k0, int64_t n0, int64_t kb, int64_t nb,
                          int slot, float* dst) {
  const StackedRows& source = *static_cast<const StackedRows*>(context);
  const int64_t sliverFloats = kb * slot;
  for (int64_t p = 0; p < kb; ++p) {
    float* step = dst + p * slot;
    for (int64_t j = n0; j < n0 + nb;) {
      const int64_t image = j / source.perImage, column = j % source.perImage;
      const int64_t count = std::min(source.perImage - column, n0 + nb - j);
      const float* from =
          source.data + image * source.imageStride + (k0 + p) * source.rowStride + column;
      copyRunIntoSlivers(from, count, j - n0, slot, sliverFloats, step);
      j += count;
    }
  }
  const int64_t tailLines = (nb + slot - 1) / slot * slot - nb;
  if (tailLines == 0) return;
  float* last = dst + nb / slot * sliverFloats + nb % slot;
  for (int64_t p = 0; p < kb; ++p) std::fill(last + p * slot, last + p * slot + tailLines, 0.0f);
}

void unstackRows(const float* stacked, int64_t rows, int64_t images, int64_t perImage, float* to,
                 int64_t imageStride) {
  const int64_t columns = images * perImage;
  auto body = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t i = 0; i < images; ++i) {
        std::memcpy(to + i * imageStride + r * perImage, stacked + r * columns + i * perImage,
                    static_cast<size_t>(perImage) * sizeof(float));
      }
    }
  };
  if (rows * columns < (int64_t{1} << 15)) {
    body(0, rows);
  } else {
    parallelFor(rows, body);
  }
}

int64_t imagesPerProduct(int64_t batch, int64_t positions, int64_t rows) {
  constexpr int64_t kStackedColumns = 512;
  constexpr int64_t kMaxStackedFloats = int64_t{4} << 20;
  if (batch < 2 || positions <= 0 || positions >= kStackedColumns / 2) return 1;
  int64_t images = std::min(batch, (kStackedColumns + positions - 1) / positions);
  if (rows > 0) images = std::min(images, kMaxStackedFloats / (rows * positions));
  return std::max<int64_t>(images, 1);
}

}  // namespace conv_detail
}  // namespace kernels
}  // namespace aclcpu
