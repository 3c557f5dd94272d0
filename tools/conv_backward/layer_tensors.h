#pragma once
// The tensors of one layer (one ProblemSpec), shared by every operator the
// tool drives and by both phases of a training step: each role (x, w, b, y,
// dy, dX, dW, db) is one aclTensor and one device buffer, whichever operator
// call uses it.
//
// Two device layouts:
//   channels-first  NCL / NCHW / NCDHW, as aclnnConvolution(Backward) and
//                   aclnnConvDepthwise2d take them (the reference's own layout);
//   time-major      aclnnConvTbc(Backward): x [T, B, C_in], w [K, C_in, C_out],
//                   y and dy [T_out, B, C_out], format ND.
// The reference always reads the channels-first form; reader() and
// deviceIndex() translate.
//
// Descriptors are created first, without data, so that phase 1 judges a
// problem before anything big is allocated; allocate() then gives every
// created tensor its buffer.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "problem_spec.h"
#include "reference/reference_conv.h"

enum class Role { kX = 0, kW, kB, kY, kDY, kDX, kDW, kDB };
constexpr int kRoleCount = 8;

enum class Layout { kChannelsFirst, kTimeMajor };

std::string shapeText(const std::vector<int64_t>& shape);
std::string bytesText(uint64_t bytes);
std::string recentMessage();  // aclGetRecentErrMsg, or "(no message)"

class LayerTensors {
 public:
  LayerTensors(const ProblemSpec& spec, Layout layout, aclDataType dtype);
  ~LayerTensors();
  LayerTensors(const LayerTensors&) = delete;
  LayerTensors& operator=(const LayerTensors&) = delete;

  // Creates the data-less descriptors of `tensors` (API name, role), in
  // that order; false with *error set when aclCreateTensor refuses one.
  bool create(const std::vector<std::pair<std::string, Role>>& tensors, std::string* error);
  // The role's descriptor, null when it was not created.
  aclTensor* tensor(Role role) const;
  // Shape in the device layout (what the operator sees) and in the
  // reference's channels-first layout.
  const std::vector<int64_t>& deviceShape(Role role) const;
  const std::vector<int64_t>& referenceShape(Role role) const;
  int64_t count(Role role) const;

  // Buffers for the created roles of `order` (at least one byte each), in
  // that order; false with *error naming the tensor (by the name given with
  // it) and the size when one cannot be allocated.
  bool allocate(const std::vector<std::pair<std::string, Role>>& order, std::string* error);
  void* data(Role role) const;

  // Uniform random values in [-1, 1], representable in the dtype, for each
  // created role of `roles` in that order, uploaded and kept for the check.
  void fillRandom(const std::vector<Role>& roles, std::mt19937& rng);
  // Device contents in device order, decoded to float.
  std::vector<float> download(Role role) const;
  // Adds 1 to the first element of the role's buffer (the check's
  // self-test, ACLNN_CONV_INJECT_ERROR).
  void corruptFirstElement(Role role);

  // Position in the device buffer of the element at channels-first flat
  // index `referenceIndex`.
  int64_t deviceIndex(Role role, int64_t referenceIndex) const;
  // The uploaded values read at channels-first flat indices, rounded as
  // `rounding` says, optionally as absolute values (the error bound).
  aclcpu::reference::ElementReader reader(Role role, aclcpu::reference::OperandRounding rounding,
                                          bool absolute) const;

 private:
  struct Slot {
    std::vector<int64_t> deviceShape, referenceShape;
    std::vector<int> permutation;  // device dim i is reference dim permutation[i]; empty: same
    aclFormat format = ACL_FORMAT_ND;
    aclTensor* tensor = nullptr;
    void* data = nullptr;
    size_t bytes = 0;
    std::vector<float> values;  // what fillRandom uploaded
  };
  Slot& slot(Role role) { return slots_[static_cast<int>(role)]; }
  const Slot& slot(Role role) const { return slots_[static_cast<int>(role)]; }

  aclDataType dtype_;
  Slot slots_[kRoleCount];
};
