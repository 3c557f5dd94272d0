#include "small_conv.h"

#include <cstring>

#include "raw_tensor.h"

namespace robustness {
namespace {

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && p > (int64_t{1} << 40) / d)) return -1;
    p *= d;
  }
  return p;
}

aclFormat formatFor(size_t rank) {
  return rank == 4   ? ACL_FORMAT_NCHW
         : rank == 5 ? ACL_FORMAT_NCDHW
         : rank == 3 ? ACL_FORMAT_NCL
                     : ACL_FORMAT_ND;
}

}  // namespace

std::string takeErrors() {
  const char* text = aclGetRecentErrMsg();
  return text ? std::string(text) : std::string();
}

SmallConv::SmallConv() {
  spec[kGradOutput].shape = {1, 2, 4, 4};
  spec[kInput].shape = {1, 2, 4, 4};
  spec[kWeight].shape = {2, 2, 3, 3};
  spec[kGradInput].shape = {1, 2, 4, 4};
  spec[kGradWeight].shape = {2, 2, 3, 3};
  spec[kGradBias].shape = {2};
}

SmallConv::~SmallConv() {
  if (executor_) aclDestroyAclOpExecutor(executor_);
  for (aclTensor* t : tensors_)
    if (t) aclDestroyTensor(t);
  for (aclIntArray* a : arrays_)
    if (a) aclDestroyIntArray(a);
  if (maskArray_) aclDestroyBoolArray(maskArray_);
  for (void* b : buffers_)
    if (b) aclrtFree(b);
  if (workspace_) aclrtFree(workspace_);
}

void SmallConv::create(Slot s) {
  const TensorSpec& t = spec[s];
  const std::vector<int64_t>& storage = t.storage.empty() ? t.shape : t.storage;
  const int64_t count = product(storage);
  const size_t elementBytes = t.dtype == ACL_FLOAT ? 4 : 2;
  if (t.dataFrom >= 0 && t.dataFrom < s) {
    void* shared = static_cast<char*>(buffers_[t.dataFrom]) + t.dataOffsetBytes;
    aclDataType dtype = t.dtype;
    tensors_[s] = aclCreateTensor(
        t.shape.data(), t.shape.size(), dtype, t.strides.empty() ? nullptr : t.strides.data(),
        t.offset, s == kGradBias ? ACL_FORMAT_ND : formatFor(t.shape.size()),
        t.hasStorage ? storage.data() : nullptr, t.hasStorage ? storage.size() : 0, shared);
    return;
  }
  if (!t.nullData && count > 0 && count <= (int64_t{1} << 20)) {
    bufferBytes_[s] = static_cast<size_t>(count) * elementBytes;
    if (aclrtMalloc(&buffers_[s], bufferBytes_[s], ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      buffers_[s] = nullptr;
      bufferBytes_[s] = 0;
    }
  }
  if (buffers_[s]) {
    const bool isInput = s <= kWeight;
    if (isInput && t.dtype == ACL_FLOAT) {
      auto* f = static_cast<float*>(buffers_[s]);
      for (size_t i = 0; i < bufferBytes_[s] / 4; ++i)
        f[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25f;
    } else {
      std::memset(buffers_[s], isInput ? 0x3c : 0xa5, bufferBytes_[s]);
    }
  }
  const int32_t dtype = t.rawDtype != -2 ? t.rawDtype : static_cast<int32_t>(t.dtype);
  int32_t format = s == kGradBias ? ACL_FORMAT_ND : formatFor(t.shape.size());
  if (t.rawFormat != -2) format = t.rawFormat;
  tensors_[s] = createTensorRaw(t.shape.data(), t.shape.size(), dtype,
                                t.strides.empty() ? nullptr : t.strides.data(), t.offset, format,
                                t.hasStorage ? storage.data() : nullptr,
                                t.hasStorage ? storage.size() : 0, buffers_[s]);
}

aclnnStatus SmallConv::plan() {
  for (int s = 0; s < kSlots; ++s) create(static_cast<Slot>(s));
  const int64_t ones[] = {1, 1}, zeros[] = {0, 0}, channels = 2;
  arrays_[0] = aclCreateIntArray(stride, 2);
  arrays_[1] = aclCreateIntArray(padding, 2);
  arrays_[2] = aclCreateIntArray(ones, 2);
  arrays_[3] = aclCreateIntArray(zeros, 2);
  arrays_[4] = aclCreateIntArray(&channels, 1);
  maskArray_ = aclCreateBoolArray(mask, 3);
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      tensors_[kGradOutput], tensors_[kInput], tensors_[kWeight], arrays_[4], arrays_[0],
      arrays_[1], arrays_[2], false, arrays_[3], 1, maskArray_, 0, tensors_[kGradInput],
      tensors_[kGradWeight], tensors_[kGradBias], &workspaceSize_, &executor_);
  if (status != 0) {
    executor_ = nullptr;
    return status;
  }
  if (repeatable) aclSetAclOpExecutorRepeatable(executor_);
  if (workspaceSize_ != 0 &&
      aclrtMalloc(&workspace_, workspaceSize_, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    workspace_ = nullptr;
  return status;
}

aclnnStatus SmallConv::launch(aclrtStream stream) {
  const aclnnStatus status =
      aclnnConvolutionBackward(workspace_, workspaceSize_, executor_, stream);
  if (status == 0 && !repeatable) executor_ = nullptr;  // a one-shot is consumed
  return status;
}

std::vector<float> SmallConv::values(Slot s) const {
  std::vector<float> v(bufferBytes_[s] / 4);
  if (buffers_[s]) std::memcpy(v.data(), buffers_[s], v.size() * 4);
  return v;
}

}  // namespace robustness
