// Compile-time checks of the public headers against /work/shared/spec/acl-api.md.
// This file needs nothing but the headers: ctest also compiles it as C++11 on
// its own (headers_spec_checks_cxx11), and it is linked into headers_tests.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"

// ACLNN_* codes must not be reachable through the public chain (spec 1.5).
#if defined(ACLNN_SUCCESS) || defined(ACLNN_ERR_PARAM_NULLPTR) || defined(ACLNN_ERR_INNER)
#error "the public include chain must not define ACLNN_* status macros"
#endif
// ACL_ERROR_* are variables, ACL_ERROR_RT_* are macros; never both (spec 0).
#if defined(ACL_SUCCESS) || defined(ACL_ERROR_INVALID_PARAM) || defined(ACL_ERROR_RT_FAILURE)
#error "ACL_ERROR_* codes must be static const int, not macros"
#endif
#if !defined(ACL_RT_SUCCESS) || !defined(ACL_ERROR_RT_PARAM_INVALID) || \
    !defined(ACL_ERROR_RT_DEVICE_TASK_ABORT)
#error "ACL_ERROR_RT_* codes must be macros"
#endif
#if !defined(ACLNN_API) || !defined(ACL_FUNC_VISIBILITY) || !defined(ACL_DEPRECATED) || \
    !defined(ACL_DEPRECATED_MESSAGE)
#error "visibility/deprecation macros missing"
#endif

#include "aclnn/opdev/op_errno.h"

