// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

TEST(TimingCache, Placeholder)
{
    GTEST_SKIP() << "the timing cache arrive with issue 4";
}
