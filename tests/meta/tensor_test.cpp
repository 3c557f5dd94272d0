// aclCreateTensor / aclInitTensor / getters: views, strides, offsets, storage.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "meta_test_support.h"

namespace {

using meta_test::takeErrors;

std::vector<int64_t> viewShapeOf(const aclTensor* tensor) {
  int64_t* dims = nullptr;
  uint64_t count = 0;
  EXPECT_EQ(aclGetViewShape(tensor, &dims, &count), ACLNN_SUCCESS);
  std::vector<int64_t> result(dims, dims + count);
  delete[] dims;
  return result;
}

std::vector<int64_t> stridesOf(const aclTensor* tensor) {
  int64_t* dims = nullptr;
  uint64_t count = 0;
  EXPECT_EQ(aclGetViewStrides(tensor, &dims, &count), ACLNN_SUCCESS);
  std::vector<int64_t> result(dims, dims + count);
  delete[] dims;
  return result;
}

std::vector<int64_t> storageShapeOf(const aclTensor* tensor) {
  int64_t* dims = nullptr;
  uint64_t count = 0;
  EXPECT_EQ(aclGetStorageShape(tensor, &dims, &count), ACLNN_SUCCESS);
  std::vector<int64_t> result(dims, dims + count);
  delete[] dims;
  return result;
}

// Reads element (i, j) of a 2-D float view using only the public getters:
// data + (offset + i*stride0 + j*stride1) elements.
float elementAt(const aclTensor* tensor, int64_t i, int64_t j) {
  void* raw = nullptr;
  int64_t offset = 0;
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &raw), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  std::vector<int64_t> strides = stridesOf(tensor);
  return static_cast<const float*>(raw)[offset + i * strides[0] + j * strides[1]];
}

TEST(Tensor, NullStridesGiveRowMajorStridesAndGettersReturnCreationValues) {
  const int64_t shape[] = {2, 3, 4};
  float data[24] = {};
  aclTensor* tensor =
      aclCreateTensor(shape, 3, ACL_FLOAT16, nullptr, 0, ACL_FORMAT_NCL, shape, 3, data);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(viewShapeOf(tensor), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(stridesOf(tensor), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(storageShapeOf(tensor), (std::vector<int64_t>{2, 3, 4}));
  aclFormat format = ACL_FORMAT_UNDEFINED;
  aclDataType dataType = ACL_DT_UNDEFINED;
  int64_t offset = -1;
  void* raw = nullptr;
  EXPECT_EQ(aclGetFormat(tensor, &format), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetDataType(tensor, &dataType), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetViewOffset(tensor, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(aclGetRawTensorAddr(tensor, &raw), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NCL);
  EXPECT_EQ(dataType, ACL_FLOAT16);
  EXPECT_EQ(offset, 0);
  EXPECT_EQ(raw, static_cast<void*>(data));
  EXPECT_EQ(aclcpu::viewElementCount(*tensor), 24);
  EXPECT_EQ(aclDestroyTensor(tensor), ACLNN_SUCCESS);
}

TEST(Tensor, ViewWithOffsetAndStridesCoversSubmatrixOfTenByTenBuffer) {
  float buffer[100];
  for (int k = 0; k < 100; ++k) buffer[k] = static_cast<float>(k);
  const int64_t storage[] = {10, 10};

  // shape (6,5), strides (10,1), offset 22: a[2..7][2..6].
  const int64_t shape[] = {6, 5};
  const int64_t strides[] = {10, 1};
  aclTensor* block =
      aclCreateTensor(shape, 2, ACL_FLOAT, strides, 22, ACL_FORMAT_ND, storage, 2, buffer);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(storageShapeOf(block), (std::vector<int64_t>{10, 10}));
  EXPECT_EQ(aclcpu::viewElementCount(*block), 30);
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_EQ(elementAt(block, i, j), static_cast<float>((i + 2) * 10 + (j + 2)));
    }
  }

  // shape (4,3), strides (20,2), offset 22: every other row and column.
  const int64_t sparseShape[] = {4, 3};
  const int64_t sparseStrides[] = {20, 2};
  aclTensor* sparse = aclCreateTensor(sparseShape, 2, ACL_FLOAT, sparseStrides, 22, ACL_FORMAT_ND,
                                      storage, 2, buffer);
  ASSERT_NE(sparse, nullptr);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(elementAt(sparse, i, j), static_cast<float>((2 + 2 * i) * 10 + (2 + 2 * j)));
    }
  }
  aclDestroyTensor(block);
  aclDestroyTensor(sparse);
}

