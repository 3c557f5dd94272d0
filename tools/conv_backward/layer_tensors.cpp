#include "layer_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "host_dtype.h"

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string bytesText(uint64_t bytes) {
  char text[64];
  if (bytes >= (1ull << 30))
    std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  else if (bytes >= (1ull << 20))
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1ull << 20));
  else
    std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
  return text;
}

std::string recentMessage() {
  const char* message = aclGetRecentErrMsg();
  return message && *message ? message : "(no message)";
}

namespace {

// Element count of a shape phase 1 accepted (so it fits in 64 bits).
int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

aclFormat formatForRank(size_t rank) {
  return rank == 3 ? ACL_FORMAT_NCL : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
}

std::vector<int64_t> permuted(const std::vector<int64_t>& shape, const std::vector<int>& order) {
  std::vector<int64_t> out;
  for (int from : order) out.push_back(shape[static_cast<size_t>(from)]);
  return out;
}

}  // namespace

LayerTensors::LayerTensors(const ProblemSpec& spec, Layout layout, aclDataType dtype)
    : dtype_(dtype) {
  const std::vector<int64_t> x = spec.inputShape(), w = spec.weightShape(),
                             y = spec.gradOutputShape(), b = {y[1]};
  const std::vector<int64_t>* reference[kRoleCount] = {&x, &w, &b, &y, &y, &x, &w, &b};
  // Time-major: x and y [T, B, C] from [B, C, T]; w [K, C_in, C_out] from [C_out, C_in, K].
  const std::vector<int> activation = {2, 0, 1}, filter = {2, 1, 0};
  const std::vector<int>* order[kRoleCount] = {&activation, &filter,     nullptr, &activation,
                                               &activation, &activation, &filter, nullptr};
  for (int r = 0; r < kRoleCount; ++r) {
    Slot& s = slots_[r];
    s.referenceShape = *reference[r];
    const bool isVector = reference[r] == &b;
    if (layout == Layout::kTimeMajor && order[r] && s.referenceShape.size() == 3) {
      s.permutation = *order[r];
      s.deviceShape = permuted(s.referenceShape, s.permutation);
      s.format = ACL_FORMAT_ND;
    } else {
      s.deviceShape = s.referenceShape;
      s.format = isVector || layout == Layout::kTimeMajor ? ACL_FORMAT_ND
                                                          : formatForRank(s.deviceShape.size());
    }
  }
}

LayerTensors::~LayerTensors() {
  for (Slot& s : slots_) {
    if (s.tensor) aclDestroyTensor(s.tensor);
    if (s.data) aclrtFree(s.data);
  }
}

bool LayerTensors::create(const std::vector<std::pair<std::string, Role>>& tensors,
                          std::string* error) {
  for (const auto& entry : tensors) {
    Slot& s = slot(entry.second);
    if (s.tensor) continue;
    s.tensor = aclCreateTensor(s.deviceShape.data(), s.deviceShape.size(), dtype_, nullptr, 0,
                               s.format, s.deviceShape.data(), s.deviceShape.size(), nullptr);
    if (!s.tensor) {
      *error = "aclCreateTensor refused " + entry.first + " " + shapeText(s.deviceShape) + ": " +
               recentMessage();
      return false;
    }
  }
  return true;
}

aclTensor* LayerTensors::tensor(Role role) const { return slot(role).tensor; }
const std::vector<int64_t>& LayerTensors::deviceShape(Role role) const {
  return slot(role).deviceShape;
}
const std::vector<int64_t>& LayerTensors::referenceShape(Role role) const {
  return slot(role).referenceShape;
}
int64_t LayerTensors::count(Role role) const { return elements(slot(role).deviceShape); }
void* LayerTensors::data(Role role) const { return slot(role).data; }

bool LayerTensors::allocate(const std::vector<std::pair<std::string, Role>>& order,
                            std::string* error) {
  for (const auto& entry : order) {
    const std::string& name = entry.first;
    const Role role = entry.second;
    Slot& s = slot(role);
    if (!s.tensor || s.data) continue;
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(std::max<int64_t>(count(role), 1)),
                               static_cast<uint64_t>(hostdtype::bytes(dtype_)), &bytes)) {
      *error = name + " " + shapeText(s.deviceShape) + " does not fit in 64-bit memory";
      return false;
    }
    s.bytes = static_cast<size_t>(bytes);
    const aclError status = aclrtMalloc(&s.data, s.bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (status != ACL_SUCCESS) {
      s.data = nullptr;
      *error = "aclrtMalloc of " + bytesText(bytes) + " for " + name + " " +
               shapeText(s.deviceShape) + " failed (error " + std::to_string(status) +
               "): " + recentMessage();
      return false;
    }
  }
  return true;
}

void LayerTensors::fillRandom(const std::vector<Role>& roles, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Role role : roles) {
    Slot& s = slot(role);
    if (!s.data) continue;
    s.values.assign(static_cast<size_t>(count(role)), 0.0f);
    for (float& v : s.values) v = hostdtype::roundTo(dist(rng), dtype_);
    std::vector<unsigned char> raw(s.bytes);
    hostdtype::encode(s.values, dtype_, raw.data());
    aclrtMemcpy(s.data, s.bytes, raw.data(), raw.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  }
}

std::vector<float> LayerTensors::download(Role role) const {
  const Slot& s = slot(role);
  std::vector<unsigned char> raw(s.bytes);
  aclrtMemcpy(raw.data(), raw.size(), s.data, s.bytes, ACL_MEMCPY_DEVICE_TO_HOST);
  return hostdtype::decode(raw.data(), static_cast<size_t>(count(role)), dtype_);
}

void LayerTensors::corruptFirstElement(Role role) {
  Slot& s = slot(role);
  if (!s.data || count(role) == 0) return;
  std::vector<float> values = download(role);
  values[0] = hostdtype::roundTo(values[0] + 1.0f, dtype_);
  std::vector<unsigned char> raw(s.bytes);
  hostdtype::encode(values, dtype_, raw.data());
  aclrtMemcpy(s.data, s.bytes, raw.data(), raw.size(), ACL_MEMCPY_HOST_TO_DEVICE);
}

int64_t LayerTensors::deviceIndex(Role role, int64_t referenceIndex) const {
  const Slot& s = slot(role);
  if (s.permutation.empty()) return referenceIndex;
  const size_t rank = s.referenceShape.size();
  int64_t at[8] = {0};  // rank <= 5
  for (size_t i = rank; i-- > 0;) {
    at[i] = referenceIndex % s.referenceShape[i];
    referenceIndex /= s.referenceShape[i];
  }
  int64_t index = 0;
  for (size_t i = 0; i < rank; ++i)
    index = index * s.deviceShape[i] + at[static_cast<size_t>(s.permutation[i])];
  return index;
}

aclcpu::reference::ElementReader LayerTensors::reader(Role role,
                                                      aclcpu::reference::OperandRounding rounding,
                                                      bool absolute) const {
  const std::vector<float>* values = &slot(role).values;
  return [this, role, values, rounding, absolute](int64_t referenceIndex) {
    const float v = (*values)[static_cast<size_t>(deviceIndex(role, referenceIndex))];
    const double x = aclcpu::reference::roundOperand(v, rounding);
    return absolute ? std::fabs(x) : x;
  };
}