namespace {

// ---- 1.1 / 1.2 basic types ----
static_assert(std::is_same<aclrtStream, void*>::value, "aclrtStream");
static_assert(std::is_same<aclrtEvent, void*>::value, "aclrtEvent");
static_assert(std::is_same<aclrtContext, void*>::value, "aclrtContext");
static_assert(std::is_same<aclrtNotify, void*>::value, "aclrtNotify");
static_assert(std::is_same<aclrtAllocatorDesc, void*>::value, "aclrtAllocatorDesc");
static_assert(std::is_same<aclrtAllocator, void*>::value, "aclrtAllocator");
static_assert(std::is_same<aclrtAllocatorBlock, void*>::value, "aclrtAllocatorBlock");
static_assert(std::is_same<aclrtAllocatorAddr, void*>::value, "aclrtAllocatorAddr");
static_assert(std::is_same<aclrtTaskGrp, void*>::value, "aclrtTaskGrp");
static_assert(std::is_same<aclError, int>::value, "aclError is int");
static_assert(std::is_same<aclnnStatus, int32_t>::value, "aclnnStatus is int32_t");
static_assert(std::is_same<aclError, aclnnStatus>::value, "aclError and aclnnStatus agree");
static_assert(std::is_same<aclFloat16, uint16_t>::value, "aclFloat16");
static_assert(OK == 0, "constexpr OK");
static_assert(std::is_same<decltype(OK), const aclnnStatus>::value, "OK is aclnnStatus");

// ---- 1.3 aclDataType: anonymous, unscoped, typedef-named; `aclDataType::X` works ----
static_assert(std::is_enum<aclDataType>::value, "aclDataType is an enum");
static_assert(std::is_convertible<aclDataType, int>::value, "aclDataType is unscoped");
static_assert(aclDataType::ACL_FLOAT == 0, "qualified enumerator syntax");
static_assert(ACL_DT_UNDEFINED == -1, "");
static_assert(ACL_FLOAT == 0, "");
static_assert(ACL_FLOAT16 == 1, "");
static_assert(ACL_INT8 == 2, "");
static_assert(ACL_INT32 == 3, "");
static_assert(ACL_UINT8 == 4, "");
static_assert(ACL_INT16 == 6, "");
static_assert(ACL_UINT16 == 7, "");
static_assert(ACL_UINT32 == 8, "");
static_assert(ACL_INT64 == 9, "");
static_assert(ACL_UINT64 == 10, "");
static_assert(ACL_DOUBLE == 11, "");
static_assert(ACL_BOOL == 12, "");
static_assert(ACL_STRING == 13, "");
static_assert(ACL_COMPLEX64 == 16, "");
static_assert(ACL_COMPLEX128 == 17, "");
static_assert(ACL_BF16 == 27, "");
static_assert(ACL_INT4 == 29, "");
static_assert(ACL_UINT1 == 30, "");
static_assert(ACL_COMPLEX32 == 33, "");
static_assert(ACL_HIFLOAT8 == 34, "");
static_assert(ACL_FLOAT8_E5M2 == 35, "");
static_assert(ACL_FLOAT8_E4M3FN == 36, "");
static_assert(ACL_FLOAT8_E8M0 == 37, "");
static_assert(ACL_FLOAT6_E3M2 == 38, "");
static_assert(ACL_FLOAT6_E2M3 == 39, "");
static_assert(ACL_FLOAT4_E2M1 == 40, "");
static_assert(ACL_FLOAT4_E1M2 == 41, "");
static_assert(ACL_HIFLOAT4 == 42, "");
static_assert(ACL_HIFLOAT4_SCALE == 43, "");

// ---- 1.4 aclFormat ----
static_assert(std::is_enum<aclFormat>::value, "aclFormat is an enum");
static_assert(std::is_convertible<aclFormat, int>::value, "aclFormat is unscoped");
static_assert(aclFormat::ACL_FORMAT_NCHW == 0, "qualified enumerator syntax");
static_assert(ACL_FORMAT_UNDEFINED == -1, "");
static_assert(ACL_FORMAT_NCHW == 0, "");
static_assert(ACL_FORMAT_NHWC == 1, "");
static_assert(ACL_FORMAT_ND == 2, "");
static_assert(ACL_FORMAT_NC1HWC0 == 3, "");
static_assert(ACL_FORMAT_FRACTAL_Z == 4, "");
static_assert(ACL_FORMAT_NC1HWC0_C04 == 12, "");
static_assert(ACL_FORMAT_HWCN == 16, "");
static_assert(ACL_FORMAT_NDHWC == 27, "");
static_assert(ACL_FORMAT_FRACTAL_NZ == 29, "");
static_assert(ACL_FORMAT_NCDHW == 30, "");
static_assert(ACL_FORMAT_NDC1HWC0 == 32, "");
static_assert(ACL_FRACTAL_Z_3D == 33, "");
static_assert(ACL_FORMAT_NC == 35, "");
static_assert(ACL_FORMAT_NCL == 47, "");
static_assert(ACL_FORMAT_FRACTAL_NZ_C0_16 == 50, "");
static_assert(ACL_FORMAT_FRACTAL_NZ_C0_32 == 51, "");
static_assert(ACL_FORMAT_FRACTAL_NZ_C0_2 == 52, "");
static_assert(ACL_FORMAT_FRACTAL_NZ_C0_4 == 53, "");
static_assert(ACL_FORMAT_FRACTAL_NZ_C0_8 == 54, "");

// ---- 1.7 runtime enums ----
static_assert(std::is_enum<aclSysParamOpt>::value, "aclSysParamOpt is an enum");
static_assert(aclSysParamOpt::ACL_OPT_DETERMINISTIC == 0, "qualified enumerator syntax");
static_assert(ACL_OPT_ENABLE_DEBUG_KERNEL == 1, "");
static_assert(ACL_OPT_ENABLE_KERNEL_EARLY_START == 3, "");
static_assert(ACL_MEM_MALLOC_HUGE_FIRST == 0, "");
static_assert(ACL_MEM_MALLOC_HUGE_ONLY == 1, "");
static_assert(ACL_MEM_MALLOC_NORMAL_ONLY == 2, "");
static_assert(ACL_MEM_MALLOC_HUGE_FIRST_P2P == 3, "");
static_assert(ACL_MEM_MALLOC_HUGE_ONLY_P2P == 4, "");
static_assert(ACL_MEM_MALLOC_NORMAL_ONLY_P2P == 5, "");
static_assert(ACL_MEM_MALLOC_HUGE1G_ONLY == 6, "");
static_assert(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P == 7, "");
static_assert(ACL_MEM_TYPE_LOW_BAND_WIDTH == 0x0100, "");
static_assert(ACL_MEM_TYPE_HIGH_BAND_WIDTH == 0x1000, "");
static_assert(ACL_MEM_ACCESS_USER_SPACE_READONLY == 0x100000, "");
static_assert(ACL_MEMCPY_HOST_TO_HOST == 0, "");
static_assert(ACL_MEMCPY_HOST_TO_DEVICE == 1, "");
static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2, "");
static_assert(ACL_MEMCPY_DEVICE_TO_DEVICE == 3, "");
static_assert(ACL_MEMCPY_DEFAULT == 4, "");
static_assert(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE == 5, "");
static_assert(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE == 6, "");
static_assert(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE == 7, "");
static_assert(ACL_DEVICE == 0 && ACL_HOST == 1, "aclrtRunMode");
static_assert(ACL_MEMTYPE_DEVICE == 0 && ACL_MEMTYPE_HOST == 1 &&
                  ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT == 2,
              "aclMemType");
