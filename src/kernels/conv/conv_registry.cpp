#include "kernels/conv/conv_registry.h"

#include "kernels/conv/blocked/blocked_bf16_conv.h"
#include "kernels/conv/blocked/blocked_conv.h"
#include "kernels/conv/conv_geometry.h"
#include "kernels/conv/depthwise_plane/dwconv_plane.h"
#include "kernels/conv/few_channels/few_channels_bf16.h"
#include "kernels/conv/few_channels/few_channels_conv.h"
#include "kernels/conv/im2col_gemm/im2col_gemm_passes.h"
#include "kernels/conv/nchw_plane/conv_plane.h"
#include "kernels/conv/nchw_plane/stride_phases.h"
#include "kernels/conv/pointwise_bf16/bf16_pointwise.h"
#include "kernels/conv/small_group/conv_direct.h"
#include "kernels/conv/tap_gemm/tap_gemm_forward.h"

namespace aclcpu {
namespace kernels {
namespace {

using blocked::Channels;

uint64_t noScratch(const ConvShape&) { return 0; }
bool always(const ConvShape&) { return true; }

bool smallGroups(const ConvShape& s) {
  return conv_detail::useDirectLoops(s, conv_detail::describe(s));
}
void smallGroupForward(const ConvShape& s, const float* x, const float* w, float* y, void*) {
  conv_detail::directForward(s, conv_detail::describe(s), x, w, y);
}
void smallGroupForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                           float* y, void*) {
  conv_detail::directForward(s, conv_detail::describe(s), x, w, y, bias);
}
void smallGroupBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx, void*) {
  conv_detail::directBackwardData(s, conv_detail::describe(s), dy, w, dx);
}
void smallGroupBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                                const float* bias, float* dx, void*) {
  conv_detail::directBackwardData(s, conv_detail::describe(s), dy, w, dx, bias);
}
void smallGroupBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                              void*) {
  conv_detail::directBackwardWeight(s, conv_detail::describe(s), x, dy, dw);
}

void im2colForward(const ConvShape& s, const float* x, const float* w, float* y, void* scratch) {
  im2col_gemm::forward(s, x, w, y, scratch);
}
void im2colForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                       float* y, void* scratch) {
  im2col_gemm::forward(s, x, w, y, scratch, bias);
}
void tapGemmForward(const ConvShape& s, const float* x, const float* w, float* y, void* scratch) {
  tap_gemm::forward(s, x, w, y, scratch);
}
void tapGemmForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                        float* y, void* scratch) {
  tap_gemm::forward(s, x, w, y, scratch, bias);
}
void im2colBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                        void* scratch) {
  im2col_gemm::backwardData(s, dy, w, dx, scratch);
}
void im2colBackwardDataBias(const ConvShape& s, const float* dy, const float* w, const float* bias,
                            float* dx, void* scratch) {
  im2col_gemm::backwardData(s, dy, w, dx, scratch, bias);
}

void fewChannelForward(const ConvShape& s, const float* x, const float* w, float* y,
                       void* scratch) {
  few_channels::forward(s, x, w, y, scratch);
}
void fewChannelForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                           float* y, void* scratch) {
  few_channels::forward(s, x, w, y, scratch, bias);
}
bool fewChannelBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                                 const float* bias, uint16_t* dx, void* scratch) {
  return few_channels::backwardDataWords(s, dy, w, bias, dx, scratch);
}
// Pairs: bf16 operands; otherwise fp16 and HF32 ones, as hi/lo pairs.
template <bool pairs>
bool fewChannelTiles(const ConvShape& s) {
  return (s.operands == OperandValues::BF16) == pairs && few_channels::acceptsTileForward(s);
}
void fewChannelTileForward(const ConvShape& s, const float* x, const float* w, float* y,
                           void* scratch) {
  few_channels::tileForward(s, x, w, y, scratch);
}
void fewChannelTileForwardBias(const ConvShape& s, const float* x, const float* w,
                               const float* bias, float* y, void* scratch) {
  few_channels::tileForward(s, x, w, y, scratch, bias);
}
bool fewChannelForwardWords(const ConvShape& s, const uint16_t* x, const float* w,
                            const float* bias, uint16_t* y, void* scratch) {
  return few_channels::forwardWords(s, x, w, bias, y, scratch);
}

void depthwisePlaneForward(const ConvShape& s, const float* x, const float* w, float* y, void*) {
  depthwise_plane::forward(s, x, w, nullptr, y);
}
void depthwisePlaneForwardBias(const ConvShape& s, const float* x, const float* w,
                               const float* bias, float* y, void*) {
  depthwise_plane::forward(s, x, w, bias, y);
}
void depthwisePlaneBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                                void*) {
  depthwise_plane::backwardData(s, dy, w, nullptr, dx);
}
void depthwisePlaneBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                                    const float* bias, float* dx, void*) {
  depthwise_plane::backwardData(s, dy, w, bias, dx);
}
void depthwisePlaneBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                                  void*) {
  depthwise_plane::backwardWeight(s, x, dy, dw);
}
// fp32 products of bf16 and half values are exact: these words runs take
// any value.
bool depthwisePlaneForwardWords(const ConvShape& s, const uint16_t* x, const float* w,
                                const float* bias, uint16_t* y, void*) {
  depthwise_plane::forwardWords(s, x, w, bias, y);
  return true;
}
bool depthwisePlaneBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                                     const float* bias, uint16_t* dx, void*) {
  depthwise_plane::backwardDataWords(s, dy, w, bias, dx);
  return true;
}
bool depthwisePlaneBackwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy,
                                       float* dw, void*) {
  depthwise_plane::backwardWeightWords(s, x, dy, dw);
  return true;
}
void depthwisePlaneBackwardWeightSummingDy(const ConvShape& s, const float* x, const float* dy,
                                           float* dw, double* dySums, void*) {
  depthwise_plane::backwardWeight(s, x, dy, dw, dySums);
}
bool depthwisePlaneBackwardWeightWordsSummingDy(const ConvShape& s, const uint16_t* x,
                                                const uint16_t* dy, float* dw, double* dySums,
                                                void*) {
  depthwise_plane::backwardWeightWords(s, x, dy, dw, dySums);
  return true;
}

