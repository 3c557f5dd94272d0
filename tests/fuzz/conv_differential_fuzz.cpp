// Fuzz target: small random convolution-backward problems run end to end
// through the public API, every tensor a random valid strided view (dense,
// permuted, padded, reversed, offset) of fp32, fp16 or bf16, any mask and
// cubeMathType, compared with the float64 reference (src/reference). Inputs
// are multiples of 1/4 in [-1, 1], exact in every dtype and in HF32, so the
// fp32 sums are exact and the only error allowed is the final rounding to
// the narrowest dtype involved. Every output byte outside its view (and
// every byte of a masked-off output) must keep its sentinel, and no input
// byte may change.

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "conv_problem.h"
#include "fuzz_target.h"
#include "fuzz_tensor.h"
#include "reference/reference_conv.h"

namespace {

using fuzz::FuzzBytes;
using fuzz::FuzzTensor;

constexpr uint8_t kOutputFill = 0xA5;

int32_t dtypeOf(uint8_t b) { return b % 3 == 0 ? ACL_FLOAT : b % 3 == 1 ? ACL_FLOAT16 : ACL_BF16; }

void store(void* data, int32_t dtype, int64_t element, double value) {
  const float f = static_cast<float>(value);
  if (dtype == ACL_FLOAT) {
    std::memcpy(static_cast<float*>(data) + element, &f, 4);
  } else if (dtype == ACL_FLOAT16) {
    const aclFloat16 h = aclFloatToFloat16(f);
    std::memcpy(static_cast<uint16_t*>(data) + element, &h, 2);
  } else {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const auto b = static_cast<uint16_t>(bits >> 16);  // exact for these values
    std::memcpy(static_cast<uint16_t*>(data) + element, &b, 2);
  }
}

double load(const void* data, int32_t dtype, int64_t element) {
  if (dtype == ACL_FLOAT) {
    float f;
    std::memcpy(&f, static_cast<const float*>(data) + element, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, static_cast<const uint16_t*>(data) + element, 2);
  if (dtype == ACL_FLOAT16) return aclFloat16ToFloat(h);
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Relative error allowed: two roundings to the narrowest dtype involved.
double tolerance(bool bf16, bool fp16) { return bf16 ? 1.0 / 64 : fp16 ? 1.0 / 512 : 1e-6; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialized = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    return true;
  }();
  (void)initialized;
  FuzzBytes in(data, size);
  const fuzz::ConvProblem p = fuzz::consistentProblem(in, 5);
  const std::vector<int64_t> shapes[6] = {p.gradOutput, p.input,  p.weight,
                                          p.input,      p.weight, p.gradBias};
  int32_t dtypes[6];
  const bool allFloat = in.byte() < 128;
  for (int32_t& d : dtypes) d = allFloat ? ACL_FLOAT : dtypeOf(in.byte());
  const int8_t cubeMathType = static_cast<int8_t>(in.range(0, 3));
  bool mask[3];
  for (bool& m : mask) m = in.byte() % 4 != 0;

  std::unique_ptr<FuzzTensor> tensors[6];
  std::vector<double> dense[3];
  for (int t = 0; t < 6; ++t) {
    fuzz::ViewLayout layout = fuzz::validLayout(in, shapes[t]);
    layout.hasStorage = true;
    tensors[t] = std::make_unique<FuzzTensor>(
        layout, dtypes[t], t == 5 ? ACL_FORMAT_ND : fuzz::convFormat(shapes[t].size()), false,
        t >= 3 ? kOutputFill : 0);
    FUZZ_REQUIRE(tensors[t]->data() != nullptr, "no buffer for tensor %d", t);
    if (t < 3) {
      for (int64_t at : fuzz::elementOffsets(layout, int64_t{1} << 20)) {
        const double value = static_cast<double>(static_cast<int>(in.byte() % 9) - 4) / 4;
        store(tensors[t]->data(), dtypes[t], at, value);
        dense[t].push_back(value);
      }
    }
  }
  std::vector<uint8_t> inputsBefore[3];
  for (int t = 0; t < 3; ++t) {
    const auto* bytes = static_cast<const uint8_t*>(tensors[t]->data());
    inputsBefore[t].assign(bytes, bytes + tensors[t]->bytes());
  }
  aclIntArray* stride = aclCreateIntArray(p.stride.data(), p.stride.size());
  aclIntArray* padding = aclCreateIntArray(p.padding.data(), p.padding.size());
  aclIntArray* dilation = aclCreateIntArray(p.dilation.data(), p.dilation.size());
  aclIntArray* outputPadding = aclCreateIntArray(p.outputPadding.data(), p.outputPadding.size());
  aclIntArray* biasSizes = aclCreateIntArray(p.biasSizes.data(), p.biasSizes.size());
  aclBoolArray* maskArray = aclCreateBoolArray(mask, 3);
  uint64_t workspaceSize = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnConvolutionBackwardGetWorkspaceSize(
      tensors[0]->get(), tensors[1]->get(), tensors[2]->get(), biasSizes, stride, padding, dilation,
      p.transposed, outputPadding, p.groups, maskArray, cubeMathType, tensors[3]->get(),
      tensors[4]->get(), tensors[5]->get(), &workspaceSize, &executor);
  // Section 3 step 12: 3D grouped fp32 gradWeight from reduced-precision
  // operands (promoted fp16/bf16, or cubeMathType 2) is refused, as on the NPU.
  const bool promotedReduced =
      dtypes[0] == dtypes[1] && dtypes[1] == dtypes[2] && dtypes[0] != ACL_FLOAT;
  const bool step12 = p.spatialDims == 3 && p.groups > 1 && mask[1] && dtypes[4] == ACL_FLOAT &&
                      (cubeMathType == 2 || promotedReduced);
  FUZZ_REQUIRE(status == (step12 ? 161002 : 0), "phase 1 status %d (step 12: %d): %s", status,
               step12, aclGetRecentErrMsg());
  if (status == 0) {
    void* workspace = nullptr;
    if (workspaceSize) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    FUZZ_REQUIRE(aclnnConvolutionBackward(workspace, workspaceSize, executor, nullptr) == 0,
                 "phase 2: %s", aclGetRecentErrMsg());
    FUZZ_REQUIRE(aclrtSynchronizeStream(nullptr) == ACL_SUCCESS, "run: %s", aclGetRecentErrMsg());
    if (workspace) aclrtFree(workspace);

    aclcpu::reference::ConvParams params;
    params.spatialDims = p.spatialDims;
    params.transposed = p.transposed;
    params.groups = p.groups;
    params.inputShape = p.input;
    params.weightShape = p.weight;
    params.gradOutputShape = p.gradOutput;
    params.stride = p.stride;
    params.dilation = p.dilation;
    params.padBefore = p.padding;
    params.padAfter = p.padding;
    const aclcpu::reference::Gradients expected =
        aclcpu::reference::convolutionBackward(params, dense[0], dense[1], dense[2]);
    const std::vector<double>* wanted[3] = {&expected.gradInput, &expected.gradWeight,
                                            &expected.gradBias};
    bool anyBf16 = false, anyFp16 = cubeMathType == 2;
    for (int t = 0; t < 3; ++t) {
      anyBf16 = anyBf16 || dtypes[t] == ACL_BF16;
      anyFp16 = anyFp16 || dtypes[t] == ACL_FLOAT16;
    }
    for (int o = 0; o < 3; ++o) {
      const FuzzTensor& out = *tensors[3 + o];
      if (!mask[o]) {
        const auto* bytes = static_cast<const uint8_t*>(out.data());
        for (size_t b = 0; b < out.bytes(); ++b)
          FUZZ_REQUIRE(bytes[b] == kOutputFill, "masked-off output %d written", o);
        continue;
      }
      FUZZ_REQUIRE(fuzz::onlyViewWritten(out, kOutputFill), "output %d written outside its view",
                   o);
      // gradBias is summed from the original gradOutput, never from rounded operands.
      const bool bf16 = dtypes[3 + o] == ACL_BF16 || (o < 2 ? anyBf16 : dtypes[0] == ACL_BF16);
      const bool fp16 =
          dtypes[3 + o] == ACL_FLOAT16 || (o < 2 ? anyFp16 : dtypes[0] == ACL_FLOAT16);
      const double tol = tolerance(bf16, fp16);
      const std::vector<int64_t> offsets = fuzz::elementOffsets(out.layout(), int64_t{1} << 20);
      FUZZ_REQUIRE(offsets.size() == wanted[o]->size(), "output %d size", o);
      for (size_t i = 0; i < offsets.size(); ++i) {
        const double got = load(out.data(), dtypes[3 + o], offsets[i]);
        const double want = (*wanted[o])[i];
        FUZZ_REQUIRE(std::fabs(got - want) <= tol * std::fabs(want) + 1e-6,
                     "output %d element %zu: got %.9g, expected %.9g", o, i, got, want);
      }
    }
    for (int t = 0; t < 3; ++t)
      FUZZ_REQUIRE(
          std::memcmp(inputsBefore[t].data(), tensors[t]->data(), tensors[t]->bytes()) == 0,
          "input %d changed", t);
  } else {
    aclGetRecentErrMsg();
  }
  for (aclIntArray* a : {stride, padding, dilation, outputPadding, biasSizes})
    aclDestroyIntArray(a);
  aclDestroyBoolArray(maskArray);
  return 0;
}