static_assert(ACL_DEBUG == 0 && ACL_INFO == 1 && ACL_WARNING == 2 && ACL_ERROR == 3, "aclLogLevel");
static_assert(ACL_CALLBACK_NO_BLOCK == 0 && ACL_CALLBACK_BLOCK == 1, "aclrtCallbackBlockType");

// ---- 1.6 aclError codes ----
static_assert(std::is_same<decltype(ACL_ERROR_INVALID_PARAM), const int>::value,
              "ACL_ERROR_* are static const int");
static_assert(ACL_SUCCESS == 0 && ACL_ERROR_NONE == 0, "");
static_assert(ACL_ERROR_INVALID_EXCEPTION_INFO == -1, "");
static_assert(ACL_ERROR_INVALID_PARAM == 100000, "");
static_assert(ACL_ERROR_UNINITIALIZE == 100001, "");
static_assert(ACL_ERROR_REPEAT_INITIALIZE == 100002, "");
static_assert(ACL_ERROR_INVALID_FILE == 100003, "");
static_assert(ACL_ERROR_WRITE_FILE == 100004, "");
static_assert(ACL_ERROR_INVALID_FILE_SIZE == 100005, "");
static_assert(ACL_ERROR_PARSE_FILE == 100006, "");
static_assert(ACL_ERROR_FILE_MISSING_ATTR == 100007, "");
static_assert(ACL_ERROR_FILE_ATTR_INVALID == 100008, "");
static_assert(ACL_ERROR_INVALID_DUMP_CONFIG == 100009, "");
static_assert(ACL_ERROR_INVALID_PROFILING_CONFIG == 100010, "");
static_assert(ACL_ERROR_INVALID_MODEL_ID == 100011, "");
static_assert(ACL_ERROR_DESERIALIZE_MODEL == 100012, "");
static_assert(ACL_ERROR_PARSE_MODEL == 100013, "");
static_assert(ACL_ERROR_READ_MODEL_FAILURE == 100014, "");
static_assert(ACL_ERROR_MODEL_SIZE_INVALID == 100015, "");
static_assert(ACL_ERROR_MODEL_MISSING_ATTR == 100016, "");
static_assert(ACL_ERROR_MODEL_INPUT_NOT_MATCH == 100017, "");
static_assert(ACL_ERROR_MODEL_OUTPUT_NOT_MATCH == 100018, "");
static_assert(ACL_ERROR_MODEL_NOT_DYNAMIC == 100019, "");
static_assert(ACL_ERROR_OP_TYPE_NOT_MATCH == 100020, "");
static_assert(ACL_ERROR_OP_INPUT_NOT_MATCH == 100021, "");
static_assert(ACL_ERROR_OP_OUTPUT_NOT_MATCH == 100022, "");
static_assert(ACL_ERROR_OP_ATTR_NOT_MATCH == 100023, "");
static_assert(ACL_ERROR_OP_NOT_FOUND == 100024, "");
static_assert(ACL_ERROR_OP_LOAD_FAILED == 100025, "");
static_assert(ACL_ERROR_UNSUPPORTED_DATA_TYPE == 100026, "");
static_assert(ACL_ERROR_FORMAT_NOT_MATCH == 100027, "");
static_assert(ACL_ERROR_BIN_SELECTOR_NOT_REGISTERED == 100028, "");
static_assert(ACL_ERROR_KERNEL_NOT_FOUND == 100029, "");
static_assert(ACL_ERROR_BIN_SELECTOR_ALREADY_REGISTERED == 100030, "");
static_assert(ACL_ERROR_KERNEL_ALREADY_REGISTERED == 100031, "");
static_assert(ACL_ERROR_INVALID_QUEUE_ID == 100032, "");
static_assert(ACL_ERROR_REPEAT_SUBSCRIBE == 100033, "");
static_assert(ACL_ERROR_STREAM_NOT_SUBSCRIBE == 100034, "");
static_assert(ACL_ERROR_THREAD_NOT_SUBSCRIBE == 100035, "");
static_assert(ACL_ERROR_WAIT_CALLBACK_TIMEOUT == 100036, "");
static_assert(ACL_ERROR_REPEAT_FINALIZE == 100037, "");
static_assert(ACL_ERROR_NOT_STATIC_AIPP == 100038, "");
static_assert(ACL_ERROR_COMPILING_STUB_MODE == 100039, "");
static_assert(ACL_ERROR_GROUP_NOT_SET == 100040, "");
static_assert(ACL_ERROR_GROUP_NOT_CREATE == 100041, "");
static_assert(ACL_ERROR_PROF_ALREADY_RUN == 100042, "");
static_assert(ACL_ERROR_PROF_NOT_RUN == 100043, "");
static_assert(ACL_ERROR_DUMP_ALREADY_RUN == 100044, "");
static_assert(ACL_ERROR_DUMP_NOT_RUN == 100045, "");
static_assert(ACL_ERROR_PROF_REPEAT_SUBSCRIBE == 148046, "");
static_assert(ACL_ERROR_PROF_API_CONFLICT == 148047, "");
static_assert(ACL_ERROR_INVALID_MAX_OPQUEUE_NUM_CONFIG == 148048, "");
static_assert(ACL_ERROR_INVALID_OPP_PATH == 148049, "");
static_assert(ACL_ERROR_OP_UNSUPPORTED_DYNAMIC == 148050, "");
static_assert(ACL_ERROR_RELATIVE_RESOURCE_NOT_CLEARED == 148051, "");
static_assert(ACL_ERROR_UNSUPPORTED_JPEG == 148052, "");
static_assert(ACL_ERROR_INVALID_BUNDLE_MODEL_ID == 148053, "");
static_assert(ACL_ERROR_BAD_ALLOC == 200000, "");
static_assert(ACL_ERROR_API_NOT_SUPPORT == 200001, "");
static_assert(ACL_ERROR_INVALID_DEVICE == 200002, "");
static_assert(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED == 200003, "");
static_assert(ACL_ERROR_RESOURCE_NOT_MATCH == 200004, "");
static_assert(ACL_ERROR_INVALID_RESOURCE_HANDLE == 200005, "");
static_assert(ACL_ERROR_FEATURE_UNSUPPORTED == 200006, "");
static_assert(ACL_ERROR_PROF_MODULES_UNSUPPORTED == 200007, "");
static_assert(ACL_ERROR_STORAGE_OVER_LIMIT == 300000, "");
static_assert(ACL_ERROR_INTERNAL_ERROR == 500000, "");
static_assert(ACL_ERROR_FAILURE == 500001, "");
static_assert(ACL_ERROR_GE_FAILURE == 500002, "");
static_assert(ACL_ERROR_RT_FAILURE == 500003, "");
static_assert(ACL_ERROR_DRV_FAILURE == 500004, "");
static_assert(ACL_ERROR_PROFILING_FAILURE == 500005, "");

