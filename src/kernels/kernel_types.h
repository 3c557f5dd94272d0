#pragma once
// Types shared by every kernel. Kernels know nothing of aclnn: the operator
// layer translates aclTensor views and attributes into these.

#include <cstdint>

namespace aclcpu {
namespace kernels {

enum class ElementType : uint8_t { F32, F16, BF16 };

// How a value is rounded before it is used (operand rounding) or stored
// (result rounding). HF32: 1 sign, 8 exponent, 11 explicit mantissa bits,
// nearest with ties away from zero, NaN/Inf unchanged. F16: IEEE half, nearest
// even, overflow to infinity, subnormals kept. BF16: nearest even.
enum class Rounding : uint8_t { None, HF32, F16, BF16 };

// A strided 5-D view [N, C, D, H, W]; strides are in elements and may be any
// value (including 0 for lifted unit dims, or negative).
struct View5 {
  void* data = nullptr;
  ElementType type = ElementType::F32;
  int64_t shape[5] = {0, 0, 0, 0, 0};
  int64_t strides[5] = {0, 0, 0, 0, 0};
};

// What every operand value of a convolution is exactly, after operand
// rounding: the set low-precision kernels may rely on. BF16: a bf16 value;
// F16 and HF32: a value of 11 or 12 significant bits, the exact sum of two
// bf16 values (hi + lo). F32 promises nothing.
enum class OperandValues : uint8_t { F32, BF16, F16, HF32 };

// The operand values that a gather with operand rounding `r` produces.
inline OperandValues operandValuesAfter(Rounding r) {
  switch (r) {
    case Rounding::BF16:
      return OperandValues::BF16;
    case Rounding::F16:
      return OperandValues::F16;
    case Rounding::HF32:
      return OperandValues::HF32;
    case Rounding::None:
      break;
  }
  return OperandValues::F32;
}

// A convolution in normal (non-transposed) orientation with three spatial
// dims; 1D and 2D problems are lifted with unit dims (size 1, stride 1,
// dilation 1, padding 0).
//   x  [batch, inChannels, in[0], in[1], in[2]]
//   w  [outChannels, inChannels / groups, kernel[0], kernel[1], kernel[2]]
//   y  [batch, outChannels, out[0], out[1], out[2]]
// y[n, co, o] = sum over ci in co's group and taps k of
//   x[n, ci, o * stride - padBefore + k * dilation] * w[co, ci_local, k],
// where x outside [0, in) reads as zero. `out` is given (it is the actual
// gradOutput extent), not derived from padding.
struct ConvShape {
  int64_t batch = 1;
  int64_t inChannels = 1;
  int64_t outChannels = 1;
  int64_t groups = 1;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t padBefore[3] = {0, 0, 0};
  // Not geometry, but part of the job: which algorithms may take it.
  OperandValues operands = OperandValues::F32;
  // F32: the passes get fp32 buffers. BF16 or F16: the job's tensors are
  // the caller's dense tensors of that 16-bit type, which the passes the
  // caller runs on words (conv_passes.h, *Words) read and write as they are.
  // An algorithm that stages its operands anyway may then take shapes it
  // leaves to algorithms on fp32 memory otherwise (pointwise layers).
  ElementType io = ElementType::F32;
  // None: the fp32 inputs a pass reads (x, dy) hold operand values. HF32:
  // they are the caller's raw fp32 values and the pass rounds each to HF32
  // as it reads it (the weights hold operand values either way), saving the
  // rounded copy; only for passes whose algorithm rounds its inputs
  // (conv_passes.h, *RoundsInputs). Selection never depends on it.
  Rounding inputRounding = Rounding::None;
};

}  // namespace kernels
}  // namespace aclcpu
