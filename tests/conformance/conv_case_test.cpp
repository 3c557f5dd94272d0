// The single parameterised test every aclnnConvolutionBackward case table
// instantiates (see conv_backward_*_test.cpp).

#include <gtest/gtest.h>

#include "conv_case_table.h"

namespace conformance {

TEST_P(ConvBackward, Conforms) { runConvCase(GetParam()); }

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ConvBackward);

}  // namespace conformance
