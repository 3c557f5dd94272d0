#pragma once
// Phase-1 rules that every convolution operator applies (forward and
// backward, ConvTbc and depthwise): required pointers, the cubeMathType
// range, the dtype list, padding forms and the forward shape relation.
// Each records a message naming `api` and the argument when it fails.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "meta/meta_types.h"
#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {

struct RequiredPointer {
  const void* pointer;
  const char* name;
};

// 161001 for the first null pointer, in the given order.
aclnnStatus checkNonNull(const char* api, std::initializer_list<RequiredPointer> required);

// 161002 unless 0 <= cubeMathType <= highest (3 for the backward operators,
// 4 = USE_FP32_ADD for the forward ones).
aclnnStatus checkCubeMathType(const char* api, int8_t cubeMathType, int highest);

// 161002 unless the tensor's view has `expected` dims.
aclnnStatus checkRank(const char* api, const NamedTensor& t, size_t expected);

// 161002 unless `second` has the dtype of `first` (compared as raw integers).
aclnnStatus checkSameDtype(const char* api, const NamedTensor& first, const NamedTensor& second);

// Padding of spatial dim s as (before, after): `padding` has one value per
// dim (both sides) or two per dim ([left, right] in 1D, [top, bottom, left,
// right] in 2D).
void paddingOf(const std::vector<int64_t>& padding, int spatialDims, int s, int64_t* before,
               int64_t* after);

// The output extent of a normal convolution, trunc((in + before + after -
// dilation * (kernel - 1) - 1) / stride) + 1, in 128-bit arithmetic (the
// attributes are unbounded); truncation toward zero as upstream computes it.
__int128 normalOutputExtent(int64_t in, int64_t before, int64_t after, int64_t kernel,
                            int64_t stride, int64_t dilation);

// The output extent of a transposed convolution,
// (in - 1) * stride - (before + after) + dilation * (kernel - 1) + outputPadding + 1.
__int128 transposedOutputExtent(int64_t in, int64_t before, int64_t after, int64_t kernel,
                                int64_t stride, int64_t dilation, int64_t outputPadding);

// True when v fits int64.
inline bool fitsInt64(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

// "[2, 3]" for a 128-bit shape (values printed exactly).
std::string wideShapeString(const std::vector<__int128>& dims);

}  // namespace ops
}  // namespace aclcpu