// ---- runtime codes (macros) ----
static_assert(ACL_RT_SUCCESS == 0, "");
static_assert(ACL_ERROR_RT_PARAM_INVALID == 107000, "");
static_assert(ACL_ERROR_RT_INVALID_DEVICEID == 107001, "");
static_assert(ACL_ERROR_RT_CONTEXT_NULL == 107002, "");
static_assert(ACL_ERROR_RT_STREAM_CONTEXT == 107003, "");
static_assert(ACL_ERROR_RT_ADDR_UNALIGNED == 107008, "");
static_assert(ACL_ERROR_RT_INVALID_HANDLE == 107017, "");
static_assert(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET == 107021, "");
static_assert(ACL_ERROR_RT_DEVICE_TASK_ABORT == 107022, "");
static_assert(ACL_ERROR_RT_FEATURE_NOT_SUPPORT == 207000, "");
static_assert(ACL_ERROR_RT_MEMORY_ALLOCATION == 207001, "");
static_assert(ACL_ERROR_RT_MEMORY_FREE == 207002, "");
static_assert(ACL_ERROR_RT_NO_DEVICE == 207004, "");
static_assert(ACL_ERROR_RT_INTERNAL_ERROR == 507000, "");
static_assert(ACL_ERROR_RT_STREAM_NOT_COMPLETE == 507004, "");

