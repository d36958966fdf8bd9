// SPDX-License-Identifier: Apache-2.0
// The host shuffle against coordinates permuted here: first transpose, reshape (0 placeholders, -1), second transpose.
#include "backends/host/shuffle.h"

#include "movement_test_util.h"

#include <algorithm>
#include <numeric>

namespace kiln::host::test
{
namespace
{

nvinfer1::Permutation randomPermutation(std::mt19937& rng, int32_t rank)
{
    nvinfer1::Permutation p{};
    std::iota(p.order, p.order + Dims::MAX_DIMS, 0);
    std::shuffle(p.order, p.order + rank, rng);
    return p;
}

TEST(HostShuffle, TransposeReshapeTransposeMatchesCoordinates)
{
    std::mt19937 rng(301);
    for (int32_t trial = 0; trial < 300; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        int32_t const rank = static_cast<int32_t>(rng() % 4);
        Dims const in = shapeOfRank(rng, rank, 4, true);
        ShuffleParams params;
        params.firstTranspose = randomPermutation(rng, rank);
        Dims t1{rank, {}};
        for (int32_t i = 0; i < rank; ++i)
        {
            t1.d[i] = in.d[params.firstTranspose.order[i]];
        }
        // Reshape: flatten to [count] or split into [count / e, e], written with a -1 or a 0 placeholder sometimes.
        Dims reshaped = t1;
        int64_t const count = elementCount(t1);
        if (rng() % 2 == 0)
        {
            reshaped = Dims{1, {count}};
            params.reshape = count > 0 && rng() % 2 == 0 ? Dims{1, {-1}} : reshaped;
            params.zeroIsPlaceholder = count > 0; // a literal 0 extent for an empty input
        }
        else if (rank >= 1 && count > 0)
        {
            reshaped = Dims{2, {t1.d[0], count / t1.d[0]}};
            params.reshape = Dims{2, {0, rng() % 2 == 0 ? -1 : count / t1.d[0]}};
        }
        params.secondTranspose = randomPermutation(rng, reshaped.nbDims);
        Dims out{reshaped.nbDims, {}};
        for (int32_t i = 0; i < out.nbDims; ++i)
        {
            out.d[i] = reshaped.d[params.secondTranspose.order[i]];
        }
        HostBuffer input(type, in);
        HostBuffer output(type, out);
        randomBytes(rng, input);
        Status const done = runShuffle(params, input.tensor(), output.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(out); ++o)
        {
            std::vector<int64_t> const c = coords(out, o);
            std::vector<int64_t> r(c.size());
            for (std::size_t i = 0; i < c.size(); ++i)
            {
                r[static_cast<std::size_t>(params.secondTranspose.order[i])] = c[i];
            }
            std::vector<int64_t> const t = coords(t1, linear(reshaped, r));
            std::vector<int64_t> x(t.size());
            for (std::size_t i = 0; i < t.size(); ++i)
            {
                x[static_cast<std::size_t>(params.firstTranspose.order[i])] = t[i];
            }
            ASSERT_TRUE(sameElement(output, o, input, linear(in, x))) << shapeString(in) << " -> " << shapeString(out);
        }
    }
}

TEST(HostShuffle, RefusalsNameTheShapes)
{
    TensorDesc const in{DataType::kHALF, Dims{2, {2, 3}}};
    ShuffleParams p;
    p.firstTranspose.order[1] = 0;
    expectError(inferShuffle(p, in), {"first transpose (0, 0)", "[2, 3]"});
    p = {};
    p.reshape = Dims{2, {-1, -1}};
    expectError(inferShuffle(p, in), {"more than one -1", "[-1, -1]"});
    p.reshape = Dims{1, {5}};
    expectError(inferShuffle(p, in), {"element counts 6 and 5 differ", "[2, 3]"});
    p.reshape = Dims{2, {4, -1}};
    expectError(inferShuffle(p, in), {"-1 cannot be inferred"});
    p.reshape = Dims{3, {2, 3, 0}};
    expectError(inferShuffle(p, in), {"0 placeholder past the input's rank"});
    p.reshape = Dims{1, {-2}};
    expectError(inferShuffle(p, in), {"dimension 0 is -2"});
    p.reshape = Dims{3, {int64_t{1} << 56, 512, -1}}; // Found by fuzzing plans: the product overflowed (UB).
    expectError(inferShuffle(p, in), {"dimensions multiply past 2^63"});
    p.reshape = Dims{1, {6}};
    p.secondTranspose.order[0] = 1;
    expectError(inferShuffle(p, in), {"second transpose (1)", "[6]"});
    expectError(inferShuffle({}, {DataType::kINT4, Dims{1, {2}}}), {"kINT4"});
    HostBuffer a(DataType::kHALF, Dims{2, {2, 3}});
    HostBuffer b(DataType::kHALF, Dims{2, {2, 3}});
    p = {};
    p.firstTranspose.order[0] = 1;
    p.firstTranspose.order[1] = 0;
    expectError(runShuffle(p, a.tensor(), b.tensor()), {"output is kHALF [2, 3]", "kHALF [3, 2]"});
}

TEST(HostShuffle, ZeroAsLiteralWhenNotAPlaceholder)
{
    ShuffleParams p;
    p.zeroIsPlaceholder = false;
    p.reshape = Dims{2, {0, 4}};
    Expected<TensorDesc> const d = inferShuffle(p, {DataType::kFLOAT, Dims{2, {0, 3}}});
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_TRUE(sameShape(d.value().dims, Dims{2, {0, 4}}));
}

} // namespace
} // namespace kiln::host::test
