// Fuzz target: aclnnConvTbcBackwardGetWorkspaceSize with hostile
// descriptors (a consistent time-major problem damaged in a few places), then
// the run of every accepted call, as conv_backward_phase1_fuzz does.

#include <memory>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "fuzz_target.h"
#include "fuzz_tensor.h"

namespace {

using fuzz::FuzzBytes;
using fuzz::FuzzTensor;
using fuzz::ViewLayout;

constexpr uint8_t kOutputFill = 0xA5;
constexpr uint64_t kMaxWorkspace = uint64_t{64} << 20;

bool documented(aclnnStatus s) { return s == 0 || s == 161001 || s == 161002 || s == 561103; }

int32_t hostileDtype(FuzzBytes& in) {
  static const int32_t kValues[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE,
                                    ACL_INT32, 1000,        -3,       ACL_DT_UNDEFINED};
  return kValues[in.byte() % 8];
}

int32_t hostileFormat(FuzzBytes& in) {
  static const int32_t kValues[] = {ACL_FORMAT_ND,   ACL_FORMAT_NCL, ACL_FORMAT_NCHW,
                                    ACL_FORMAT_NHWC, 1000,           ACL_FORMAT_UNDEFINED};
  return kValues[in.byte() % 6];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialized = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    return true;
  }();
  (void)initialized;
  FuzzBytes in(data, size);
  const int64_t length = in.range(1, 6), batch = in.range(1, 2), cin = in.range(1, 3),
                cout = in.range(1, 3), kernel = in.range(1, 3);
  int64_t pad = in.range(0, 2);
  if (length + 2 * pad - kernel + 1 < 1) pad = (kernel - length + 1) / 2 + 1;
  const int64_t outLength = length + 2 * pad - kernel + 1;
  // self, input, weight, bias, gradInput, gradWeight, gradBias.
  std::vector<int64_t> shapes[7] = {{outLength, batch, cout},
                                    {length, batch, cin},
                                    {kernel, cin, cout},
                                    {cout},
                                    {length, batch, cin},
                                    {kernel, cin, cout},
                                    {cout}};
  int32_t dtypes[7], formats[7];
  for (int t = 0; t < 7; ++t) {
    dtypes[t] = in.byte() < 200 ? ACL_FLOAT : hostileDtype(in);
    formats[t] = ACL_FORMAT_ND;
  }
  bool nullTensor[7] = {}, nullData[7] = {}, damaged[7] = {};
  int8_t cubeMathType = static_cast<int8_t>(in.range(0, 3));
  const int damages = in.byte() % 5;
  for (int k = 0; k < damages; ++k) {
    const int t = static_cast<int>(in.range(0, 6));
    switch (in.byte() % 8) {
      case 0:
        shapes[t][static_cast<size_t>(in.range(0, static_cast<int64_t>(shapes[t].size()) - 1))] =
            in.byte() % 2 ? in.range(0, 9) : in.hostile();
        break;
      case 1:
        if (in.flag() && shapes[t].size() > 1)
          shapes[t].pop_back();
        else
          shapes[t].push_back(in.range(0, 3));
        break;
      case 2:
        damaged[t] = true;
        break;
      case 3:
        dtypes[t] = hostileDtype(in);
        break;
      case 4:
        formats[t] = hostileFormat(in);
        break;
      case 5:
        nullTensor[t] = in.byte() % 4 == 0;
        nullData[t] = !nullTensor[t];
        break;
      case 6:
        pad = in.hostile();
        break;
      default:
        cubeMathType = static_cast<int8_t>(in.byte());
        break;
    }
  }
  std::unique_ptr<FuzzTensor> tensors[7];
  for (int t = 0; t < 7; ++t) {
    if (nullTensor[t]) continue;
    ViewLayout layout = fuzz::validLayout(in, shapes[t]);
    if (damaged[t]) fuzz::damageLayout(in, &layout);
    tensors[t] = std::make_unique<FuzzTensor>(layout, dtypes[t], formats[t], nullData[t],
                                              t >= 4 ? kOutputFill : 0x3C);
  }
  auto at = [&](int t) { return tensors[t] ? tensors[t]->get() : nullptr; };
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status =
      aclnnConvTbcBackwardGetWorkspaceSize(at(0), at(1), at(2), at(3), pad, cubeMathType, at(4),
                                           at(5), at(6), &workspaceSize, &executor);
  const char* message = aclGetRecentErrMsg();
  FUZZ_REQUIRE(documented(status), "phase 1 status %d", status);
  FUZZ_REQUIRE(status == 0 || (message && *message), "status %d without a message", status);
  if (status != 0) return 0;
  void* workspace = nullptr;
  if (workspaceSize > kMaxWorkspace ||
      (workspaceSize != 0 &&
       aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)) {
    aclDestroyAclOpExecutor(executor);
    return 0;
  }
  const aclnnStatus launched = aclnnConvTbcBackward(workspace, workspaceSize, executor, nullptr);
  FUZZ_REQUIRE(launched == 0 || launched == 161001 || launched == 161002, "phase 2 status %d: %s",
               launched, aclGetRecentErrMsg());
  if (launched == 0) {
    const aclError synced = aclrtSynchronizeStream(nullptr);
    FUZZ_REQUIRE(synced == ACL_SUCCESS, "run failed (%d): %s", synced, aclGetRecentErrMsg());
    for (int t = 4; t < 7; ++t)
      if (tensors[t])
        FUZZ_REQUIRE(fuzz::onlyViewWritten(*tensors[t], kOutputFill),
                     "output %d written outside its view", t);
  } else {
    aclGetRecentErrMsg();
    aclDestroyAclOpExecutor(executor);
  }
  if (workspace) aclrtFree(workspace);
  return 0;
}