// ---- 1.5 aclnnStatus codes (only from opdev/op_errno.h) ----
static_assert(ACLNN_SUCCESS == 0, "");
static_assert(ACLNN_ERR_PARAM_NULLPTR == 161001, "");
static_assert(ACLNN_ERR_PARAM_INVALID == 161002, "");
static_assert(ACLNN_ERR_RUNTIME_ERROR == 361001, "");
static_assert(ACLNN_ERR_INNER == 561000, "");
static_assert(ACLNN_ERR_INNER_INFERSHAPE_ERROR == 561001, "");
static_assert(ACLNN_ERR_INNER_TILING_ERROR == 561002, "");
static_assert(ACLNN_ERR_INNER_FIND_KERNEL_ERROR == 561003, "");
static_assert(ACLNN_ERR_INNER_CREATE_EXECUTOR == 561101, "");
static_assert(ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR == 561102, "");
static_assert(ACLNN_ERR_INNER_NULLPTR == 561103, "");
static_assert(ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE == 561104, "");
static_assert(ACLNN_ERR_INNER_KEY_CONFILICT == 561105, "");
static_assert(ACLNN_ERR_INNER_KEY_CONFLICT == 561105, "");
static_assert(ACLNN_ERR_INNER_INVALID_IMPL_MODE == 561106, "");
static_assert(ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND == 561107, "");
static_assert(ACLNN_ERR_INNER_LOAD_JSON_FAILED == 561108, "");
static_assert(ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND == 561109, "");
static_assert(ACLNN_ERR_INNER_JSON_FORMAT_INVALID == 561110, "");
static_assert(ACLNN_ERR_INNER_JSON_DTYPE_INVALID == 561111, "");
static_assert(ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND == 561112, "");
static_assert(ACLNN_ERR_INNER_OP_FILE_INVALID == 561113, "");
static_assert(ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND == 561114, "");
static_assert(ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH == 561115, "");
static_assert(ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE == 561116, "");
static_assert(ACLNN_ERR_INNER_INPUT_JSON_IS_NULL == 561117, "");
static_assert(ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID == 561118, "");
static_assert(ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID == 561119, "");

