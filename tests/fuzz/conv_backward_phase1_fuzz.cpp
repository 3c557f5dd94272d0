// Fuzz target: aclnnConvolutionBackwardGetWorkspaceSize with hostile
// descriptors. A consistent small problem is damaged in a few places (dims,
// ranks, views, storage, raw dtype and format values, attribute arrays,
// nulls, groups, cubeMathType); phase 1 must answer a documented status with
// a message, and an accepted call must run (or be refused at launch) without
// writing a byte outside its outputs' views (ASan sees the buffers' ends,
// the sentinel check the gaps inside them).

#include <memory>
#include <string>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "conv_problem.h"
#include "fuzz_target.h"
#include "fuzz_tensor.h"

namespace {

using fuzz::FuzzBytes;
using fuzz::FuzzTensor;
using fuzz::ViewLayout;

constexpr uint8_t kOutputFill = 0xA5;
constexpr uint64_t kMaxWorkspace = uint64_t{64} << 20;

bool documented(aclnnStatus s) { return s == 0 || s == 161001 || s == 161002 || s == 561103; }

int32_t dtypeChoice(FuzzBytes& in) {
  const uint8_t b = in.byte();
  if (b < 200) return b % 3 == 0 ? ACL_FLOAT : b % 3 == 1 ? ACL_FLOAT16 : ACL_BF16;
  static const int32_t kOthers[] = {ACL_DOUBLE, ACL_INT32, ACL_INT8,      ACL_DT_UNDEFINED,
                                    1000,       -7,        ACL_COMPLEX64, 64};
  return kOthers[b % 8];
}

int32_t formatChoice(FuzzBytes& in, int32_t usual) {
  const uint8_t b = in.byte();
  if (b < 220) return usual;
  static const int32_t kOthers[] = {ACL_FORMAT_ND,
                                    ACL_FORMAT_NHWC,
                                    ACL_FORMAT_NCHW,
                                    ACL_FORMAT_NCDHW,
                                    ACL_FORMAT_NCL,
                                    ACL_FORMAT_UNDEFINED,
                                    1000,
                                    -5};
  return kOthers[b % 8];
}

struct Arrays {
  std::vector<int64_t> values[5];  // stride, padding, dilation, outputPadding, biasSizes
  bool null[5] = {};
  std::vector<uint8_t> mask = {1, 1, 1};
  bool nullMask = false;
};

void damageArrays(FuzzBytes& in, Arrays* a) {
  const size_t which = in.byte() % 6;
  if (which == 5) {  // the mask
    const uint8_t b = in.byte();
    if (b % 5 == 0)
      a->nullMask = true;
    else if (b % 5 == 1)
      a->mask.resize(in.range(0, 4), 1);
    else if (!a->mask.empty())
      a->mask[in.range(0, static_cast<int64_t>(a->mask.size()) - 1)] ^= 1;
    return;
  }
  std::vector<int64_t>& v = a->values[which];
  switch (in.byte() % 4) {
    case 0:
      a->null[which] = true;
      break;
    case 1:
      v.resize(static_cast<size_t>(in.range(0, 5)), 1);
      break;
    default:
      if (!v.empty())
        v[static_cast<size_t>(in.range(0, static_cast<int64_t>(v.size()) - 1))] = in.hostile();
      break;
  }
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
  const fuzz::ConvProblem p = fuzz::consistentProblem(in, 6);
  // gradOutput, input, weight, gradInput, gradWeight, gradBias.
  std::vector<int64_t> shapes[6] = {p.gradOutput, p.input, p.weight, p.input, p.weight, p.gradBias};
  int32_t dtypes[6], formats[6];
  for (int t = 0; t < 6; ++t) {
    dtypes[t] = in.byte() < 200 ? ACL_FLOAT : dtypeChoice(in);
    formats[t] = t == 5 ? ACL_FORMAT_ND : fuzz::convFormat(shapes[t].size());
  }
  Arrays arrays;
  arrays.values[0] = p.stride;
  arrays.values[1] = p.padding;
  arrays.values[2] = p.dilation;
  arrays.values[3] = p.outputPadding;
  arrays.values[4] = p.biasSizes;
  bool nullTensor[6] = {}, nullData[6] = {}, transposed = p.transposed;
  int groups = p.groups;
  int8_t cubeMathType = static_cast<int8_t>(in.range(0, 3));
  bool nullWorkspaceSize = false, nullExecutor = false;

  const int damages = in.byte() % 5;
  std::vector<std::pair<int, int>> layoutDamage;  // (tensor, count)
  for (int k = 0; k < damages; ++k) {
    const int t = static_cast<int>(in.range(0, 5));
    switch (in.byte() % 10) {
      case 0:
        if (!shapes[t].empty())
          shapes[t][static_cast<size_t>(in.range(0, static_cast<int64_t>(shapes[t].size()) - 1))] =
              in.byte() % 2 ? in.range(0, 9) : in.hostile();
        break;
      case 1:
        if (in.flag() && !shapes[t].empty())
          shapes[t].pop_back();
        else
          shapes[t].push_back(in.range(0, 4));
        break;
      case 2:
        layoutDamage.emplace_back(t, 1);
        break;
      case 3:
        dtypes[t] = dtypeChoice(in);
        break;
      case 4:
        formats[t] = formatChoice(in, formats[t]);
        break;
      case 5:
        damageArrays(in, &arrays);
        break;
      case 6:
        nullTensor[t] = true;
        break;
      case 7:
        nullData[t] = true;
        break;
      case 8: {
        const uint8_t b = in.byte();
        if (b % 3 == 0)
          groups = static_cast<int>(in.hostile());
        else if (b % 3 == 1)
          cubeMathType = static_cast<int8_t>(in.byte());
        else
          transposed = !transposed;
        break;
      }
      default:
        nullWorkspaceSize = in.byte() % 8 == 0;
        nullExecutor = in.byte() % 8 == 0;
        break;
    }
  }

  std::unique_ptr<FuzzTensor> tensors[6];
  for (int t = 0; t < 6; ++t) {
    if (nullTensor[t]) continue;
    ViewLayout layout = fuzz::validLayout(in, shapes[t]);
    for (const auto& d : layoutDamage)
      if (d.first == t) fuzz::damageLayout(in, &layout);
    tensors[t] = std::make_unique<FuzzTensor>(layout, dtypes[t], formats[t], nullData[t],
                                              t >= 3 ? kOutputFill : 0x3C);
  }
  aclIntArray* arrayHandles[5] = {};
  for (int a = 0; a < 5; ++a)
    if (!arrays.null[a])
      arrayHandles[a] = aclCreateIntArray(arrays.values[a].data(), arrays.values[a].size());
  bool maskValues[8] = {};
  for (size_t i = 0; i < arrays.mask.size() && i < 8; ++i) maskValues[i] = arrays.mask[i] != 0;
  aclBoolArray* mask =
      arrays.nullMask ? nullptr : aclCreateBoolArray(maskValues, arrays.mask.size());

  auto tensorAt = [&](int t) { return tensors[t] ? tensors[t]->get() : nullptr; };
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      tensorAt(0), tensorAt(1), tensorAt(2), arrayHandles[4], arrayHandles[0], arrayHandles[1],
      arrayHandles[2], transposed, arrayHandles[3], groups, mask, cubeMathType, tensorAt(3),
      tensorAt(4), tensorAt(5), nullWorkspaceSize ? nullptr : &workspaceSize,
      nullExecutor ? nullptr : &executor);
  const char* message = aclGetRecentErrMsg();
  FUZZ_REQUIRE(documented(status), "phase 1 status %d", status);
  FUZZ_REQUIRE(status == 0 || (message && *message), "status %d without a message", status);

