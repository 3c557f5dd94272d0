// Value arrays, scalars, tensor lists and scalar lists.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "meta_test_support.h"

namespace {

using meta_test::takeErrors;

TEST(Arrays, IntArrayCopiesItsValues) {
  int64_t values[] = {3, -1, 1LL << 40};
  aclIntArray* array = aclCreateIntArray(values, 3);
  ASSERT_NE(array, nullptr);
  values[0] = 100;
  values[2] = 0;
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(array, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(array->values, (std::vector<int64_t>{3, -1, 1LL << 40}));
  EXPECT_EQ(aclDestroyIntArray(array), ACLNN_SUCCESS);
}

TEST(Arrays, FloatAndBoolArraysCopyTheirValues) {
  float floats[] = {0.5f, -2.25f};
  bool bools[] = {true, false, true};
  aclFloatArray* floatArray = aclCreateFloatArray(floats, 2);
  aclBoolArray* boolArray = aclCreateBoolArray(bools, 3);
  ASSERT_NE(floatArray, nullptr);
  ASSERT_NE(boolArray, nullptr);
  floats[0] = 9.0f;
  bools[0] = false;
  EXPECT_EQ(floatArray->values, (std::vector<float>{0.5f, -2.25f}));
  EXPECT_EQ(boolArray->values, (std::vector<bool>{true, false, true}));
  uint64_t size = 0;
  EXPECT_EQ(aclGetFloatArraySize(floatArray, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclGetBoolArraySize(boolArray, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  aclDestroyFloatArray(floatArray);
  aclDestroyBoolArray(boolArray);
}

TEST(Arrays, NullOrZeroSizeGivesAnEmptyArray) {
  const int64_t one = 1;
  const float half = 0.5f;
  const bool yes = true;
  aclIntArray* ints[] = {aclCreateIntArray(nullptr, 4), aclCreateIntArray(&one, 0)};
  aclFloatArray* floats[] = {aclCreateFloatArray(nullptr, 4), aclCreateFloatArray(&half, 0)};
  aclBoolArray* bools[] = {aclCreateBoolArray(nullptr, 4), aclCreateBoolArray(&yes, 0)};
  for (int k = 0; k < 2; ++k) {
    uint64_t size = 77;
    ASSERT_NE(ints[k], nullptr);
    EXPECT_EQ(aclGetIntArraySize(ints[k], &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 0u);
    size = 77;
    ASSERT_NE(floats[k], nullptr);
    EXPECT_EQ(aclGetFloatArraySize(floats[k], &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 0u);
    size = 77;
    ASSERT_NE(bools[k], nullptr);
    EXPECT_EQ(aclGetBoolArraySize(bools[k], &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, 0u);
    aclDestroyIntArray(ints[k]);
    aclDestroyFloatArray(floats[k]);
    aclDestroyBoolArray(bools[k]);
  }
}

TEST(Arrays, SizeGettersRejectNulls) {
  aclIntArray* ints = aclCreateIntArray(nullptr, 0);
  aclFloatArray* floats = aclCreateFloatArray(nullptr, 0);
  aclBoolArray* bools = aclCreateBoolArray(nullptr, 0);
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetIntArraySize(ints, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetFloatArraySize(floats, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetBoolArraySize(bools, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  const std::string message = takeErrors();
  for (const char* api : {"aclGetIntArraySize", "aclGetFloatArraySize", "aclGetBoolArraySize"}) {
    EXPECT_NE(message.find(api), std::string::npos) << api;
  }
  aclDestroyIntArray(ints);
  aclDestroyFloatArray(floats);
  aclDestroyBoolArray(bools);
}

TEST(Arrays, DestroyNullIsSuccess) {
  EXPECT_EQ(aclDestroyIntArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyFloatArray(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyBoolArray(nullptr), ACLNN_SUCCESS);
}

TEST(Scalars, CopyExactlyTheBytesOfTheirType) {
  // A buffer larger than any scalar: only the dtype's bytes may be copied.
  unsigned char source[16];
  for (int k = 0; k < 16; ++k) source[k] = static_cast<unsigned char>(0xA0 + k);
  const struct {
    aclDataType dataType;
    size_t bytes;
  } cases[] = {{ACL_INT8, 1},     {ACL_BOOL, 1},   {ACL_FLOAT16, 2},    {ACL_BF16, 2},
               {ACL_FLOAT, 4},    {ACL_INT32, 4},  {ACL_UINT32, 4},     {ACL_INT64, 8},
               {ACL_DOUBLE, 8},   {ACL_UINT64, 8}, {ACL_COMPLEX64, 8},  {ACL_COMPLEX128, 16},
               {ACL_UINT16, 2},   {ACL_INT16, 2},  {ACL_UINT8, 1},      {ACL_COMPLEX32, 4},
               {ACL_HIFLOAT8, 1}, {ACL_INT4, 1},   {ACL_FLOAT8_E5M2, 1}};
  for (const auto& c : cases) {
    aclScalar* scalar = aclCreateScalar(source, c.dataType);
    ASSERT_NE(scalar, nullptr) << c.dataType;
    EXPECT_EQ(scalar->dataType, c.dataType);
    for (size_t k = 0; k < 16; ++k) {
      EXPECT_EQ(scalar->bytes[k], k < c.bytes ? source[k] : 0) << c.dataType << " byte " << k;
    }
    EXPECT_EQ(aclDestroyScalar(scalar), ACLNN_SUCCESS);
  }
}

TEST(Scalars, ValueIsCopiedAtCreation) {
  double value = 2.5;
  aclScalar* scalar = aclCreateScalar(&value, ACL_DOUBLE);
  ASSERT_NE(scalar, nullptr);
  value = -7.0;
  double stored = 0;
  std::memcpy(&stored, scalar->bytes, sizeof stored);
  EXPECT_EQ(stored, 2.5);
  aclDestroyScalar(scalar);
}

TEST(Scalars, NullValueOrNonNumericTypeGiveNull) {
  float value = 1.0f;
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_NE(takeErrors().find("value"), std::string::npos);
  EXPECT_EQ(aclCreateScalar(&value, ACL_DT_UNDEFINED), nullptr);
  EXPECT_EQ(aclCreateScalar(&value, ACL_STRING), nullptr);
  EXPECT_EQ(aclCreateScalar(&value, static_cast<aclDataType>(5)), nullptr);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclCreateScalar"), std::string::npos) << message;
  EXPECT_NE(message.find("dataType"), std::string::npos) << message;
  EXPECT_EQ(aclDestroyScalar(nullptr), ACLNN_SUCCESS);
}

TEST(Lists, TensorListKeepsHandlesAndDestroysItsTensors) {
  const int64_t shape[] = {2};
  const aclTensor* tensors[] = {
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr),
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr), nullptr};
  aclTensorList* list = aclCreateTensorList(tensors, 3);
  ASSERT_NE(list, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetTensorListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(list->tensors[0], tensors[0]);
  EXPECT_EQ(list->tensors[1], tensors[1]);
  EXPECT_EQ(list->tensors[2], nullptr);
  // Frees both tensors: a leak checker (ASan/valgrind) flags it if not.
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);
}

TEST(Lists, ATensorListedTwiceIsDestroyedOnce) {
  const int64_t shape[] = {2};
  aclTensor* tensor =
      aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, nullptr);
  const aclTensor* tensors[] = {tensor, tensor};
  aclTensorList* list = aclCreateTensorList(tensors, 2);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(aclDestroyTensorList(list), ACLNN_SUCCESS);  // a double free would abort here
}

TEST(Lists, ScalarListKeepsHandlesAndDestroysItsScalars) {
  int32_t one = 1;
  float two = 2.0f;
  const aclScalar* scalars[] = {aclCreateScalar(&one, ACL_INT32), aclCreateScalar(&two, ACL_FLOAT)};
  aclScalarList* list = aclCreateScalarList(scalars, 2);
  ASSERT_NE(list, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetScalarListSize(list, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(list->scalars[1], scalars[1]);
  EXPECT_EQ(aclDestroyScalarList(list), ACLNN_SUCCESS);
}

TEST(Lists, NullOrEmptyInputGivesAnEmptyList) {
  aclTensorList* tensors = aclCreateTensorList(nullptr, 5);
  aclScalarList* scalars = aclCreateScalarList(nullptr, 5);
  ASSERT_NE(tensors, nullptr);
  ASSERT_NE(scalars, nullptr);
  uint64_t size = 9;
  EXPECT_EQ(aclGetTensorListSize(tensors, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  size = 9;
  EXPECT_EQ(aclGetScalarListSize(scalars, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  aclDestroyTensorList(tensors);
  aclDestroyScalarList(scalars);
}

TEST(Lists, SizeGettersRejectNullsAndDestroyNullIsSuccess) {
  aclTensorList* tensors = aclCreateTensorList(nullptr, 0);
  aclScalarList* scalars = aclCreateScalarList(nullptr, 0);
  uint64_t size = 0;
  EXPECT_EQ(aclGetTensorListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetTensorListSize(tensors, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetScalarListSize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetScalarListSize(scalars, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  const std::string message = takeErrors();
  EXPECT_NE(message.find("aclGetTensorListSize"), std::string::npos);
  EXPECT_NE(message.find("aclGetScalarListSize"), std::string::npos);
  EXPECT_EQ(aclDestroyTensorList(nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalarList(nullptr), ACLNN_SUCCESS);
  aclDestroyTensorList(tensors);
  aclDestroyScalarList(scalars);
}

}  // namespace
