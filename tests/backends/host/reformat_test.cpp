// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

TEST(Reformat, Placeholder)
{
    GTEST_SKIP() << "reformat kernels arrive with issue 4";
}
