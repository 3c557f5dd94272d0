#pragma once
// The view rules every operator's phase 1 applies, after its own (upstream)
// checks, to the tensors it reads and writes (docs/input-validation.md):
//
//   1. bounds: the reachable element range [offset + sum min(0, (d-1)s),
//      offset + sum max(0, (d-1)s)], computed with overflow checks, lies in
//      [0, prod storageDims) (a tensor without storage dims owns exactly its
//      view's range), and its byte size fits in 64 bits;
//   2. an output view never overlaps itself (two indices, one address);
//   3. two outputs never overlap each other (their byte hulls are disjoint).
//
// Each failure is 161002 with a message naming the tensor. Phase 2 can then
// form every address of a view without overflow and never leaves the
// caller's storage.

#include <cstdint>
#include <vector>

#include "ops/common/tensor_checks.h"

namespace aclcpu {
namespace ops {

// The element offsets (from the tensor's data pointer) of a view's extreme
// elements; empty when a dim is 0.
struct ElementRange {
  bool empty = true;
  int64_t low = 0;
  int64_t high = 0;
};

// Rule 1 for one tensor; on success *range holds its reachable elements.
aclnnStatus checkViewBounds(const char* api, const NamedTensor& t, ElementRange* range);

// Rule 2 for one tensor whose bounds passed (exact: a fast proof for views
// whose strides nest, then an enumeration of the addresses).
aclnnStatus checkNoSelfOverlap(const char* api, const NamedTensor& t, const ElementRange& range);

// All three rules for an operator's call: bounds for every tensor in `reads`
// and `writes` (null entries skipped), rule 2 for each write, rule 3 for each
// pair of writes whose data addresses are set. The first failure wins, in
// the order given.
aclnnStatus checkOperandViews(const char* api, const std::vector<NamedTensor>& reads,
                              const std::vector<NamedTensor>& writes);

}  // namespace ops
}  // namespace aclcpu
