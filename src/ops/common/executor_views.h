#pragma once
// What the convolution executors share at run time: finding a role's tensor
// among the bound copies, workspace regions, operands read in place or
// gathered into the workspace, and results written straight into the caller's
// output when that is safe.

#include <cstdint>
#include <vector>

#include "executor/executor.h"
#include "kernels/kernel_types.h"
#include "ops/common/conv_problem.h"
#include "ops/common/tensor_checks.h"
#include "ops/common/tensor_views.h"
#include "ops/common/workspace_allocator.h"

namespace aclcpu {
namespace ops {

using Bindings = std::vector<aclOpExecutor::Binding>;

const aclTensor& tensorFor(const TensorRole& role, const Bindings& inputs, const Bindings& outputs);

// The role's strided 5-D view into its bound tensor.
kernels::View5 boundView(const TensorRole& role, const Bindings& inputs, const Bindings& outputs);

template <typename T>
T* workspaceAt(char* workspace, uint64_t offset) {
  return offset == kNoBuffer ? nullptr : reinterpret_cast<T*>(workspace + offset);
}

int64_t elementCount(const kernels::View5& view);
bool hasElements(const kernels::View5& view);

// An operand the kernels read: the caller's memory itself when phase 1
// planned it in place (dense fp32, no rounding), else a rounded fp32 copy in
// the workspace region at `offset`.
const float* stageOperand(const kernels::View5& source, bool inPlace, kernels::Rounding rounding,
                          char* workspace, uint64_t offset);

// True when phase 1 may plan `role` of `tensors` to be read in place.
bool readableInPlace(const TensorRole& role, kernels::Rounding rounding,
                     const std::vector<NamedTensor>& tensors);

// True when operand rounding `rounding` is HF32 and every pass a run makes
// (forward, data gradient, weight gradient: the flags) rounds its inputs as
// it reads them: x and dy can then be read in place (readableInPlace with
// no rounding) with shape.inputRounding = HF32. The weights are rounded
// copies either way.
bool kernelsRoundInputs(kernels::Rounding rounding, const kernels::ConvShape& shape,
                        bool forwardPass, bool dataPass, bool weightPass);

// `target`'s own memory when a result can be stored there directly: it is
// dense fp32, the result needs no rounding and no input shares a byte with it
// (so every input is still intact while the kernel writes). Else nullptr.
// `inputs` points at `inputCount` ranges (an array on the caller's stack:
// phase 2 allocates nothing).
float* directResultTarget(const kernels::View5& target, bool needsRounding, const ByteRange* inputs,
                          size_t inputCount);

// The passes on words (kernels::*TakesWords): the caller's dense 16-bit
// tensors (bf16 or fp16), read and written as they are.
//
// readableAsWords: `view` is dense of 16-bit type `io` and its operand
// rounding keeps the values as they are (none, or the rounding to `io`).
bool readableAsWords(const kernels::View5& view, kernels::ElementType io,
                     kernels::Rounding operandRounding);

// Phase 1 of the forward pass (`forwardPass`) or the data-gradient pass of
// `shape`, reading `source` and writing `target`: true, with shape->io set
// to their type, when the pass has a words run for it, `source` is
// readableAsWords, `target` is dense of the same type and the result's own
// rounding before its cast (`resultRounding`) is none or the rounding to
// that type (the words run's one rounding is then the cast). Else false,
// and `shape` unchanged.
bool wordsPlanned(bool forwardPass, kernels::ConvShape* shape, const kernels::View5& source,
                  kernels::Rounding operandRounding, const kernels::View5& target,
                  kernels::Rounding resultRounding);

// Phase 2 of a planned pass (the weights as fp32): false, with nothing
// written, when `target` shares a byte with an input, and false when the
// data needs the fp32 pass (the target is then incomplete).
bool runOnWords(bool forwardPass, const kernels::ConvShape& shape, const kernels::View5& source,
                const float* weight, const kernels::View5& target, const ByteRange* inputs,
                size_t inputCount, const float* bias, void* scratch);
// The same with the weights, too, read from the caller's `weight` view: false
// (the target perhaps incomplete) unless it is readableAsWords of shape.io
// and the pass's algorithm packs such weights itself; the caller then
// stages fp32 weights and calls runOnWords. Saves the fp32 copy of the
// weights and a pass over them.
bool runOnAllWords(bool forwardPass, const kernels::ConvShape& shape, const kernels::View5& source,
                   const kernels::View5& weight, kernels::Rounding operandRounding,
                   const kernels::View5& target, const ByteRange* inputs, size_t inputCount,
                   const float* bias, void* scratch);

}  // namespace ops
}  // namespace aclcpu
