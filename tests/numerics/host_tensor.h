#pragma once
// A tensor as the tests hold it on the host: a storage buffer and a strided
// view into it (shape, element strides, element offset), exactly what
// aclCreateTensor is given. Storage the view does not cover is filled with a
// sentinel byte so that any write outside the view can be detected.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "numerics/float_bits.h"

namespace numerics {

using Shape = std::vector<int64_t>;
using Rng = std::mt19937_64;

constexpr uint8_t kSentinelByte = 0xA5;

struct Layout {
  Shape shape;
  std::vector<int64_t> strides;  // elements, one per view dim
  int64_t offset = 0;            // elements
  int64_t storageElements = 0;   // the whole buffer behind the view
};

enum class LayoutKind {
  Contiguous,    // row-major, offset 0
  OffsetPadded,  // row-major order, rows padded, non-zero offset
  Permuted,      // dims stored in a random order (a transposed view), padded
  Gapped,        // innermost stride 2 or 3 (every other element), permuted, offset
  Broadcast,     // padded, one dim with stride 0 (an expanded view; inputs only)
};

Layout contiguousLayout(const Shape& shape);
Layout makeLayout(const Shape& shape, LayoutKind kind, Rng& rng);
// Contiguous a quarter of the time, one of the strided kinds otherwise.
LayoutKind randomLayoutKind(Rng& rng);
// As above, plus (for read-only operands) an occasional stride-0 dim.
LayoutKind randomInputLayoutKind(Rng& rng);
const char* layoutKindName(LayoutKind kind);

int64_t elementCount(const Shape& shape);
std::string shapeString(const Shape& shape);

class HostTensor {
 public:
  HostTensor(DType dtype, Layout layout);

  DType dtype() const { return dtype_; }
  const Layout& layout() const { return layout_; }
  const Shape& shape() const { return layout_.shape; }
  int64_t count() const { return elementCount(layout_.shape); }

  // Row-major index over the view shape -> storage element index.
  int64_t storageIndexOf(int64_t flat) const;

  double get(int64_t flat) const;
  void set(int64_t flat, double value);  // value must be exact in dtype()
  uint32_t bitsAt(int64_t flat) const;

  std::vector<double> dense() const;  // the view, row-major
  void setDense(const std::vector<double>& values);

  std::vector<uint8_t>& storage() { return storage_; }
  const std::vector<uint8_t>& storage() const { return storage_; }

  // "" when every storage byte outside the view still holds the sentinel,
  // else a description of the first damaged element.
  std::string outOfViewDamage() const;
  // "" when the whole storage equals `before`.
  std::string changedSince(const std::vector<uint8_t>& before) const;

 private:
  DType dtype_;
  Layout layout_;
  std::vector<uint8_t> storage_;
};

}  // namespace numerics