  if (status == 0) {
    void* workspace = nullptr;
    if (workspaceSize <= kMaxWorkspace &&
        (workspaceSize == 0 ||
         aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS)) {
      const aclnnStatus launched =
          aclnnConvolutionBackward(workspace, workspaceSize, executor, nullptr);
      FUZZ_REQUIRE(launched == 0 || launched == 161001 || launched == 161002,
                   "phase 2 status %d: %s", launched, aclGetRecentErrMsg());
      if (launched == 0) {
        const aclError synced = aclrtSynchronizeStream(nullptr);
        FUZZ_REQUIRE(synced == ACL_SUCCESS, "run failed (%d): %s", synced, aclGetRecentErrMsg());
        for (int t = 3; t < 6; ++t)
          if (tensors[t])
            FUZZ_REQUIRE(fuzz::onlyViewWritten(*tensors[t], kOutputFill),
                         "output %d written outside its view", t);
      } else {
        aclGetRecentErrMsg();
        aclDestroyAclOpExecutor(executor);
      }
      if (workspace) aclrtFree(workspace);
    } else {
      aclDestroyAclOpExecutor(executor);
    }
  }
  for (aclIntArray* a : arrayHandles)
    if (a) aclDestroyIntArray(a);
  if (mask) aclDestroyBoolArray(mask);
  return 0;
}
