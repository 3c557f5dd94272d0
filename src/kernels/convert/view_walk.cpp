#include "kernels/convert/view_walk.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "common/thread_pool.h"

namespace aclcpu {
namespace kernels {
namespace detail {

ViewWalk makeWalk(const int64_t shape[5], const int64_t strides[5]) {
  ViewWalk walk;
  walk.total = 1;
  for (int d = 0; d < 5; ++d) walk.total *= shape[d];
  if (walk.total == 0) {
    walk.rank = 1;
    walk.shape[0] = 0;
    walk.strides[0] = 1;
    return walk;
  }
  int rank = 0;
  for (int d = 0; d < 5; ++d) {
    if (shape[d] == 1) continue;
    if (rank > 0 && walk.strides[rank - 1] == strides[d] * shape[d]) {
      // The previous kept dim steps exactly over this one: fold it in.
      walk.shape[rank - 1] *= shape[d];
      walk.strides[rank - 1] = strides[d];
      continue;
    }
    walk.shape[rank] = shape[d];
    walk.strides[rank] = strides[d];
    ++rank;
  }
  if (rank == 0) {
    walk.shape[0] = 1;
    walk.strides[0] = 1;
    rank = 1;
  }
  walk.rank = rank;
  return walk;
}

bool walkIsNonOverlapping(const ViewWalk& walk) {
  if (walk.total <= 1) return true;
  int order[5];
  for (int d = 0; d < walk.rank; ++d) order[d] = d;
  auto magnitude = [&](int d) { return std::llabs(walk.strides[d]); };
  for (int i = 1; i < walk.rank; ++i) {  // insertion sort by |stride|; at most 5 dims
    for (int j = i; j > 0 && magnitude(order[j]) < magnitude(order[j - 1]); --j) {
      std::swap(order[j], order[j - 1]);
    }
  }
  // Each dim must step past everything the smaller dims can reach.
  int64_t reach = 0;
  for (int i = 0; i < walk.rank; ++i) {
    const int d = order[i];
    if (walk.shape[d] == 1) continue;
    if (magnitude(d) <= reach) return false;
    reach += (walk.shape[d] - 1) * magnitude(d);
  }
  return true;
}

void parallelOverElements(int64_t total, bool allowParallel,
                          void (*body)(void* context, int64_t begin, int64_t end), void* context) {
  constexpr int64_t kBlock = int64_t{1} << 15;
  if (total <= 0) return;
  if (!allowParallel || total <= kBlock) {
    body(context, 0, total);
    return;
  }
  const int64_t blocks = (total + kBlock - 1) / kBlock;
  parallelFor(blocks, [&](int64_t first, int64_t last) {
    body(context, first * kBlock, std::min(total, last * kBlock));
  });
}

}  // namespace detail
}  // namespace kernels
}  // namespace aclcpu
