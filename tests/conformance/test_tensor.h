#pragma once
// Test-side tensors on aclrtMalloc'd memory, described by value so case
// tables stay compact, plus RAII wrappers for the attribute arrays.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"

namespace conformance {

// A tensor argument as a case table describes it. `present == false` means
// the argument is passed as nullptr.
struct TensorDesc {
  bool present = true;
  std::vector<int64_t> shape;
  aclDataType dtype = ACL_FLOAT;
  std::optional<aclFormat> format;  // unset: the caller's default for this rank
  // Optional strided view: element strides, element offset and the shape of
  // the storage behind it. Empty strides mean a contiguous tensor.
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<int64_t> storageShape;
};

inline TensorDesc tensor(std::vector<int64_t> shape, aclDataType dtype = ACL_FLOAT) {
  TensorDesc desc;
  desc.shape = std::move(shape);
  desc.dtype = dtype;
  return desc;
}

inline TensorDesc noTensor() {
  TensorDesc desc;
  desc.present = false;
  return desc;
}

int64_t elementCount(const std::vector<int64_t>& shape);
size_t elementSize(aclDataType dtype);
bool isFloatType(aclDataType dtype);

// Rounds a value to what a tensor of `dtype` stores (fp32, fp16 or bf16).
double roundToDtype(double value, aclDataType dtype);

// Device tensor plus its aclTensor descriptor; frees both.
class TestTensor {
 public:
  TestTensor(const TensorDesc& desc, aclFormat format);
  ~TestTensor();
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  aclTensor* get() const { return handle_; }
  // Destroys the descriptor early; the device memory stays.
  void destroyHandle();
  void* deviceData() const { return device_; }
  const TensorDesc& desc() const { return desc_; }
  int64_t numel() const { return elementCount(desc_.shape); }

  // Writes `values` (row-major over the view shape), rounded to the dtype.
  void setValues(const std::vector<double>& values);
  // The view's values as stored, row-major.
  std::vector<double> values() const;
  // Fills the whole storage (inside and outside the view) with one byte.
  void fillStorageBytes(uint8_t byte);
  std::vector<uint8_t> storageBytes() const;
  // Number of storage bytes outside the view that differ from `before`.
  int64_t changedBytesOutsideView(const std::vector<uint8_t>& before) const;

 private:
  int64_t storageOffsetOf(int64_t linearIndex) const;
  size_t storageByteCount() const;

  TensorDesc desc_;
  std::vector<int64_t> strides_;
  void* device_ = nullptr;
  aclTensor* handle_ = nullptr;
};

struct IntArrayDeleter {
  void operator()(aclIntArray* array) const { aclDestroyIntArray(array); }
};
struct BoolArrayDeleter {
  void operator()(aclBoolArray* array) const { aclDestroyBoolArray(array); }
};
using IntArrayPtr = std::unique_ptr<aclIntArray, IntArrayDeleter>;
using BoolArrayPtr = std::unique_ptr<aclBoolArray, BoolArrayDeleter>;

IntArrayPtr makeIntArray(const std::optional<std::vector<int64_t>>& values);
BoolArrayPtr makeBoolArray(const std::optional<std::vector<bool>>& values);

// aclrtMalloc'd scratch (a phase-2 workspace); empty when size is 0.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(uint64_t size);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

}  // namespace conformance