TEST(Tensor, TransposeViewOverSmallerStorage) {
  float buffer[8] = {0, 1, 2, 3, 4, 5, 6, 7};  // storage [2,4], row-major
  const int64_t shape[] = {4, 2};
  const int64_t strides[] = {1, 4};
  const int64_t storage[] = {2, 4};
  aclTensor* transposed =
      aclCreateTensor(shape, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 2, buffer);
  ASSERT_NE(transposed, nullptr);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(elementAt(transposed, i, j), buffer[j * 4 + i]);
    }
  }
  aclDestroyTensor(transposed);
}

TEST(Tensor, CreationCopiesDimsAndStrides) {
  int64_t shape[] = {3, 7};
  int64_t strides[] = {8, 1};
  int64_t storage[] = {3, 8};
  aclTensor* tensor =
      aclCreateTensor(shape, 2, ACL_FLOAT, strides, 5, ACL_FORMAT_ND, storage, 2, nullptr);
  ASSERT_NE(tensor, nullptr);
  shape[0] = 99;
  strides[0] = 99;
  storage[0] = 99;
  EXPECT_EQ(viewShapeOf(tensor), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(stridesOf(tensor), (std::vector<int64_t>{8, 1}));
  EXPECT_EQ(storageShapeOf(tensor), (std::vector<int64_t>{3, 8}));
  aclDestroyTensor(tensor);
}

TEST(Tensor, ZeroDimTensorAndNullDataAreAccepted) {
  aclTensor* scalarTensor =
      aclCreateTensor(nullptr, 0, ACL_INT32, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(scalarTensor, nullptr);
  EXPECT_TRUE(viewShapeOf(scalarTensor).empty());
  EXPECT_TRUE(stridesOf(scalarTensor).empty());
  EXPECT_TRUE(storageShapeOf(scalarTensor).empty());
  EXPECT_EQ(aclcpu::viewElementCount(*scalarTensor), 1);

  int32_t value = 7;
  EXPECT_EQ(aclSetRawTensorAddr(scalarTensor, &value), ACLNN_SUCCESS);
  void* raw = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(scalarTensor, &raw), ACLNN_SUCCESS);
  EXPECT_EQ(raw, static_cast<void*>(&value));
  aclDestroyTensor(scalarTensor);
}

TEST(Tensor, NullDimsWithNonZeroCountGiveNullAndAMessage) {
  const int64_t shape[] = {2, 2};
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 2, nullptr),
            nullptr);
  std::string message = takeErrors();
  EXPECT_NE(message.find("aclCreateTensor"), std::string::npos) << message;
  EXPECT_NE(message.find("viewDims"), std::string::npos) << message;

  EXPECT_EQ(aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 1, nullptr),
            nullptr);
  message = takeErrors();
  EXPECT_NE(message.find("storageDims"), std::string::npos) << message;

  // Storage may be left empty (count 0) even with a non-empty view.
  aclTensor* noStorage =
      aclCreateTensor(shape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(noStorage, nullptr);
  EXPECT_TRUE(storageShapeOf(noStorage).empty());
  aclDestroyTensor(noStorage);
  EXPECT_EQ(takeErrors(), "");
}

