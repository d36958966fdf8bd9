// SPDX-License-Identifier: Apache-2.0
// The host concatenation against offsets computed here, any number of inputs, zero extents, every refusal.
#include "backends/host/concatenation.h"

#include "movement_test_util.h"

namespace kiln::host::test
{
namespace
{

TEST(HostConcatenation, InputsFollowOneAnotherAlongTheAxis)
{
    std::mt19937 rng(401);
    for (int32_t trial = 0; trial < 200; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        int32_t const rank = 1 + static_cast<int32_t>(rng() % 3);
        int32_t const axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(rank));
        Dims const base = shapeOfRank(rng, rank, 3, true);
        std::size_t const n = 1 + rng() % 4;
        std::vector<HostBuffer> buffers;
        std::vector<HostTensor> inputs;
        std::vector<int64_t> firsts; // the first output coordinate along axis of each input
        Dims out = base;
        out.d[axis] = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            Dims dims = base;
            dims.d[axis] = static_cast<int64_t>(rng() % 4); // zero extents included
            firsts.push_back(out.d[axis]);
            out.d[axis] += dims.d[axis];
            buffers.emplace_back(type, dims);
            randomBytes(rng, buffers.back());
        }
        for (HostBuffer const& b : buffers)
        {
            inputs.push_back(b.tensor());
        }
        HostBuffer output(type, out);
        Status const done = runConcatenation({axis}, inputs, output.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(out); ++o)
        {
            std::vector<int64_t> c = coords(out, o);
            std::size_t which = n - 1;
            while (firsts[which] > c[static_cast<std::size_t>(axis)] || buffers[which].tensor().dims.d[axis] == 0)
            {
                --which;
            }
            c[static_cast<std::size_t>(axis)] -= firsts[which];
            ASSERT_TRUE(sameElement(output, o, buffers[which], linear(buffers[which].tensor().dims, c)))
                << "axis " << axis << " o " << o;
        }
    }
}

TEST(HostConcatenation, RefusalsNameTheInput)
{
    std::vector<TensorDesc> descs{{DataType::kFLOAT, Dims{2, {2, 3}}}, {DataType::kFLOAT, Dims{2, {3, 3}}}};
    expectError(inferConcatenation({1}, descs), {"input 1 has shape [3, 3]", "input 0 [2, 3]", "axis 1"});
    expectError(inferConcatenation({2}, descs), {"axis 2", "[2, 3]"});
    descs[1].type = DataType::kHALF;
    expectError(inferConcatenation({0}, descs), {"input 1 is kHALF", "input 0 is kFLOAT"});
    expectError(inferConcatenation({0}, {}), {"at least one input"});
    std::vector<TensorDesc> const scalar{{DataType::kFLOAT, Dims{0, {}}}};
    expectError(inferConcatenation({0}, scalar), {"rank 1 or more"});
    std::vector<TensorDesc> const packed{{DataType::kFP4, Dims{1, {2}}}};
    expectError(inferConcatenation({0}, packed), {"kFP4"});
    // Empty inputs whose axis extents add up past int64 (each is a valid empty shape), or past what a shape holds.
    int64_t const half = int64_t{1} << 62;
    std::vector<TensorDesc> const wide{{DataType::kFLOAT, Dims{2, {0, half}}}, {DataType::kFLOAT, Dims{2, {0, half}}}};
    expectError(inferConcatenation({1}, wide), {"the inputs' extents along axis 1 add up past a 64-bit extent"});
    int64_t const eighth = int64_t{1} << 60;
    std::vector<TensorDesc> const tall{
        {DataType::kFLOAT, Dims{3, {eighth, 0, 4}}}, {DataType::kFLOAT, Dims{3, {eighth, 0, 4}}}};
    expectError(inferConcatenation({0}, tall),
        {"the output [2305843009213693952, 0, 4] has extents whose product (its zeros left out) passes"});
    HostBuffer a(DataType::kINT8, Dims{1, {2}});
    HostBuffer out(DataType::kINT8, Dims{1, {3}});
    std::vector<HostTensor> const inputs{a.tensor()};
    expectError(runConcatenation({0}, inputs, out.tensor()), {"output is kINT8 [3]", "kINT8 [2]"});
}

} // namespace
} // namespace kiln::host::test
