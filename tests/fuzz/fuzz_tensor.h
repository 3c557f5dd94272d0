#pragma once
// Tensors for the fuzz targets: a view layout chosen from the input (dense,
// permuted, padded, reversed, offset; always inside its storage), optional
// damage, and an aclrtMalloc buffer of exactly the storage's size (so ASan
// and the launch's block checks see every byte written outside it).

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "fuzz_bytes.h"

namespace fuzz {

struct ViewLayout {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  bool hasStorage = true;
  std::vector<int64_t> storage;
};

// A valid layout of `shape`: no two elements share an address and every
// element lies in the storage.
ViewLayout validLayout(FuzzBytes& in, const std::vector<int64_t>& shape);

// Replaces one of the layout's strides, its offset or its storage with a
// hostile value.
void damageLayout(FuzzBytes& in, ViewLayout* layout);

// The element offsets of every index of the layout's view (row-major index
// order), or empty when the view is empty or too large (> `limit`).
std::vector<int64_t> elementOffsets(const ViewLayout& layout, int64_t limit);

class FuzzTensor {
 public:
  // `fill` is the byte the buffer starts with.
  FuzzTensor(const ViewLayout& layout, int32_t rawDtype, int32_t rawFormat, bool nullData,
             uint8_t fill);
  ~FuzzTensor();
  FuzzTensor(const FuzzTensor&) = delete;
  FuzzTensor& operator=(const FuzzTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  size_t elementBytes() const { return elementBytes_; }
  const ViewLayout& layout() const { return layout_; }

 private:
  ViewLayout layout_;
  aclTensor* tensor_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t elementBytes_ = 4;
};

// True when every byte of `tensor`'s buffer outside its view's elements
// still holds `fill` (an output must write its view and nothing else).
bool onlyViewWritten(const FuzzTensor& tensor, uint8_t fill);

// The aclFormat a conv tensor of this rank normally has.
int32_t convFormat(size_t rank);

}  // namespace fuzz