void planeCorrelationForward(const ConvShape& s, const float* x, const float* w, float* y,
                             void* scratch) {
  nchw_plane::forward(s, x, w, nullptr, y, scratch);
}
void planeCorrelationForwardBias(const ConvShape& s, const float* x, const float* w,
                                 const float* bias, float* y, void* scratch) {
  nchw_plane::forward(s, x, w, bias, y, scratch);
}
void planeCorrelationBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                                  void* scratch) {
  nchw_plane::backwardData(s, dy, w, nullptr, dx, scratch);
}
void planeCorrelationBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                                      const float* bias, float* dx, void* scratch) {
  nchw_plane::backwardData(s, dy, w, bias, dx, scratch);
}
void stridePhasesBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                              void* scratch) {
  nchw_plane::stridePhasesBackwardData(s, dy, w, nullptr, dx, scratch);
}
void groupedPlaneBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                                void* scratch) {
  nchw_plane::backwardWeight(s, x, dy, dw, scratch);
}
// Exact products, as for the depthwise planes: any value.
bool planeCorrelationForwardWords(const ConvShape& s, const uint16_t* x, const float* w,
                                  const float* bias, uint16_t* y, void* scratch) {
  nchw_plane::forwardWords(s, x, w, bias, y, scratch);
  return true;
}
bool planeCorrelationBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                                       const float* bias, uint16_t* dx, void* scratch) {
  nchw_plane::backwardDataWords(s, dy, w, bias, dx, scratch);
  return true;
}
bool groupedPlaneBackwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy,
                                     float* dw, void* scratch) {
  nchw_plane::backwardWeightWords(s, x, dy, dw, scratch);
  return true;
}

bool blockedForwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                         uint16_t* y, void* scratch) {
  blocked::forwardWords(s, x, w, y, scratch, bias);
  return true;
}
bool blockedBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                              const float* bias, uint16_t* dx, void* scratch) {
  blocked::backwardDataWords(s, dy, w, dx, scratch, bias);
  return true;
}
bool blockedBackwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy,
                                float* dw, void* scratch) {
  blocked::backwardWeightWords(s, x, dy, dw, scratch);
  return true;
}

void fewChannelBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                            void* scratch) {
  few_channels::backwardData(s, dy, w, dx, scratch);
}
void fewChannelBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                                const float* bias, float* dx, void* scratch) {
  few_channels::backwardData(s, dy, w, dx, scratch, bias);
}
void fewChannelBackwardWeight(const ConvShape& s, const float* x, const float* dy, float* dw,
                              void* scratch) {
  few_channels::backwardWeight(s, x, dy, dw, scratch);
}
void fewChannelBackwardWeightSummingDy(const ConvShape& s, const float* x, const float* dy,
                                       float* dw, double* dySums, void* scratch) {
  few_channels::backwardWeight(s, x, dy, dw, scratch, dySums);
}
bool fewChannelBackwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy,
                                   float* dw, void* scratch) {
  return few_channels::backwardWeightWords(s, x, dy, dw, scratch);
}
bool fewChannelBackwardWeightWordsSummingDy(const ConvShape& s, const uint16_t* x,
                                            const uint16_t* dy, float* dw, double* dySums,
                                            void* scratch) {
  return few_channels::backwardWeightWords(s, x, dy, dw, scratch, dySums);
}

// The words runs (conv_registry.h): the words are the operand values.
bool wordsAreOperands(const ConvShape& s) {
  return (s.io == ElementType::BF16 && s.operands == OperandValues::BF16) ||
         (s.io == ElementType::F16 && s.operands == OperandValues::F16);
}

// The forward of a strided pointwise layer (1x1, no padding) goes to the
// im2col GEMM where its AVX-512 tiles run at full width: they pack (and
// round raw HF32 operands of) the formed columns as they use them.
// Measured on the Zen 5 EPYC, pass bench, RN50 1x1/2 256->512 56x56 batch
// 8: blocked 10.6-10.8 ms, GEMM 8.7 (2 threads 5.8 -> 5.0). Not measured on
// Intel; Zen 4 (FMAs in halves) keeps the blocked pass.
bool pointwiseForwardOnGemm(const ConvShape& s) {
  return activeIsa() >= Isa::Avx512 && !zmmFmaInHalves() && conv_detail::unpaddedPointwise(s);
}
template <Channels kind>
bool blockedForward(const ConvShape& s) {
  return !(kind == Channels::Dense && pointwiseForwardOnGemm(s)) &&
         blocked::acceptsForward(s, kind);
}
template <Channels kind>
bool blockedBackwardData(const ConvShape& s) {
  return blocked::acceptsBackwardData(s, kind);
}
template <Channels kind>
bool blockedBackwardWeight(const ConvShape& s) {
  return blocked::acceptsBackwardWeight(s, kind);
}

