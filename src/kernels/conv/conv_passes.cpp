// The three convolution passes: the empty cases, then the registry's choice.

#include "kernels/conv/conv_passes.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/conv_registry.h"
#include "kernels/cpu/cpu_info.h"

namespace aclcpu {
namespace kernels {
namespace {

void zeroFloats(float* data, int64_t count) {
  constexpr int64_t kBlock = int64_t{1} << 16;
  parallelFor((count + kBlock - 1) / kBlock, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * kBlock, last = std::min(count, end * kBlock);
    std::memset(data + first, 0, static_cast<size_t>(last - first) * sizeof(float));
  });
}

// What a pass has to do: nothing (no output elements), zero its output (an
// empty reduction), or run an algorithm.
enum class Work { Nothing, Zero, Compute };

Work forwardWork(const ConvShape& s, const conv_detail::ConvGeometry& g) {
  if (s.batch == 0 || s.outChannels == 0 || g.outVolume == 0) return Work::Nothing;
  return g.cinPerGroup * g.kernelVolume == 0 ? Work::Zero : Work::Compute;
}
Work backwardDataWork(const ConvShape& s, const conv_detail::ConvGeometry& g) {
  if (s.batch == 0 || s.inChannels == 0 || g.inVolume == 0) return Work::Nothing;
  return g.coutPerGroup * g.kernelVolume * g.outVolume == 0 ? Work::Zero : Work::Compute;
}
Work backwardWeightWork(const ConvShape& s, const conv_detail::ConvGeometry& g) {
  if (s.outChannels == 0 || g.cinPerGroup * g.kernelVolume == 0) return Work::Nothing;
  return s.batch == 0 || g.outVolume == 0 ? Work::Zero : Work::Compute;
}

Work workOf(ConvPass pass, const ConvShape& s) {
  const conv_detail::ConvGeometry g = conv_detail::describe(s);
  switch (pass) {
    case ConvPass::Forward:
      return forwardWork(s, g);
    case ConvPass::BackwardData:
      return backwardDataWork(s, g);
    case ConvPass::BackwardWeight:
      return backwardWeightWork(s, g);
  }
  return Work::Nothing;
}

int64_t outputCount(ConvPass pass, const ConvShape& s) {
  const conv_detail::ConvGeometry g = conv_detail::describe(s);
  switch (pass) {
    case ConvPass::Forward:
      return s.batch * s.outChannels * g.outVolume;
    case ConvPass::BackwardData:
      return s.batch * s.inChannels * g.inVolume;
    case ConvPass::BackwardWeight:
      return s.outChannels * g.cinPerGroup * g.kernelVolume;
  }
  return 0;
}

uint64_t scratchFor(ConvPass pass, const ConvShape& s) {
  if (workOf(pass, s) != Work::Compute) return 0;
  return selectConvAlgorithm(pass, s, activeIsa()).scratchBytes(s);
}

const char* nameFor(ConvPass pass, const ConvShape& s) {
  switch (workOf(pass, s)) {
    case Work::Nothing:
      return "none";
    case Work::Zero:
      return "zero_fill";
    case Work::Compute:
      break;
  }
  return selectConvAlgorithm(pass, s, activeIsa()).name;
}

// Every output of an empty reduction: 0, or its channel's bias.
void fillBias(ConvPass pass, const ConvShape& s, const float* bias, float* out) {
  const bool data = pass == ConvPass::BackwardData;
  const int64_t channels = data ? s.inChannels : s.outChannels;
  const int64_t* extent = data ? s.in : s.out;
  const int64_t spatial = extent[0] * extent[1] * extent[2];
  parallelFor(s.batch * channels, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row)
      std::fill(out + row * spatial, out + (row + 1) * spatial, bias[row % channels]);
  });
}

void runPass(ConvPass pass, const ConvShape& s, const float* a, const float* b, float* out,
             void* scratch, const float* bias = nullptr) {
  switch (workOf(pass, s)) {
    case Work::Nothing:
      return;
    case Work::Zero:
      if (bias)
        fillBias(pass, s, bias, out);
      else
        zeroFloats(out, outputCount(pass, s));
      return;
    case Work::Compute:
      runConvAlgorithm(selectConvAlgorithm(pass, s, activeIsa()), s, a, b, bias, out, scratch);
      return;
  }
}

bool takesWords(ConvPass pass, const ConvShape& s) {
  if (s.io == ElementType::F32 || workOf(pass, s) != Work::Compute) return false;
  const ConvAlgorithm& a = selectConvAlgorithm(pass, s, activeIsa());
  const bool hasRun =
      pass == ConvPass::BackwardWeight ? a.runWeightWords != nullptr : a.runWords != nullptr;
  return hasRun && a.acceptsWords(s);
}

bool runWordsPass(ConvPass pass, const ConvShape& s, const uint16_t* a, const float* b,
                  uint16_t* out, void* scratch, const float* bias) {
  if (!takesWords(pass, s)) return false;
  return selectConvAlgorithm(pass, s, activeIsa()).runWords(s, a, b, bias, out, scratch);
}

