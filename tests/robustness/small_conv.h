#pragma once
// One small aclnnConvolutionBackward call (2D, N=1, C=2, H=W=4, 2x2x3x3
// weight, padding 1) whose six tensors can each be given any view, storage
// and data address, for the view, address and handle regression tests and
// the fuzz targets. Buffers come from aclrtMalloc, sized exactly as each
// tensor's storage says, so the launch's block checks and ASan both see any
// byte written outside them.

#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"

namespace robustness {

enum Slot { kGradOutput, kInput, kWeight, kGradInput, kGradWeight, kGradBias, kSlots };

// How one tensor is created; the defaults are a dense view over exactly its
// own storage.
struct TensorSpec {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: row-major
  int64_t offset = 0;
  bool hasStorage = true;
  std::vector<int64_t> storage;  // empty with hasStorage: the shape
  aclDataType dtype = ACL_FLOAT;
  int32_t rawDtype = -2;  // != -2: passed to aclCreateTensor as this raw value
  int32_t rawFormat = -2;
  bool nullData = false;  // create the tensor with a null data address
  int dataFrom = -1;      // >= 0: use that (earlier) slot's buffer, dataOffsetBytes into it
  size_t dataOffsetBytes = 0;
};

class SmallConv {
 public:
  SmallConv();
  ~SmallConv();
  SmallConv(const SmallConv&) = delete;
  SmallConv& operator=(const SmallConv&) = delete;

  TensorSpec spec[kSlots];
  bool mask[3] = {true, true, true};
  bool repeatable = false;  // made repeatable right after phase 1
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {1, 1};

  // Creates the tensors (and their buffers, filled with a fixed pattern for
  // inputs and a sentinel for outputs) and runs phase 1.
  aclnnStatus plan();
  // Phase 2 on `stream` (then synchronize when asked); the workspace is
  // allocated here.
  aclnnStatus launch(aclrtStream stream = nullptr);
  aclError synchronize(aclrtStream stream = nullptr) { return aclrtSynchronizeStream(stream); }

  aclTensor* tensor(Slot s) const { return tensors_[s]; }
  void* buffer(Slot s) const { return buffers_[s]; }
  size_t bufferBytes(Slot s) const { return bufferBytes_[s]; }
  aclOpExecutor* executor() const { return executor_; }
  uint64_t workspaceSize() const { return workspaceSize_; }
  // The buffer's float values (fp32 tensors only).
  std::vector<float> values(Slot s) const;

  // Forgets the executor without destroying it (after a one-shot launch).
  void releaseExecutor() { executor_ = nullptr; }

 private:
  void create(Slot s);

  aclTensor* tensors_[kSlots] = {};
  void* buffers_[kSlots] = {};
  size_t bufferBytes_[kSlots] = {};
  void* workspace_ = nullptr;
  uint64_t workspaceSize_ = 0;
  aclOpExecutor* executor_ = nullptr;
  aclIntArray* arrays_[5] = {};  // stride, padding, dilation, outputPadding, biasSizes
  aclBoolArray* maskArray_ = nullptr;
};

// The calling thread's recorded messages, cleared.
std::string takeErrors();

// True if `text` contains `part`.
inline bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace robustness