// ---- section 2: every function signature, exactly (top-level const is not part of it) ----
#define SPEC_SIGNATURE(fn, ...) \
  static_assert(std::is_same<decltype(&fn), __VA_ARGS__>::value, #fn " signature differs")

// 2.1 acl_meta.h
SPEC_SIGNATURE(aclCreateTensor,
               aclTensor* (*)(const int64_t*, uint64_t, aclDataType, const int64_t*, int64_t,
                              aclFormat, const int64_t*, uint64_t, void*));
SPEC_SIGNATURE(aclCreateScalar, aclScalar* (*)(void*, aclDataType));
SPEC_SIGNATURE(aclCreateIntArray, aclIntArray* (*)(const int64_t*, uint64_t));
SPEC_SIGNATURE(aclCreateFloatArray, aclFloatArray* (*)(const float*, uint64_t));
SPEC_SIGNATURE(aclCreateBoolArray, aclBoolArray* (*)(const bool*, uint64_t));
SPEC_SIGNATURE(aclCreateTensorList, aclTensorList* (*)(const aclTensor* const*, uint64_t));
SPEC_SIGNATURE(aclCreateScalarList, aclScalarList* (*)(const aclScalar* const*, uint64_t));
SPEC_SIGNATURE(aclDestroyTensor, aclnnStatus (*)(const aclTensor*));
SPEC_SIGNATURE(aclDestroyScalar, aclnnStatus (*)(const aclScalar*));
SPEC_SIGNATURE(aclDestroyIntArray, aclnnStatus (*)(const aclIntArray*));
SPEC_SIGNATURE(aclDestroyFloatArray, aclnnStatus (*)(const aclFloatArray*));
SPEC_SIGNATURE(aclDestroyBoolArray, aclnnStatus (*)(const aclBoolArray*));
SPEC_SIGNATURE(aclDestroyTensorList, aclnnStatus (*)(const aclTensorList*));
SPEC_SIGNATURE(aclDestroyScalarList, aclnnStatus (*)(const aclScalarList*));
SPEC_SIGNATURE(aclGetViewShape, aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*));
SPEC_SIGNATURE(aclGetStorageShape, aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*));
SPEC_SIGNATURE(aclGetViewStrides, aclnnStatus (*)(const aclTensor*, int64_t**, uint64_t*));
SPEC_SIGNATURE(aclGetViewOffset, aclnnStatus (*)(const aclTensor*, int64_t*));
SPEC_SIGNATURE(aclGetFormat, aclnnStatus (*)(const aclTensor*, aclFormat*));
SPEC_SIGNATURE(aclGetDataType, aclnnStatus (*)(const aclTensor*, aclDataType*));
SPEC_SIGNATURE(aclGetIntArraySize, aclnnStatus (*)(const aclIntArray*, uint64_t*));
SPEC_SIGNATURE(aclGetFloatArraySize, aclnnStatus (*)(const aclFloatArray*, uint64_t*));
SPEC_SIGNATURE(aclGetBoolArraySize, aclnnStatus (*)(const aclBoolArray*, uint64_t*));
SPEC_SIGNATURE(aclGetTensorListSize, aclnnStatus (*)(const aclTensorList*, uint64_t*));
SPEC_SIGNATURE(aclGetScalarListSize, aclnnStatus (*)(const aclScalarList*, uint64_t*));
SPEC_SIGNATURE(aclInitTensor,
               aclnnStatus (*)(aclTensor*, const int64_t*, uint64_t, aclDataType, const int64_t*,
                               int64_t, aclFormat, const int64_t*, uint64_t, void*));
SPEC_SIGNATURE(aclSetAclOpExecutorRepeatable, aclnnStatus (*)(aclOpExecutor*));
SPEC_SIGNATURE(aclDestroyAclOpExecutor, aclnnStatus (*)(aclOpExecutor*));
using TensorAddrSetter = aclnnStatus (*)(aclOpExecutor*, size_t, aclTensor*, void*);
using DynamicTensorAddrSetter = aclnnStatus (*)(aclOpExecutor*, size_t, size_t, aclTensorList*,
                                                void*);
