// SPDX-License-Identifier: Apache-2.0
// resolvePadding against TensorRT's PaddingMode formulas evaluated here directly, for every mode on random windows,
// and the output extents the resolved padding gives; the window checks' messages.
#include "backends/host/window.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

int64_t ceilDiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static_assert(nvinfer1::EnumMax<PaddingMode>() == 4, "a new padding mode needs its formula below");

TEST(HostWindow, ResolvePaddingFollowsTensorRTsFormulas)
{
    std::mt19937 rng(99);
    for (int32_t trial = 0; trial < 400; ++trial)
    {
        auto const mode = static_cast<PaddingMode>(trial % 4);
        int64_t const input = 1 + rng() % 9;
        int64_t const f = 1 + rng() % 4;
        int64_t const s = 1 + rng() % 3;
        int64_t const d = 1 + rng() % 2;
        int64_t const b = rng() % 3;
        int64_t const a = rng() % 3;
        int64_t const dk = 1 + d * (f - 1);
        int64_t const m = input + b + a;
        Expected<ExplicitPadding> const resolved = resolvePadding(mode, Dims{2, {input, 4}}, Dims{2, {f, 1}},
            Dims{2, {s, 1}}, Dims{2, {d, 1}}, Dims{2, {b, 0}}, Dims{2, {a, 0}});
        bool const same = mode == PaddingMode::kSAME_UPPER || mode == PaddingMode::kSAME_LOWER;
        if (!same && m < dk)
        {
            expectError(resolved, {"shorter than the window's span"});
            continue;
        }
        ASSERT_TRUE(resolved.ok()) << resolved.error().message;
        int64_t const pre = resolved.value().pre.d[0];
        int64_t const post = resolved.value().post.d[0];
        int64_t const rounded = (input + pre + post - dk) / s + 1; // what a kernel computes
        switch (mode)
        {
        case PaddingMode::kEXPLICIT_ROUND_DOWN:
            EXPECT_EQ(pre, b);
            EXPECT_EQ(post, a);
            EXPECT_EQ(rounded, (m - dk) / s + 1);
            break;
        case PaddingMode::kEXPLICIT_ROUND_UP:
            EXPECT_EQ(pre, b);
            EXPECT_EQ(rounded, ceilDiv(m - dk, s) + 1);
            break;
        case PaddingMode::kSAME_UPPER:
        case PaddingMode::kSAME_LOWER:
        {
            int64_t const p = std::max<int64_t>((input - 1) / s * s + dk - input, 0);
            EXPECT_EQ(pre + post, p);
            EXPECT_EQ(mode == PaddingMode::kSAME_UPPER ? pre : post, p / 2);
            EXPECT_EQ(rounded, ceilDiv(input, s));
            break;
        }
        }
        EXPECT_EQ(resolved.value().pre.d[1], 0);
        EXPECT_EQ(resolved.value().post.d[1], 0);
    }
}

TEST(HostWindow, Refusals)
{
    expectError(resolvePadding(PaddingMode::kSAME_UPPER, Dims{2, {4, 4}}, Dims{1, {3}}, Dims{}, Dims{}, Dims{}, Dims{}),
        {"the window [3] needs 2 or 3 spatial extents"});
    expectError(
        resolvePadding(PaddingMode::kSAME_UPPER, Dims{3, {4, 4, 4}}, Dims{2, {3, 3}}, Dims{}, Dims{}, Dims{}, Dims{}),
        {"the input extents [4, 4, 4] need 2 values"});
    expectError(
        resolvePadding(static_cast<PaddingMode>(9), Dims{2, {4, 4}}, Dims{2, {3, 3}}, Dims{}, Dims{}, Dims{}, Dims{}),
        {"unknown PaddingMode 9"});
    expectError(makeWindow("pooling", Dims{2, {2, 2}}, Dims{}, Dims{}, Dims{2, {-1, 0}}, Dims{}),
        {"pooling: pre-padding [-1, 0] needs every extent in [0, 2147483647]"});
}

} // namespace
} // namespace kiln::host::test