template <Isa isa>
void blockedForwardRun(const ConvShape& s, const float* x, const float* w, float* y,
                       void* scratch) {
  blocked::forward(isa, s, x, w, y, scratch);
}
template <Isa isa>
void blockedBackwardDataRun(const ConvShape& s, const float* dy, const float* w, float* dx,
                            void* scratch) {
  blocked::backwardData(isa, s, dy, w, dx, scratch);
}
template <Isa isa>
void blockedForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                        float* y, void* scratch) {
  blocked::forward(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
void blockedBackwardDataBias(const ConvShape& s, const float* dy, const float* w, const float* bias,
                             float* dx, void* scratch) {
  blocked::backwardData(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
void bf16ForwardRun(const ConvShape& s, const float* x, const float* w, float* y, void* scratch) {
  blocked::bf16Forward(isa, s, x, w, y, scratch);
}
template <Isa isa>
void bf16BackwardDataRun(const ConvShape& s, const float* dy, const float* w, float* dx,
                         void* scratch) {
  blocked::bf16BackwardData(isa, s, dy, w, dx, scratch);
}
template <Isa isa>
void bf16ForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                     float* y, void* scratch) {
  blocked::bf16Forward(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
void bf16BackwardDataBias(const ConvShape& s, const float* dy, const float* w, const float* bias,
                          float* dx, void* scratch) {
  blocked::bf16BackwardData(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
bool bf16ForwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                      uint16_t* y, void* scratch) {
  return blocked::bf16ForwardWords(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
bool bf16BackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                           const float* bias, uint16_t* dx, void* scratch) {
  return blocked::bf16BackwardDataWords(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
bool bf16ForwardAllWords(const ConvShape& s, const uint16_t* x, const uint16_t* w,
                         const float* bias, uint16_t* y, void* scratch) {
  return blocked::bf16ForwardWordWeights(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
bool bf16BackwardDataAllWords(const ConvShape& s, const uint16_t* dy, const uint16_t* w,
                              const float* bias, uint16_t* dx, void* scratch) {
  return blocked::bf16BackwardDataWordWeights(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
void bf16BackwardWeightRun(const ConvShape& s, const float* x, const float* dy, float* dw,
                           void* scratch) {
  blocked::bf16BackwardWeight(isa, s, x, dy, dw, scratch);
}
template <Isa isa>
bool bf16BackwardWeightWords(const ConvShape& s, const uint16_t* x, const uint16_t* dy, float* dw,
                             void* scratch) {
  return blocked::bf16BackwardWeightWords(isa, s, x, dy, dw, scratch);
}
template <Isa isa>
uint64_t bf16ForwardScratch(const ConvShape& s) {
  return blocked::bf16ForwardScratchBytes(isa, s);
}
template <Isa isa>
uint64_t bf16BackwardDataScratch(const ConvShape& s) {
  return blocked::bf16BackwardDataScratchBytes(isa, s);
}
template <Isa isa>
uint64_t bf16BackwardWeightScratch(const ConvShape& s) {
  return blocked::bf16BackwardWeightScratchBytes(isa, s);
}
// Pairs: bf16 operands. Otherwise only fp16 operands of half tensors: the
// tiles' four products per multiply beat the fp32 GEMM on the caller's half
// words, not on fp32 copies (measured, 1x1 256->64 56x56 forward, 1
// thread: fp16 words 4.1 ms against the GEMM's 7.2; HF32 9.5 against 6.1).
template <bool pairs>
bool pointwiseOperands(const ConvShape& s) {
  return pairs ? s.operands == OperandValues::BF16
               : s.operands == OperandValues::F16 && s.io == ElementType::F16;
}
// The dense NCHW plane entries run only where they pay
// (densePlanesPreferred: AMD); elsewhere the blocked direct kernels and the GEMM are
// faster (measured, 1 and 2 threads, Intel Xeon VM: RN50 3x3 64ch 56x56
// forward 10.6-12.4 -> 9.1-10.8 ms, 1D k5 64->128 8.8 -> 7.1, 1x1 256->64
// 6.4 -> 5.6 on the GEMM; data gradients alike).
// Not 3D layers: the blocked kernels measured faster there on the Zen 5
// EPYC (pass bench, medians of 5, 1 / 2 threads: 3x3x3 64ch 16x56x56
// forward 58.9 / 33.7 -> 55.4 / 30.2 ms with tiles of four blocks; 32ch
// 8x28x28 batch 2 3.21 / 1.73 -> 3.16 / 1.58; and, since the staging
// requests its next spans, the data gradients: 64ch 59.6 / 31.0 -> 54.4 /
// 28.9, 32ch 16x28x28 batch 2 7.33 / 3.86 -> 6.75 / 3.48), not for 2D ones
// (3x3 64ch 56x56 forward 9.5 / 5.0 against 10.1 / 5.2, data gradient 9.5 /
// 4.7 against 10.0 / 5.0).
bool denseForwardPlanes(const ConvShape& s) {
  return densePlanesPreferred() && s.kernel[0] == 1 && nchw_plane::acceptsDenseForward(s);
}
bool denseBackwardDataPlanes(const ConvShape& s) {
  return densePlanesPreferred() && s.kernel[0] == 1 && nchw_plane::acceptsDenseBackwardData(s);
}
// The weight gradient of a strided pointwise layer (1x1, no padding) goes
// to the im2col GEMM where zmm FMAs run at full width: measured on the
// Intel Xeon VM, 1 and 2 threads, against the blocked AVX-512 weight pass:
// RN50 1x1/2 256->512 56x56 16.0-16.9 -> 12.8-13.4 ms (2 threads 8.5 ->
// 6.1-6.4), res5 1x1/2 1024->2048 14x14 16.9-17.5 -> 11.1-11.8 (8.6-9.0 ->
// 5.7-5.9); forced to AVX2 there, 25.5-27.2 -> 22.0 ms; Zen 5 EPYC (full
// width), with its data gradient, 1 thread: res5 25.7 -> 21.4 ms. Zen 4
// keeps the blocked pass.
// So does the weight gradient of an ungrouped 1D layer with at least 128
// channels on each side (same VM: 1D k3 512ch L4000 198-204 -> 167-170 ms,
// 2 threads 97-105 -> 79-83; k3 256ch L2000 50.0 -> 41.8, k5 512ch 155 ->
// 139, k3 128ch L8000 61.5 -> 46.7; with 64 -> 128 channels the two were
// even).
bool denseBlockedWeights(const ConvShape& s) {
  const bool stridedPointwise = conv_detail::unpaddedPointwise(s);
  const bool wideRows = s.groups == 1 && s.in[0] == 1 && s.in[1] == 1 && s.kernel[0] == 1 &&
                        s.kernel[1] == 1 && s.inChannels >= 128 && s.outChannels >= 128;
  return !((stridedPointwise || wideRows) && !zmmFmaInHalves()) &&
         blocked::acceptsBackwardWeight(s, blocked::Channels::Dense);
}
// The grouped plane weight gradient keeps groups of fewer than 8 channels:
// with 8 or more each side the blocked pass (groups interleaved in its
// lanes, or whole blocks) measured faster since its one-chunk schedules
// write their weights from cache (pass bench, Zen 5 EPYC, medians of 5, 1 /
// 2 threads: ResNeXt g32 3x3 256ch 28x28 batch 16 6.06 / 3.94 -> 4.01 /
// 2.80 ms, 256ch 56x56 12.2 / 7.7 -> 9.3 / 6.2, g16 256ch 14x14 1.59 ->
// 0.66, 1D g16 128ch k5 1.26 -> 0.80), not 4 (g32 128ch 28x28 0.74 against
// 0.92, 14x14 0.20 against 0.24).
bool groupedPlaneWeights(const ConvShape& s) {
  const bool wideGroups = s.inChannels / s.groups >= 8 && s.outChannels / s.groups >= 8;
  return nchw_plane::acceptsGroupedBackwardWeight(s) && !(wideGroups && denseBlockedWeights(s));
}
// The stride-phase weight gradient only where zmm FMAs run in halves
// (Zen 4): elsewhere the next entries measured faster on every layer it
// takes. Intel Xeon VM, against the im2col GEMM: RN50 stem 7x7/2 3->64 37.6
// -> 22.9 ms (2 threads 19.0 -> 13.2), a one-channel 7x7/2 12.3 -> 10.4, 1D
// k10 s5 with 2 or 3 channels 4.5 -> 3.3 and 3.5 -> 2.2, 3x3/2 3->32 1.7 ->
// 1.0; wav2vec's one-channel stem, which it kept there until the few-channel
// pass was measured against it (interleaved medians of 5, 1 / 2 threads):
// fp32 4.50 -> 3.38 / 2.32 -> 1.75 ms, bf16 11.6 -> 3.0 / 5.35 -> 1.43 (dy
// read as words, no fp32 copy), fp16 12.6 -> 2.8. Zen 5 EPYC (full width,
// plane kernels preferred): the GEMM won that stem too, 7.7-8.0 -> 4.9-5.8
// ms, 2 threads 3.5-3.8 -> 2.5-3.1.
// The stride-phase data gradient only on AMD (plane kernels preferred, or
// FMAs in halves), where it was measured against the im2col GEMM (wav2vec
// stem dX, 1 thread: 10.3 -> 6.8-7.6 ms). On the Intel Xeon VM the
// few-channel pass, or the GEMM, took its stems (interleaved medians, 1 / 2
// threads): wav2vec's fp32 4.50 / 2.34 against 4.65 / 2.21 ms, bf16 14.0 /
// 6.2 -> 11.0 / 4.8; 1D k10 s5 2->64 L8000 batch 4 0.37 -> 0.27; k8 s4
// 1->64 L16000 batch 8 (to the col2im GEMM) 0.80 -> 0.57.
bool stridePhaseData(const ConvShape& s) {
  return (zmmFmaInHalves() || densePlanesPreferred()) &&
         nchw_plane::acceptsStridePhasesBackwardData(s);
}
bool stridePhaseWeights(const ConvShape& s) {
  return zmmFmaInHalves() && nchw_plane::acceptsStridePhasesBackwardWeight(s);
}
// The AVX512-BF16 entries run only where VDPBF16PS is fast
// (bf16DotAtFmaRate); elsewhere the fp32 kernels are faster.
template <Isa isa>
bool bf16HardwarePays() {
  return isa >= Isa::Amx || bf16DotAtFmaRate();
}
template <bool pairs, Isa isa = Isa::Amx>
bool pointwiseForward(const ConvShape& s) {
  return pointwiseOperands<pairs>(s) && bf16HardwarePays<isa>() &&
         pointwise_bf16::acceptsForward(s);
}
template <bool pairs, Isa isa = Isa::Amx>
bool pointwiseBackwardData(const ConvShape& s) {
  return pointwiseOperands<pairs>(s) && bf16HardwarePays<isa>() &&
         pointwise_bf16::acceptsBackwardData(s);
}
template <Isa isa>
void pointwiseForwardRun(const ConvShape& s, const float* x, const float* w, float* y,
                         void* scratch) {
  pointwise_bf16::forward(isa, s, x, w, y, scratch, nullptr);
}
template <Isa isa>
void pointwiseForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                          float* y, void* scratch) {
  pointwise_bf16::forward(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
bool pointwiseForwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                           uint16_t* y, void* scratch) {
  return pointwise_bf16::forwardWords(isa, s, x, w, y, scratch, bias);
}
template <Isa isa>
void pointwiseBackwardDataRun(const ConvShape& s, const float* dy, const float* w, float* dx,
                              void* scratch) {
  pointwise_bf16::backwardData(isa, s, dy, w, dx, scratch, nullptr);
}
template <Isa isa>
void pointwiseBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                               const float* bias, float* dx, void* scratch) {
  pointwise_bf16::backwardData(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
bool pointwiseBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                                const float* bias, uint16_t* dx, void* scratch) {
  return pointwise_bf16::backwardDataWords(isa, s, dy, w, dx, scratch, bias);
}
template <Isa isa>
void blockedBackwardWeightRun(const ConvShape& s, const float* x, const float* dy, float* dw,
                              void* scratch) {
  blocked::backwardWeight(isa, s, x, dy, dw, scratch);
}

// Pairs: bf16 operands; otherwise hi/lo words of fp16 or HF32 operands.
// AVX512-BF16 has pairs only: its VDPBF16PS adds two products per lane at
// most at the rate of the fp32 FMA, which adds one, so the two instructions
// of a hi/lo product would halve the fp32 speed (measured, AMD EPYC Zen 4:
// VDPBF16PS 228 GFLOP/s, FMA 115 GFLOP/s per core).
template <bool pairs, Isa isa = Isa::Amx>
bool bf16Forward(const ConvShape& s) {
  return (s.operands == OperandValues::BF16) == pairs && bf16HardwarePays<isa>() &&
         blocked::acceptsBf16Forward(isa, s);
}
template <bool pairs, Isa isa = Isa::Amx>
bool bf16BackwardData(const ConvShape& s) {
  return (s.operands == OperandValues::BF16) == pairs && bf16HardwarePays<isa>() &&
         blocked::acceptsBf16BackwardData(isa, s);
}
// The weight gradient of a strided pointwise layer (1x1, no padding, a
// stride above 1) leaves VDPBF16PS for the fp32 im2col GEMM where zmm FMAs
// run at full width, as fp32 operands do: the bf16 pass stages the
// subsampled positions one element at a time (aclnnConvolutionBackward,
// bf16 tensors, dW, Zen 5 EPYC, 1 thread, medians of 5: res5 1x1/2
// 1024->2048 14x14 22.0 -> 10.4 ms, RN50 1x1/2 256->512 56x56 15.2 ->
// 11.9, fp32 copies of x and dy included). On AMX the hi/lo entries (fp16
// and HF32 operands) leave those layers to the GEMM too (Intel Xeon VM, dW,
// 1 thread, interleaved medians of 3: RN50 1x1/2 256->512 fp16 28.1 -> 19.3
// ms, HF32 32.5 -> 15.5; res5 fp16 18.4 -> 15.1, HF32 17.9 -> 13.4; the
// unit-stride 1x1 256->64 level); bf16 pairs there stay on AMX (RN50 1x1/2
// 9.3 ms against the GEMM's 14.6 on fp32 copies).
bool stridedPointwiseWeightsOnGemm(const ConvShape& s) {
  const bool strided = s.stride[0] > 1 || s.stride[1] > 1 || s.stride[2] > 1;
  return strided && conv_detail::unpaddedPointwise(s) && !zmmFmaInHalves();
}
template <bool pairs, Isa isa = Isa::Amx>
bool bf16BackwardWeight(const ConvShape& s) {
  return (s.operands == OperandValues::BF16) == pairs && bf16HardwarePays<isa>() &&
         !((isa == Isa::Avx512Bf16 || !pairs) && stridedPointwiseWeightsOnGemm(s)) &&
         blocked::acceptsBf16BackwardWeight(isa, s);
}

// Grouped planes on VDPBF16PS: bf16 operands where the instruction runs at
// the FMA's rate, and at least two channels per group to pair (depthwise
// layers keep their plane kernels: one channel would leave half of every
// product a zero; measured 2.4x slower on the mobilenet depthwise forward).
bool bf16GroupedPlaneForward(const ConvShape& s) {
  return s.operands == OperandValues::BF16 && bf16HardwarePays<Isa::Avx512Bf16>() &&
         s.inChannels >= 2 * s.groups && nchw_plane::acceptsGroupedForward(s);
}
bool bf16GroupedPlaneBackwardData(const ConvShape& s) {
  return s.operands == OperandValues::BF16 && bf16HardwarePays<Isa::Avx512Bf16>() &&
         s.outChannels >= 2 * s.groups && nchw_plane::acceptsGroupedBackwardData(s);
}
void bf16PlaneForward(const ConvShape& s, const float* x, const float* w, float* y, void* scratch) {
  nchw_plane::forwardBf16(s, x, w, nullptr, y, scratch);
}
void bf16PlaneForwardBias(const ConvShape& s, const float* x, const float* w, const float* bias,
                          float* y, void* scratch) {
  nchw_plane::forwardBf16(s, x, w, bias, y, scratch);
}
void bf16PlaneBackwardData(const ConvShape& s, const float* dy, const float* w, float* dx,
                           void* scratch) {
  nchw_plane::backwardDataBf16(s, dy, w, nullptr, dx, scratch);
}
void bf16PlaneBackwardDataBias(const ConvShape& s, const float* dy, const float* w,
                               const float* bias, float* dx, void* scratch) {
  nchw_plane::backwardDataBf16(s, dy, w, bias, dx, scratch);
}
bool bf16PlaneForwardWords(const ConvShape& s, const uint16_t* x, const float* w, const float* bias,
                           uint16_t* y, void* scratch) {
  return nchw_plane::forwardBf16Words(s, x, w, bias, y, scratch);
}
bool bf16PlaneBackwardDataWords(const ConvShape& s, const uint16_t* dy, const float* w,
                                const float* bias, uint16_t* dx, void* scratch) {
  return nchw_plane::backwardDataBf16Words(s, dy, w, bias, dx, scratch);
}

constexpr ConvPass kF = ConvPass::Forward;
constexpr ConvPass kD = ConvPass::BackwardData;
constexpr ConvPass kW = ConvPass::BackwardWeight;

// clang-format off
const ConvAlgorithm kAlgorithms[] = {
  {"bf16_conv_fwd_pointwise_m32n32_amx", kF, Isa::Amx, pointwiseForward<true>,
   pointwise_bf16::forwardScratchBytes, pointwiseForwardRun<Isa::Amx>,
   pointwiseForwardBias<Isa::Amx>, wordsAreOperands, pointwiseForwardWords<Isa::Amx>},
  {"bf16x2_conv_fwd_pointwise_m32n32_amx", kF, Isa::Amx, pointwiseForward<false>,
   pointwise_bf16::forwardScratchBytes, pointwiseForwardRun<Isa::Amx>,
   pointwiseForwardBias<Isa::Amx>, wordsAreOperands, pointwiseForwardWords<Isa::Amx>},
  {"bf16_conv_fwd_few_channels_m32n32_amx", kF, Isa::Amx, fewChannelTiles<true>,
   few_channels::tileForwardScratchBytes, fewChannelTileForward, fewChannelTileForwardBias,
   wordsAreOperands, few_channels::tileForwardWords},
  {"bf16x2_conv_fwd_few_channels_m32n32_amx", kF, Isa::Amx, fewChannelTiles<false>,
   few_channels::tileForwardScratchBytes, fewChannelTileForward, fewChannelTileForwardBias,
   wordsAreOperands, few_channels::tileForwardWords},
  {"bf16_conv_fwd_direct_nw16_amx", kF, Isa::Amx, bf16Forward<true>,
   bf16ForwardScratch<Isa::Amx>, bf16ForwardRun<Isa::Amx>, bf16ForwardBias<Isa::Amx>,
   wordsAreOperands, bf16ForwardWords<Isa::Amx>, nullptr, false, bf16ForwardAllWords<Isa::Amx>},
  {"bf16x2_conv_fwd_direct_nw16_amx", kF, Isa::Amx, bf16Forward<false>,
   bf16ForwardScratch<Isa::Amx>, bf16ForwardRun<Isa::Amx>, bf16ForwardBias<Isa::Amx>,
   wordsAreOperands, bf16ForwardWords<Isa::Amx>, nullptr, true},
  {"bf16_conv_fwd_pointwise_m8n32_avx512bf16", kF, Isa::Avx512Bf16,
   pointwiseForward<true, Isa::Avx512Bf16>,
   pointwise_bf16::forwardScratchBytes, pointwiseForwardRun<Isa::Avx512Bf16>,
   pointwiseForwardBias<Isa::Avx512Bf16>, wordsAreOperands,
   pointwiseForwardWords<Isa::Avx512Bf16>},
  {"bf16_conv_fwd_direct_nw16_avx512bf16", kF, Isa::Avx512Bf16,
   bf16Forward<true, Isa::Avx512Bf16>, bf16ForwardScratch<Isa::Avx512Bf16>,
   bf16ForwardRun<Isa::Avx512Bf16>, bf16ForwardBias<Isa::Avx512Bf16>, wordsAreOperands,
   bf16ForwardWords<Isa::Avx512Bf16>, nullptr, false, bf16ForwardAllWords<Isa::Avx512Bf16>},
  {"bf16_gconv_fwd_plane_w16_avx512bf16", kF, Isa::Avx512Bf16, bf16GroupedPlaneForward,
   nchw_plane::correlationScratchBytes, bf16PlaneForward, bf16PlaneForwardBias, wordsAreOperands,
   bf16PlaneForwardWords},
  {"f32_dwconv_fwd_plane_w16_avx512", kF, Isa::Avx512, depthwise_plane::acceptsForward,
   noScratch, depthwisePlaneForward, depthwisePlaneForwardBias, wordsAreOperands, depthwisePlaneForwardWords, nullptr,
   true},
  {"f32_gconv_fwd_plane_w16_avx512", kF, Isa::Avx512, nchw_plane::acceptsGroupedForward,
   nchw_plane::correlationScratchBytes, planeCorrelationForward, planeCorrelationForwardBias,
   wordsAreOperands, planeCorrelationForwardWords, nullptr, true},
  {"f32_conv_fwd_few_channels_c6w64_avx512", kF, Isa::Avx512, few_channels::acceptsForward,
   few_channels::forwardScratchBytes, fewChannelForward, fewChannelForwardBias, wordsAreOperands,
   fewChannelForwardWords, nullptr, true},
  {"f32_dwconv_fwd_direct_nc16_avx512", kF, Isa::Avx512, blockedForward<Channels::Depthwise>,
   blocked::forwardScratchBytes, blockedForwardRun<Isa::Avx512>,
   blockedForwardBias<Isa::Avx512>, wordsAreOperands, blockedForwardWords, nullptr, true},
  {"f32_conv_fwd_plane_w16_avx512", kF, Isa::Avx512, denseForwardPlanes,
   nchw_plane::correlationScratchBytes, planeCorrelationForward, planeCorrelationForwardBias,
   wordsAreOperands, planeCorrelationForwardWords, nullptr, true},
  {"f32_conv_fwd_direct_nc16_avx512", kF, Isa::Avx512, blockedForward<Channels::Dense>,
   blocked::forwardScratchBytes, blockedForwardRun<Isa::Avx512>,
   blockedForwardBias<Isa::Avx512>, wordsAreOperands, blockedForwardWords, nullptr, true},
  {"f32_dwconv_fwd_direct_nc16_avx2", kF, Isa::Avx2, blockedForward<Channels::Depthwise>,
   blocked::forwardScratchBytes, blockedForwardRun<Isa::Avx2>,
   blockedForwardBias<Isa::Avx2>},
  {"f32_conv_fwd_direct_nc16_avx2", kF, Isa::Avx2, blockedForward<Channels::Dense>,
   blocked::forwardScratchBytes, blockedForwardRun<Isa::Avx2>,
   blockedForwardBias<Isa::Avx2>},
  {"f32_conv_fwd_small_group_direct", kF, Isa::Scalar, smallGroups, noScratch, smallGroupForward,
   smallGroupForwardBias},
  {"f32_conv_fwd_taps_gemm", kF, Isa::Scalar, tap_gemm::acceptsForward,
   tap_gemm::forwardScratchBytes, tapGemmForward, tapGemmForwardBias, nullptr, nullptr, nullptr,
   true},
  {"f32_conv_fwd_im2col_gemm", kF, Isa::Scalar, always, im2col_gemm::forwardScratchBytes,
   im2colForward, im2colForwardBias, nullptr, nullptr, nullptr, true},

  {"bf16_conv_bwdd_pointwise_m32n32_amx", kD, Isa::Amx, pointwiseBackwardData<true>,
   pointwise_bf16::backwardDataScratchBytes, pointwiseBackwardDataRun<Isa::Amx>,
   pointwiseBackwardDataBias<Isa::Amx>, wordsAreOperands, pointwiseBackwardDataWords<Isa::Amx>},
  {"bf16x2_conv_bwdd_pointwise_m32n32_amx", kD, Isa::Amx, pointwiseBackwardData<false>,
   pointwise_bf16::backwardDataScratchBytes, pointwiseBackwardDataRun<Isa::Amx>,
   pointwiseBackwardDataBias<Isa::Amx>, wordsAreOperands, pointwiseBackwardDataWords<Isa::Amx>},
  {"bf16_conv_bwdd_direct_nw16_amx", kD, Isa::Amx, bf16BackwardData<true>,
   bf16BackwardDataScratch<Isa::Amx>, bf16BackwardDataRun<Isa::Amx>,
   bf16BackwardDataBias<Isa::Amx>, wordsAreOperands, bf16BackwardDataWords<Isa::Amx>, nullptr,
   false, bf16BackwardDataAllWords<Isa::Amx>},
  {"bf16x2_conv_bwdd_direct_nw16_amx", kD, Isa::Amx, bf16BackwardData<false>,
   bf16BackwardDataScratch<Isa::Amx>, bf16BackwardDataRun<Isa::Amx>,
   bf16BackwardDataBias<Isa::Amx>, wordsAreOperands, bf16BackwardDataWords<Isa::Amx>, nullptr,
   true},
  {"bf16_conv_bwdd_pointwise_m8n32_avx512bf16", kD, Isa::Avx512Bf16,
   pointwiseBackwardData<true, Isa::Avx512Bf16>, pointwise_bf16::backwardDataScratchBytes,
   pointwiseBackwardDataRun<Isa::Avx512Bf16>, pointwiseBackwardDataBias<Isa::Avx512Bf16>,
   wordsAreOperands, pointwiseBackwardDataWords<Isa::Avx512Bf16>},
  {"bf16_conv_bwdd_direct_nw16_avx512bf16", kD, Isa::Avx512Bf16,
   bf16BackwardData<true, Isa::Avx512Bf16>, bf16BackwardDataScratch<Isa::Avx512Bf16>,
   bf16BackwardDataRun<Isa::Avx512Bf16>, bf16BackwardDataBias<Isa::Avx512Bf16>, wordsAreOperands,
   bf16BackwardDataWords<Isa::Avx512Bf16>, nullptr, false,
   bf16BackwardDataAllWords<Isa::Avx512Bf16>},
  {"bf16_gconv_bwdd_plane_w16_avx512bf16", kD, Isa::Avx512Bf16, bf16GroupedPlaneBackwardData,
   nchw_plane::correlationScratchBytes, bf16PlaneBackwardData, bf16PlaneBackwardDataBias,
   wordsAreOperands, bf16PlaneBackwardDataWords},
  {"f32_dwconv_bwdd_plane_w16_avx512", kD, Isa::Avx512, depthwise_plane::acceptsBackwardData,
   noScratch, depthwisePlaneBackwardData, depthwisePlaneBackwardDataBias, wordsAreOperands, depthwisePlaneBackwardDataWords,
   nullptr, true},
  {"f32_gconv_bwdd_plane_w16_avx512", kD, Isa::Avx512, nchw_plane::acceptsGroupedBackwardData,
   nchw_plane::correlationScratchBytes, planeCorrelationBackwardData, planeCorrelationBackwardDataBias,
   wordsAreOperands, planeCorrelationBackwardDataWords, nullptr, true},
  {"f32_dwconv_bwdd_direct_nc16_avx512", kD, Isa::Avx512, blockedBackwardData<Channels::Depthwise>,
   blocked::backwardDataScratchBytes, blockedBackwardDataRun<Isa::Avx512>,
   blockedBackwardDataBias<Isa::Avx512>, wordsAreOperands, blockedBackwardDataWords, nullptr,
   true},
  {"f32_conv_bwdd_plane_w16_avx512", kD, Isa::Avx512, denseBackwardDataPlanes,
   nchw_plane::correlationScratchBytes, planeCorrelationBackwardData,
   planeCorrelationBackwardDataBias, wordsAreOperands, planeCorrelationBackwardDataWords, nullptr, true},
  {"f32_conv_bwdd_phase_plane_w16_avx512", kD, Isa::Avx512, stridePhaseData,
   nchw_plane::stridePhasesBackwardDataScratchBytes,
   stridePhasesBackwardData, nchw_plane::stridePhasesBackwardData},
  {"f32_conv_bwdd_few_channels_t6w64_avx512", kD, Isa::Avx512, few_channels::acceptsBackwardData,
   few_channels::backwardDataScratchBytes, fewChannelBackwardData, fewChannelBackwardDataBias,
   wordsAreOperands, fewChannelBackwardDataWords, nullptr, true},
  {"f32_conv_bwdd_direct_nc16_avx512", kD, Isa::Avx512, blockedBackwardData<Channels::Dense>,
   blocked::backwardDataScratchBytes, blockedBackwardDataRun<Isa::Avx512>,
   blockedBackwardDataBias<Isa::Avx512>, wordsAreOperands, blockedBackwardDataWords, nullptr,
   true},
  {"f32_dwconv_bwdd_direct_nc16_avx2", kD, Isa::Avx2, blockedBackwardData<Channels::Depthwise>,
   blocked::backwardDataScratchBytes, blockedBackwardDataRun<Isa::Avx2>,
   blockedBackwardDataBias<Isa::Avx2>},
  {"f32_conv_bwdd_direct_nc16_avx2", kD, Isa::Avx2, blockedBackwardData<Channels::Dense>,
   blocked::backwardDataScratchBytes, blockedBackwardDataRun<Isa::Avx2>,
   blockedBackwardDataBias<Isa::Avx2>},
  {"f32_conv_bwdd_small_group_direct", kD, Isa::Scalar, smallGroups, noScratch,
   smallGroupBackwardData, smallGroupBackwardDataBias},
  {"f32_conv_bwdd_col2im_gemm", kD, Isa::Scalar, always, im2col_gemm::scratchBytes,
   im2colBackwardData, im2colBackwardDataBias, nullptr, nullptr, nullptr, true},

  {"bf16_conv_bwdw_pointwise_m32n32_amx", kW, Isa::Amx, pointwise_bf16::acceptsBackwardWeight,
   pointwise_bf16::backwardWeightScratchBytes, pointwise_bf16::backwardWeight, nullptr,
   wordsAreOperands, nullptr, pointwise_bf16::backwardWeightWords},
  {"bf16_conv_bwdw_direct_nw16_amx", kW, Isa::Amx, bf16BackwardWeight<true>,
   bf16BackwardWeightScratch<Isa::Amx>, bf16BackwardWeightRun<Isa::Amx>, nullptr,
   wordsAreOperands, nullptr, bf16BackwardWeightWords<Isa::Amx>},
  {"bf16x2_conv_bwdw_direct_nw16_amx", kW, Isa::Amx, bf16BackwardWeight<false>,
   bf16BackwardWeightScratch<Isa::Amx>, bf16BackwardWeightRun<Isa::Amx>, nullptr,
   wordsAreOperands, nullptr, bf16BackwardWeightWords<Isa::Amx>, true},
  {"bf16_conv_bwdw_direct_nw16_avx512bf16", kW, Isa::Avx512Bf16,
   bf16BackwardWeight<true, Isa::Avx512Bf16>, bf16BackwardWeightScratch<Isa::Avx512Bf16>,
   bf16BackwardWeightRun<Isa::Avx512Bf16>, nullptr, wordsAreOperands, nullptr,
   bf16BackwardWeightWords<Isa::Avx512Bf16>},
  {"f32_dwconv_bwdw_plane_w16_avx512", kW, Isa::Avx512, depthwise_plane::acceptsBackwardWeight,
   noScratch, depthwisePlaneBackwardWeight, nullptr, wordsAreOperands, nullptr, depthwisePlaneBackwardWeightWords,
   true, nullptr, depthwisePlaneBackwardWeightSummingDy, depthwisePlaneBackwardWeightWordsSummingDy},
  {"f32_gconv_bwdw_plane_w16_avx512", kW, Isa::Avx512, groupedPlaneWeights,
   nchw_plane::backwardWeightScratchBytes, groupedPlaneBackwardWeight, nullptr,
   wordsAreOperands, nullptr, groupedPlaneBackwardWeightWords, true},
  {"f32_dwconv_bwdw_direct_nc16_avx512", kW, Isa::Avx512,
   blockedBackwardWeight<Channels::Depthwise>, blocked::backwardWeightScratchBytes,
   blockedBackwardWeightRun<Isa::Avx512>, nullptr, wordsAreOperands, nullptr,
   blockedBackwardWeightWords, true},
  {"f32_conv_bwdw_phase_plane_w16_avx512", kW, Isa::Avx512, stridePhaseWeights,
   nchw_plane::stridePhasesBackwardWeightScratchBytes, nchw_plane::stridePhasesBackwardWeight},
  {"f32_conv_bwdw_few_channels_o4t6_avx512", kW, Isa::Avx512, few_channels::acceptsBackwardWeight,
   few_channels::backwardWeightScratchBytes, fewChannelBackwardWeight, nullptr, wordsAreOperands,
   nullptr, fewChannelBackwardWeightWords, true, nullptr, fewChannelBackwardWeightSummingDy,
   fewChannelBackwardWeightWordsSummingDy},
  {"f32_conv_bwdw_direct_nc16_avx512", kW, Isa::Avx512, denseBlockedWeights,
   blocked::backwardWeightScratchBytes, blockedBackwardWeightRun<Isa::Avx512>, nullptr,
   wordsAreOperands, nullptr, blockedBackwardWeightWords, true},
  {"f32_dwconv_bwdw_direct_nc16_avx2", kW, Isa::Avx2, blockedBackwardWeight<Channels::Depthwise>,
   blocked::backwardWeightScratchBytes, blockedBackwardWeightRun<Isa::Avx2>},
  {"f32_conv_bwdw_direct_nc16_avx2", kW, Isa::Avx2, denseBlockedWeights,
   blocked::backwardWeightScratchBytes, blockedBackwardWeightRun<Isa::Avx2>},
  {"f32_conv_bwdw_small_group_direct", kW, Isa::Scalar, smallGroups, noScratch,
   smallGroupBackwardWeight},
  {"f32_conv_bwdw_im2col_gemm", kW, Isa::Scalar, always, im2col_gemm::backwardWeightScratchBytes,
   im2col_gemm::backwardWeight, nullptr, nullptr, nullptr, nullptr, true},
};
// clang-format on

constexpr int kCount = static_cast<int>(sizeof(kAlgorithms) / sizeof(kAlgorithms[0]));

}  // namespace

const ConvAlgorithm& selectConvAlgorithm(ConvPass pass, const ConvShape& shape, Isa isa) {
  const ConvAlgorithm* fallback = nullptr;
  for (const ConvAlgorithm& a : kAlgorithms) {
    if (a.pass != pass || a.minimumIsa > isa) continue;
    if (a.accepts(shape)) return a;
    fallback = &a;
  }
  return *fallback;  // the last entry of each pass accepts everything
}

void runConvAlgorithm(const ConvAlgorithm& algorithm, const ConvShape& s, const float* a,
                      const float* b, const float* bias, float* out, void* scratch) {
  if (bias && algorithm.runWithBias) {
    algorithm.runWithBias(s, a, b, bias, out, scratch);
    return;
  }
  algorithm.run(s, a, b, out, scratch);
  if (!bias) return;
  const bool data = algorithm.pass == ConvPass::BackwardData;
  const int64_t channels = data ? s.inChannels : s.outChannels;
  const int64_t* extent = data ? s.in : s.out;
  conv_detail::addChannelBias(out, s.batch * channels, extent[0] * extent[1] * extent[2], channels,
                              bias);
}

int convAlgorithmCount() { return kCount; }
const ConvAlgorithm& convAlgorithmAt(int index) { return kAlgorithms[index]; }

}  // namespace kernels
}  // namespace aclcpu