SPEC_SIGNATURE(aclSetInputTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(aclSetOutputTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(aclSetTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(aclSetDynamicInputTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(aclSetDynamicOutputTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(aclSetDynamicTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(AclSetInputTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(AclSetOutputTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(AclSetTensorAddr, TensorAddrSetter);
SPEC_SIGNATURE(AclSetDynamicInputTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(AclSetDynamicOutputTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(AclSetDynamicTensorAddr, DynamicTensorAddrSetter);
SPEC_SIGNATURE(aclSetRawTensorAddr, aclnnStatus (*)(aclTensor*, void*));
SPEC_SIGNATURE(aclGetRawTensorAddr, aclnnStatus (*)(const aclTensor*, void**));

// 2.2 aclnn_base.h
SPEC_SIGNATURE(aclnnInit, aclnnStatus (*)(const char*));
SPEC_SIGNATURE(aclnnFinalize, aclnnStatus (*)());

// 2.3 / 2.4 acl.h and acl_rt.h
SPEC_SIGNATURE(aclInit, aclError (*)(const char*));
SPEC_SIGNATURE(aclFinalize, aclError (*)());
SPEC_SIGNATURE(aclFinalizeReference, aclError (*)(uint64_t*));
SPEC_SIGNATURE(aclGetRecentErrMsg, const char* (*)());
SPEC_SIGNATURE(aclrtGetVersion, aclError (*)(int32_t*, int32_t*, int32_t*));
SPEC_SIGNATURE(aclrtSetDevice, aclError (*)(int32_t));
SPEC_SIGNATURE(aclrtResetDevice, aclError (*)(int32_t));
SPEC_SIGNATURE(aclrtGetDevice, aclError (*)(int32_t*));
SPEC_SIGNATURE(aclrtGetDeviceCount, aclError (*)(uint32_t*));
SPEC_SIGNATURE(aclrtSynchronizeDevice, aclError (*)());
SPEC_SIGNATURE(aclrtCreateContext, aclError (*)(aclrtContext*, int32_t));
SPEC_SIGNATURE(aclrtDestroyContext, aclError (*)(aclrtContext));
SPEC_SIGNATURE(aclrtSetCurrentContext, aclError (*)(aclrtContext));
SPEC_SIGNATURE(aclrtGetCurrentContext, aclError (*)(aclrtContext*));
SPEC_SIGNATURE(aclrtCtxSetSysParamOpt, aclError (*)(aclSysParamOpt, int64_t));
SPEC_SIGNATURE(aclrtCtxGetSysParamOpt, aclError (*)(aclSysParamOpt, int64_t*));
SPEC_SIGNATURE(aclrtSetSysParamOpt, aclError (*)(aclSysParamOpt, int64_t));
SPEC_SIGNATURE(aclrtGetSysParamOpt, aclError (*)(aclSysParamOpt, int64_t*));
SPEC_SIGNATURE(aclrtCreateStream, aclError (*)(aclrtStream*));
SPEC_SIGNATURE(aclrtCreateStreamWithConfig, aclError (*)(aclrtStream*, uint32_t, uint32_t));
SPEC_SIGNATURE(aclrtDestroyStream, aclError (*)(aclrtStream));
SPEC_SIGNATURE(aclrtSynchronizeStream, aclError (*)(aclrtStream));
SPEC_SIGNATURE(aclrtSynchronizeStreamWithTimeout, aclError (*)(aclrtStream, int32_t));
SPEC_SIGNATURE(aclrtMalloc, aclError (*)(void**, size_t, aclrtMemMallocPolicy));
SPEC_SIGNATURE(aclrtMallocHost, aclError (*)(void**, size_t));
SPEC_SIGNATURE(aclrtFree, aclError (*)(void*));
SPEC_SIGNATURE(aclrtFreeHost, aclError (*)(void*));
SPEC_SIGNATURE(aclrtMemcpy, aclError (*)(void*, size_t, const void*, size_t, aclrtMemcpyKind));
SPEC_SIGNATURE(aclrtMemcpyAsync,
               aclError (*)(void*, size_t, const void*, size_t, aclrtMemcpyKind, aclrtStream));
SPEC_SIGNATURE(aclrtMemset, aclError (*)(void*, size_t, int32_t, size_t));
SPEC_SIGNATURE(aclrtMemsetAsync, aclError (*)(void*, size_t, int32_t, size_t, aclrtStream));
SPEC_SIGNATURE(aclrtGetRunMode, aclError (*)(aclrtRunMode*));

// 2.5 acl_base.h helpers
SPEC_SIGNATURE(aclFloat16ToFloat, float (*)(aclFloat16));
SPEC_SIGNATURE(aclFloatToFloat16, aclFloat16 (*)(float));
SPEC_SIGNATURE(aclDataTypeSize, size_t (*)(aclDataType));
SPEC_SIGNATURE(aclrtGetSocName, const char* (*)());

// 2.6 convolution backward, and section 5 forward ops
SPEC_SIGNATURE(aclnnConvolutionBackwardGetWorkspaceSize,
               aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclTensor*,
                               const aclIntArray*, const aclIntArray*, const aclIntArray*,
                               const aclIntArray*, bool, const aclIntArray*, int,
                               const aclBoolArray*, int8_t, aclTensor*, aclTensor*, aclTensor*,
                               uint64_t*, aclOpExecutor**));
using OpLauncher = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
SPEC_SIGNATURE(aclnnConvolutionBackward, OpLauncher);
SPEC_SIGNATURE(aclnnConvTbcBackwardGetWorkspaceSize,
               aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclTensor*,
                               const aclTensor*, int64_t, int8_t, aclTensor*, aclTensor*,
                               aclTensor*, uint64_t*, aclOpExecutor**));
SPEC_SIGNATURE(aclnnConvTbcBackward, OpLauncher);
SPEC_SIGNATURE(aclnnConvolutionGetWorkspaceSize,
               aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclTensor*,
                               const aclIntArray*, const aclIntArray*, const aclIntArray*, bool,
                               const aclIntArray*, int64_t, aclTensor*, int8_t, uint64_t*,
                               aclOpExecutor**));
SPEC_SIGNATURE(aclnnConvolution, OpLauncher);
SPEC_SIGNATURE(aclnnConvTbcGetWorkspaceSize,
               aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclTensor*, int64_t,
                               aclTensor*, int8_t, uint64_t*, aclOpExecutor**));
SPEC_SIGNATURE(aclnnConvTbc, OpLauncher);
SPEC_SIGNATURE(aclnnConvDepthwise2dGetWorkspaceSize,
               aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclIntArray*,
                               const aclTensor*, const aclIntArray*, const aclIntArray*,
                               const aclIntArray*, aclTensor*, int8_t, uint64_t*, aclOpExecutor**));
SPEC_SIGNATURE(aclnnConvDepthwise2d, OpLauncher);

// The sample programs' RAII idioms must type-check (spec section 0).
using TensorHolder = std::unique_ptr<aclTensor, aclnnStatus (*)(const aclTensor*)>;
using DeviceMemoryHolder = std::unique_ptr<void, aclError (*)(void*)>;
static_assert(std::is_constructible<TensorHolder, aclTensor*, decltype(&aclDestroyTensor)>::value,
              "unique_ptr<aclTensor> with aclDestroyTensor");
static_assert(std::is_constructible<DeviceMemoryHolder, void*, decltype(&aclrtFree)>::value,
              "unique_ptr<void> with aclrtFree");

}  // namespace
