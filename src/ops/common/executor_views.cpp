#include "ops/common/executor_views.h"

#include "kernels/conv/conv_passes.h"
#include "kernels/convert/convert.h"

namespace aclcpu {
namespace ops {

const aclTensor& tensorFor(const TensorRole& role, const Bindings& inputs,
                           const Bindings& outputs) {
  return (role.isOutput ? outputs : inputs)[role.index].tensor;
}

kernels::View5 boundView(const TensorRole& role, const Bindings& inputs, const Bindings& outputs) {
  return roleView(role, tensorFor(role, inputs, outputs));
}

int64_t elementCount(const kernels::View5& view) {
  int64_t count = 1;
  for (int64_t extent : view.shape) count *= extent;
  return count;
}

bool hasElements(const kernels::View5& view) {
  for (int64_t extent : view.shape)
    if (extent == 0) return false;
  return true;
}

const float* stageOperand(const kernels::View5& source, bool inPlace, kernels::Rounding rounding,
                          char* workspace, uint64_t offset) {
  if (inPlace) return static_cast<const float*>(source.data);
  float* copy = workspaceAt<float>(workspace, offset);
  if (copy) kernels::gatherToFloat(source, rounding, copy);
  return copy;
}

bool readableInPlace(const TensorRole& role, kernels::Rounding rounding,
                     const std::vector<NamedTensor>& tensors) {
  return role.present && rounding == kernels::Rounding::None &&
         isDenseFloat32(roleView(role, *tensors[static_cast<size_t>(role.index)].tensor));
}

bool kernelsRoundInputs(kernels::Rounding rounding, const kernels::ConvShape& shape,
                        bool forwardPass, bool dataPass, bool weightPass) {
  if (rounding != kernels::Rounding::HF32 || shape.io != kernels::ElementType::F32) return false;
  return (!forwardPass || kernels::forwardRoundsInputs(shape)) &&
         (!dataPass || kernels::backwardDataRoundsInputs(shape)) &&
         (!weightPass || kernels::backwardWeightRoundsInputs(shape));
}

float* directResultTarget(const kernels::View5& target, bool needsRounding, const ByteRange* inputs,
                          size_t inputCount) {
  if (needsRounding || !isDenseFloat32(target)) return nullptr;
  const ByteRange range = byteRange(target);
  for (size_t i = 0; i < inputCount; ++i)
    if (overlaps(range, inputs[i])) return nullptr;
  return static_cast<float*>(target.data);
}

namespace {

// Whether rounding `r` leaves the values of 16-bit type `io` alone.
bool keepsValuesOf(kernels::Rounding r, kernels::ElementType io) {
  const kernels::Rounding own =
      io == kernels::ElementType::F16 ? kernels::Rounding::F16 : kernels::Rounding::BF16;
  return r == kernels::Rounding::None || r == own;
}
bool isHalfWords(kernels::ElementType t) {
  return t == kernels::ElementType::BF16 || t == kernels::ElementType::F16;
}

}  // namespace

bool readableAsWords(const kernels::View5& view, kernels::ElementType io,
                     kernels::Rounding operandRounding) {
  return isHalfWords(io) && keepsValuesOf(operandRounding, io) && isDenseOf(view, io);
}

bool wordsPlanned(bool forwardPass, kernels::ConvShape* shape, const kernels::View5& source,
                  kernels::Rounding operandRounding, const kernels::View5& target,
                  kernels::Rounding resultRounding) {
  kernels::ConvShape words = *shape;
  words.io = source.type;
  const bool planned =
      readableAsWords(source, words.io, operandRounding) && isDenseOf(target, words.io) &&
      keepsValuesOf(resultRounding, words.io) &&
      (forwardPass ? kernels::forwardTakesWords(words) : kernels::backwardDataTakesWords(words));
  if (planned) *shape = words;
  return planned;
}

namespace {

bool overlapsAny(const kernels::View5& target, const ByteRange* inputs, size_t inputCount) {
  const ByteRange range = byteRange(target);
  for (size_t i = 0; i < inputCount; ++i)
    if (overlaps(range, inputs[i])) return true;
  return false;
}

}  // namespace

bool runOnWords(bool forwardPass, const kernels::ConvShape& shape, const kernels::View5& source,
                const float* weight, const kernels::View5& target, const ByteRange* inputs,
                size_t inputCount, const float* bias, void* scratch) {
  if (overlapsAny(target, inputs, inputCount)) return false;
  const auto* in = static_cast<const uint16_t*>(source.data);
  auto* out = static_cast<uint16_t*>(target.data);
  return forwardPass ? kernels::convForwardWords(shape, in, weight, out, scratch, bias)
                     : kernels::convBackwardDataWords(shape, in, weight, out, scratch, bias);
}

bool runOnAllWords(bool forwardPass, const kernels::ConvShape& shape, const kernels::View5& source,
                   const kernels::View5& weight, kernels::Rounding operandRounding,
                   const kernels::View5& target, const ByteRange* inputs, size_t inputCount,
                   const float* bias, void* scratch) {
  if (!readableAsWords(weight, shape.io, operandRounding) ||
      overlapsAny(target, inputs, inputCount))
    return false;
  const auto* in = static_cast<const uint16_t*>(source.data);
  const auto* w = static_cast<const uint16_t*>(weight.data);
  auto* out = static_cast<uint16_t*>(target.data);
  return forwardPass ? kernels::convForwardAllWords(shape, in, w, out, scratch, bias)
                     : kernels::convBackwardDataAllWords(shape, in, w, out, scratch, bias);
}

}  // namespace ops
}  // namespace aclcpu