bool runAllWordsPass(ConvPass pass, const ConvShape& s, const uint16_t* a, const uint16_t* b,
                     uint16_t* out, void* scratch, const float* bias) {
  if (!takesWords(pass, s)) return false;
  const ConvAlgorithm& algorithm = selectConvAlgorithm(pass, s, activeIsa());
  return algorithm.runAllWords && algorithm.runAllWords(s, a, b, bias, out, scratch);
}

bool roundsInputs(ConvPass pass, const ConvShape& s) {
  if (workOf(pass, s) != Work::Compute) return true;
  return selectConvAlgorithm(pass, s, activeIsa()).roundsHf32Inputs;
}

}  // namespace

bool forwardRoundsInputs(const ConvShape& shape) { return roundsInputs(ConvPass::Forward, shape); }
bool backwardDataRoundsInputs(const ConvShape& shape) {
  return roundsInputs(ConvPass::BackwardData, shape);
}
bool backwardWeightRoundsInputs(const ConvShape& shape) {
  return roundsInputs(ConvPass::BackwardWeight, shape);
}

bool forwardTakesWords(const ConvShape& shape) { return takesWords(ConvPass::Forward, shape); }
bool backwardDataTakesWords(const ConvShape& shape) {
  return takesWords(ConvPass::BackwardData, shape);
}
bool backwardWeightTakesWords(const ConvShape& shape) {
  return takesWords(ConvPass::BackwardWeight, shape);
}
bool convForwardWords(const ConvShape& shape, const uint16_t* x, const float* w, uint16_t* y,
                      void* scratch, const float* bias) {
  return runWordsPass(ConvPass::Forward, shape, x, w, y, scratch, bias);
}
bool convBackwardDataWords(const ConvShape& shape, const uint16_t* dy, const float* w, uint16_t* dx,
                           void* scratch, const float* bias) {
  return runWordsPass(ConvPass::BackwardData, shape, dy, w, dx, scratch, bias);
}
bool convForwardAllWords(const ConvShape& shape, const uint16_t* x, const uint16_t* w, uint16_t* y,
                         void* scratch, const float* bias) {
  return runAllWordsPass(ConvPass::Forward, shape, x, w, y, scratch, bias);
}
bool convBackwardDataAllWords(const ConvShape& shape, const uint16_t* dy, const uint16_t* w,
                              uint16_t* dx, void* scratch, const float* bias) {
  return runAllWordsPass(ConvPass::BackwardData, shape, dy, w, dx, scratch, bias);
}
bool convBackwardWeightWords(const ConvShape& shape, const uint16_t* x, const uint16_t* dy,
                             float* dw, void* scratch, double* dySums) {
  if (!takesWords(ConvPass::BackwardWeight, shape)) return false;
  const ConvAlgorithm& algorithm =
      selectConvAlgorithm(ConvPass::BackwardWeight, shape, activeIsa());
  if (dySums) return algorithm.runWeightWordsSummingDy(shape, x, dy, dw, dySums, scratch);
  return algorithm.runWeightWords(shape, x, dy, dw, scratch);
}

bool backwardWeightSumsDy(const ConvShape& shape) {
  if (workOf(ConvPass::BackwardWeight, shape) != Work::Compute) return false;
  const ConvAlgorithm& algorithm =
      selectConvAlgorithm(ConvPass::BackwardWeight, shape, activeIsa());
  return algorithm.runSummingDy != nullptr;
}

uint64_t forwardScratchBytes(const ConvShape& shape) {
  return scratchFor(ConvPass::Forward, shape);
}
uint64_t backwardDataScratchBytes(const ConvShape& shape) {
  return scratchFor(ConvPass::BackwardData, shape);
}
uint64_t backwardWeightScratchBytes(const ConvShape& shape) {
  return scratchFor(ConvPass::BackwardWeight, shape);
}

const char* forwardAlgorithmName(const ConvShape& shape) {
  return nameFor(ConvPass::Forward, shape);
}
const char* backwardDataAlgorithmName(const ConvShape& shape) {
  return nameFor(ConvPass::BackwardData, shape);
}
const char* backwardWeightAlgorithmName(const ConvShape& shape) {
  return nameFor(ConvPass::BackwardWeight, shape);
}

void convForward(const ConvShape& shape, const float* x, const float* w, float* y, void* scratch,
                 const float* bias) {
  runPass(ConvPass::Forward, shape, x, w, y, scratch, bias);
}
void convBackwardData(const ConvShape& shape, const float* dy, const float* w, float* dx,
                      void* scratch, const float* bias) {
  runPass(ConvPass::BackwardData, shape, dy, w, dx, scratch, bias);
}
void convBackwardWeight(const ConvShape& shape, const float* x, const float* dy, float* dw,
                        void* scratch, double* dySums) {
  if (dySums)
    return selectConvAlgorithm(ConvPass::BackwardWeight, shape, activeIsa())
        .runSummingDy(shape, x, dy, dw, dySums, scratch);
  runPass(ConvPass::BackwardWeight, shape, x, dy, dw, scratch);
}

}  // namespace kernels
}  // namespace aclcpu