TEST(Tensor, InitTensorReplacesEveryField) {
  const int64_t shape[] = {4};
  float first[4] = {};
  float second[12] = {};
  aclTensor* tensor =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, first);
  ASSERT_NE(tensor, nullptr);
  const int64_t newShape[] = {2, 3};
  const int64_t newStrides[] = {6, 2};
  const int64_t newStorage[] = {12};
  EXPECT_EQ(aclInitTensor(tensor, newShape, 2, ACL_BF16, newStrides, 1, ACL_FORMAT_NCHW, newStorage,
                          1, second),
            ACLNN_SUCCESS);
  EXPECT_EQ(viewShapeOf(tensor), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(stridesOf(tensor), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(storageShapeOf(tensor), (std::vector<int64_t>{12}));
  EXPECT_EQ(tensor->offset, 1);
  EXPECT_EQ(tensor->dataType, ACL_BF16);
  EXPECT_EQ(tensor->format, ACL_FORMAT_NCHW);
  EXPECT_EQ(tensor->data, static_cast<void*>(second));

  // Null strides on re-init derive contiguous ones again.
  EXPECT_EQ(
      aclInitTensor(tensor, newShape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, newShape, 2, first),
      ACLNN_SUCCESS);
  EXPECT_EQ(stridesOf(tensor), (std::vector<int64_t>{3, 1}));

  // Failures leave the tensor untouched.
  EXPECT_EQ(
      aclInitTensor(tensor, nullptr, 3, ACL_FLOAT16, nullptr, 9, ACL_FORMAT_ND, nullptr, 0, second),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(takeErrors().find("aclInitTensor"), std::string::npos);
  EXPECT_EQ(aclInitTensor(tensor, newShape, 2, ACL_FLOAT16, nullptr, 9, ACL_FORMAT_ND, nullptr, 2,
                          second),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(takeErrors().find("storageDims"), std::string::npos);
  EXPECT_EQ(viewShapeOf(tensor), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor->dataType, ACL_FLOAT);
  EXPECT_EQ(tensor->offset, 0);
  EXPECT_EQ(tensor->data, static_cast<void*>(first));

  EXPECT_EQ(
      aclInitTensor(nullptr, newShape, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, newShape, 2, first),
      ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(takeErrors().find("tensor"), std::string::npos);
  aclDestroyTensor(tensor);
}

TEST(Tensor, GettersRejectEveryNullPointerWith161001) {
  const int64_t shape[] = {2};
  aclTensor* tensor =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  ASSERT_NE(tensor, nullptr);
  int64_t* dims = nullptr;
  uint64_t count = 0;
  using Getter = aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*);
  const Getter getters[] = {aclGetViewShape, aclGetStorageShape, aclGetViewStrides};
  const char* names[] = {"aclGetViewShape", "aclGetStorageShape", "aclGetViewStrides"};
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(getters[g](nullptr, &dims, &count), ACLNN_ERR_PARAM_NULLPTR) << names[g];
    EXPECT_EQ(getters[g](tensor, nullptr, &count), ACLNN_ERR_PARAM_NULLPTR) << names[g];
    EXPECT_EQ(getters[g](tensor, &dims, nullptr), ACLNN_ERR_PARAM_NULLPTR) << names[g];
    std::string message = takeErrors();
    EXPECT_NE(message.find(names[g]), std::string::npos) << message;
  }
  EXPECT_EQ(dims, nullptr);  // nothing was allocated on failure

  int64_t offset = 0;
  aclFormat format;
  aclDataType dataType;
  void* raw = nullptr;
  EXPECT_EQ(aclGetViewOffset(nullptr, &offset), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(nullptr, &format), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFormat(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(nullptr, &dataType), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(nullptr, &raw), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetRawTensorAddr(tensor, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, &raw), ACLNN_ERR_PARAM_NULLPTR);
  std::string message = takeErrors();
  for (const char* api : {"aclGetViewOffset", "aclGetFormat", "aclGetDataType",
                          "aclGetRawTensorAddr", "aclSetRawTensorAddr"}) {
    EXPECT_NE(message.find(api), std::string::npos) << api;
  }
  aclDestroyTensor(tensor);
}

TEST(Tensor, DestroyNullIsSuccess) { EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_SUCCESS); }

TEST(Tensor, ViewElementCountHandlesEmptyNegativeAndOverflow) {
  aclTensor tensor;
  tensor.viewShape = {3, 0, 5};
  EXPECT_EQ(aclcpu::viewElementCount(tensor), 0);
  tensor.viewShape = {3, -1};
  EXPECT_EQ(aclcpu::viewElementCount(tensor), -1);
  tensor.viewShape = {int64_t{1} << 32, int64_t{1} << 31};
  EXPECT_EQ(aclcpu::viewElementCount(tensor), -1);
  tensor.viewShape = {int64_t{1} << 31, int64_t{1} << 31};
  EXPECT_EQ(aclcpu::viewElementCount(tensor), int64_t{1} << 62);
}

TEST(Tensor, ContiguousStridesOfAnOverflowingShapeSaturate) {
  const int64_t shape[] = {int64_t{1} << 40, int64_t{1} << 40, int64_t{1} << 40};
  aclTensor* tensor =
      aclCreateTensor(shape, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 3, nullptr);
  ASSERT_NE(tensor, nullptr);
  EXPECT_EQ(stridesOf(tensor), (std::vector<int64_t>{INT64_MAX, int64_t{1} << 40, 1}));
  EXPECT_EQ(aclcpu::viewElementCount(*tensor), -1);
  aclDestroyTensor(tensor);
}

}  // namespace
