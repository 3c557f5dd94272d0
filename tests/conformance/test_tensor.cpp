#include "test_tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "float_formats.h"

namespace conformance {

int64_t elementCount(const std::vector<int64_t>& shape) {
  // Saturates instead of overflowing: some cases describe absurd view shapes.
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (__builtin_mul_overflow(count, dim, &count)) return INT64_MAX;
  }
  return count;
}

size_t elementSize(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_DOUBLE:
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
    case ACL_HIFLOAT8:
    case ACL_FLOAT8_E5M2:
    case ACL_FLOAT8_E4M3FN:
      return 1;
    default:
      return 4;
  }
}

bool isFloatType(aclDataType dtype) {
  return dtype == ACL_FLOAT || dtype == ACL_FLOAT16 || dtype == ACL_BF16;
}

double roundToDtype(double value, aclDataType dtype) {
  const float single = static_cast<float>(value);
  switch (dtype) {
    case ACL_FLOAT16:
      return roundToHalf(single);
    case ACL_BF16:
      return roundToBf16(single);
    default:
      return single;
  }
}

namespace {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

void encode(double value, aclDataType dtype, uint8_t* out) {
  if (dtype == ACL_FLOAT16 || dtype == ACL_BF16) {
    const float single = static_cast<float>(value);
    const uint16_t bits = dtype == ACL_FLOAT16 ? floatToHalf(single) : floatToBf16(single);
    std::memcpy(out, &bits, sizeof bits);
  } else {
    const float single = static_cast<float>(value);
    std::memcpy(out, &single, sizeof single);
  }
}

double decode(const uint8_t* in, aclDataType dtype) {
  if (dtype == ACL_FLOAT16 || dtype == ACL_BF16) {
    uint16_t bits;
    std::memcpy(&bits, in, sizeof bits);
    return dtype == ACL_FLOAT16 ? halfToFloat(bits) : bf16ToFloat(bits);
  }
  float single;
  std::memcpy(&single, in, sizeof single);
  return single;
}

}  // namespace

TestTensor::TestTensor(const TensorDesc& desc, aclFormat format) : desc_(desc) {
  strides_ = desc_.strides.empty() ? contiguousStrides(desc_.shape) : desc_.strides;
  const std::vector<int64_t>& storage =
      desc_.storageShape.empty() ? desc_.shape : desc_.storageShape;
  // aclrtMalloc needs a non-zero size; empty tensors still get a real address.
  const size_t bytes = std::max<size_t>(storageByteCount(), 64);
  EXPECT_EQ(aclrtMalloc(&device_, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  handle_ = aclCreateTensor(desc_.shape.data(), desc_.shape.size(), desc_.dtype, strides_.data(),
                            desc_.offset, format, storage.data(), storage.size(), device_);
  EXPECT_NE(handle_, nullptr) << "aclCreateTensor failed";
}

TestTensor::~TestTensor() {
  if (handle_) aclDestroyTensor(handle_);
  if (device_) aclrtFree(device_);
}

void TestTensor::destroyHandle() {
  if (handle_) aclDestroyTensor(handle_);
  handle_ = nullptr;
}

size_t TestTensor::storageByteCount() const {
  const std::vector<int64_t>& storage =
      desc_.storageShape.empty() ? desc_.shape : desc_.storageShape;
  return static_cast<size_t>(std::max<int64_t>(elementCount(storage), 0)) *
         elementSize(desc_.dtype);
}

int64_t TestTensor::storageOffsetOf(int64_t linearIndex) const {
  int64_t offset = desc_.offset;
  for (size_t i = desc_.shape.size(); i-- > 0;) {
    const int64_t extent = desc_.shape[i];
    offset += (linearIndex % extent) * strides_[i];
    linearIndex /= extent;
  }
  return offset;
}

std::vector<uint8_t> TestTensor::storageBytes() const {
  std::vector<uint8_t> bytes(storageByteCount());
  if (!bytes.empty()) {
    EXPECT_EQ(
        aclrtMemcpy(bytes.data(), bytes.size(), device_, bytes.size(), ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_SUCCESS);
  }
  return bytes;
}

void TestTensor::fillStorageBytes(uint8_t byte) {
  std::vector<uint8_t> bytes(storageByteCount(), byte);
  if (!bytes.empty()) {
    EXPECT_EQ(
        aclrtMemcpy(device_, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
        ACL_SUCCESS);
  }
}

void TestTensor::setValues(const std::vector<double>& values) {
  ASSERT_EQ(static_cast<int64_t>(values.size()), numel());
  ASSERT_TRUE(isFloatType(desc_.dtype));
  std::vector<uint8_t> bytes = storageBytes();
  const size_t size = elementSize(desc_.dtype);
  for (int64_t i = 0; i < numel(); ++i) {
    encode(values[i], desc_.dtype, bytes.data() + storageOffsetOf(i) * size);
  }
  if (!bytes.empty()) {
    ASSERT_EQ(
        aclrtMemcpy(device_, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE),
        ACL_SUCCESS);
  }
}

std::vector<double> TestTensor::values() const {
  const std::vector<uint8_t> bytes = storageBytes();
  const size_t size = elementSize(desc_.dtype);
  std::vector<double> result(static_cast<size_t>(numel()));
  for (int64_t i = 0; i < numel(); ++i) {
    result[i] = decode(bytes.data() + storageOffsetOf(i) * size, desc_.dtype);
  }
  return result;
}

int64_t TestTensor::changedBytesOutsideView(const std::vector<uint8_t>& before) const {
  const std::vector<uint8_t> after = storageBytes();
  const size_t size = elementSize(desc_.dtype);
  std::vector<bool> inView(after.size(), false);
  for (int64_t i = 0; i < numel(); ++i) {
    const size_t first = static_cast<size_t>(storageOffsetOf(i)) * size;
    for (size_t b = 0; b < size && first + b < inView.size(); ++b) inView[first + b] = true;
  }
  int64_t changed = 0;
  for (size_t b = 0; b < after.size() && b < before.size(); ++b) {
    if (!inView[b] && after[b] != before[b]) ++changed;
  }
  return changed;
}

IntArrayPtr makeIntArray(const std::optional<std::vector<int64_t>>& values) {
  if (!values) return nullptr;
  IntArrayPtr array(aclCreateIntArray(values->data(), values->size()));
  EXPECT_NE(array, nullptr);
  return array;
}

BoolArrayPtr makeBoolArray(const std::optional<std::vector<bool>>& values) {
  if (!values) return nullptr;
  std::unique_ptr<bool[]> plain(new bool[values->size() + 1]);
  for (size_t i = 0; i < values->size(); ++i) plain[i] = (*values)[i];
  BoolArrayPtr array(aclCreateBoolArray(plain.get(), values->size()));
  EXPECT_NE(array, nullptr);
  return array;
}

DeviceBuffer::DeviceBuffer(uint64_t size) {
  if (size > 0) {
    EXPECT_EQ(aclrtMalloc(&data_, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) aclrtFree(data_);
}

}  // namespace conformance
