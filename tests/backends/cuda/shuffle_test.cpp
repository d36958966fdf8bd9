// SPDX-License-Identifier: Apache-2.0
// The CUDA shuffle against the host's: random transposes and reshapes (-1, 0 placeholders, regroupings that cross
// dimensions) of every element size, rank 0, empty tensors, a grid larger than one pass, the copy-only paths, and the
// refusals with the host's messages.
#include "backends/host/shuffle.h"

#include "movement_test_util.h"

namespace kiln::cuda::test
{
namespace
{

class CudaShuffle : public CudaKernelTest
{
protected:
    //! Shuffles random bytes of type and inDims on the host and the device, and compares outcomes and bytes.
    void check(ShuffleParams const& params, DataType type, Dims const& inDims, std::string const& what)
    {
        HostBuffer in(type, inDims);
        randomBytes(in, mRng);
        Expected<host::TensorDesc> const desc = host::inferShuffle(params, {type, inDims});
        HostBuffer expected(type, desc ? desc.value().dims : inDims);
        Status const hostStatus = host::runShuffle(params, in.tensor(), expected.tensor());
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const deviceStatus = runShuffle(params, din.tensor(), dout.tensor(), launch());
        if (sameOutcome(deviceStatus, hostStatus, what))
        {
            HostBuffer actual = dout.download(mStream);
            expectSameBytes(actual, expected, what);
        }
    }

    //! Reshape dimensions for a tensor of shape from: its extents regrouped, or a random factorization of its count,
    //! with 1s inserted, then perhaps a -1 and 0 placeholders.
    Dims randomReshape(Dims const& from, bool& zeroIsPlaceholder)
    {
        int64_t const count = host::elementCount(from);
        Dims r{0, {}};
        if (count > 0 && mRng() % 2 == 0)
        {
            int64_t rest = count;
            int32_t const rank = 1 + static_cast<int32_t>(mRng() % 5);
            for (int32_t i = 0; i + 1 < rank; ++i)
            {
                std::vector<int64_t> divisors;
                for (int64_t d = 1; d <= rest; ++d)
                {
                    if (rest % d == 0)
                    {
                        divisors.push_back(d);
                    }
                }
                r.d[r.nbDims++] = divisors[mRng() % divisors.size()];
                rest /= r.d[r.nbDims - 1];
            }
            r.d[r.nbDims++] = rest;
        }
        else
        {
            for (int32_t i = 0; i < from.nbDims; ++i)
            {
                if (r.nbDims > 0 && mRng() % 2 == 0)
                {
                    r.d[r.nbDims - 1] *= from.d[i];
                }
                else
                {
                    r.d[r.nbDims++] = from.d[i];
                }
            }
        }
        while (r.nbDims < Dims::MAX_DIMS && mRng() % 4 == 0)
        {
            int32_t const at = static_cast<int32_t>(mRng() % static_cast<uint64_t>(r.nbDims + 1));
            for (int32_t i = r.nbDims; i > at; --i)
            {
                r.d[i] = r.d[i - 1];
            }
            r.d[at] = 1;
            ++r.nbDims;
        }
        zeroIsPlaceholder = count > 0;
        if (zeroIsPlaceholder && mRng() % 3 == 0)
        {
            for (int32_t i = 0; i < r.nbDims && i < from.nbDims; ++i)
            {
                if (r.d[i] == from.d[i] && mRng() % 2 == 0)
                {
                    r.d[i] = 0;
                }
            }
        }
        if (count > 0 && r.nbDims > 0 && mRng() % 3 == 0)
        {
            int32_t const at = static_cast<int32_t>(mRng() % static_cast<uint64_t>(r.nbDims));
            if (r.d[at] != 0)
            {
                r.d[at] = -1;
            }
        }
        return r;
    }
};

TEST_F(CudaShuffle, RandomShufflesMatchTheHost)
{
    std::vector<DataType> const types = moveTypes();
    for (int32_t trial = 0; trial < 400; ++trial)
    {
        DataType const type = types[static_cast<std::size_t>(trial) % types.size()];
        int32_t const rank = static_cast<int32_t>(mRng() % 7);
        Dims const in = randomShape(mRng, rank, 5, true);
        ShuffleParams params;
        params.firstTranspose = randomPermutation(mRng, rank);
        Dims transposed{rank, {}};
        for (int32_t i = 0; i < rank; ++i)
        {
            transposed.d[i] = in.d[params.firstTranspose.order[i]];
        }
        if (mRng() % 4 != 0)
        {
            params.reshape = randomReshape(transposed, params.zeroIsPlaceholder);
        }
        int32_t const reshapedRank = params.reshape.nbDims < 0 ? rank : params.reshape.nbDims;
        params.secondTranspose = randomPermutation(mRng, reshapedRank);
        check(params, type, in,
            "trial " + std::to_string(trial) + " " + describe(type, in) + " reshape "
                + host::shapeString(params.reshape));
    }
}

TEST_F(CudaShuffle, EveryElementSizeThroughAGridLargerThanOnePass)
{
    // More elements than 8192 blocks of 256 threads: each thread loops.
    for (DataType const type : {DataType::kUINT8, DataType::kHALF, DataType::kINT32, DataType::kINT64})
    {
        ShuffleParams params;
        params.firstTranspose.order[0] = 1;
        params.firstTranspose.order[1] = 0;
        params.reshape = Dims{3, {1999, 11, 100}};
        params.secondTranspose.order[0] = 2;
        params.secondTranspose.order[2] = 0;
        check(params, type, Dims{2, {1100, 1999}}, std::string("large ") + dataTypeName(type));
    }
}

TEST_F(CudaShuffle, CopiesWhenOnlyTheShapeChanges)
{
    ShuffleParams params;
    params.reshape = Dims{2, {3, -1}};
    check(params, DataType::kFLOAT, Dims{3, {2, 3, 4}}, "pure reshape");
    // A transpose that moves only extents of 1 keeps the row-major order.
    params.firstTranspose.order[0] = 1;
    params.firstTranspose.order[1] = 0;
    params.reshape = kUnsetDims;
    check(params, DataType::kBF16, Dims{3, {1, 5, 7}}, "unit transpose");
}

TEST_F(CudaShuffle, RankZeroAndEmptyTensors)
{
    ShuffleParams params;
    check(params, DataType::kINT64, Dims{0, {}}, "rank 0 identity");
    params.reshape = Dims{2, {1, 1}};
    params.secondTranspose.order[0] = 1;
    params.secondTranspose.order[1] = 0;
    check(params, DataType::kBOOL, Dims{0, {}}, "rank 0 to [1, 1]");

    ShuffleParams empty;
    empty.firstTranspose.order[0] = 2;
    empty.firstTranspose.order[2] = 0;
    empty.reshape = Dims{2, {0, 6}};
    empty.zeroIsPlaceholder = false;
    check(empty, DataType::kHALF, Dims{3, {3, 0, 2}}, "empty");
}

TEST_F(CudaShuffle, RefusesWhatTheHostRefuses)
{
    HostBuffer const in(DataType::kFLOAT, Dims{2, {2, 3}});
    DeviceBuffer const din(in.tensor());
    DeviceBuffer const dout(HostBuffer(DataType::kFLOAT, Dims{2, {3, 2}}).tensor());

    ShuffleParams notPermutation;
    notPermutation.firstTranspose.order[1] = 0;
    Status const bad = runShuffle(notPermutation, din.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message,
        "shuffle: the first transpose (0, 0) is not a permutation of the input [2, 3]'s dimensions");
    check(notPermutation, DataType::kFLOAT, Dims{2, {2, 3}}, "not a permutation");

    ShuffleParams badReshape;
    badReshape.reshape = Dims{2, {-1, -1}};
    check(badReshape, DataType::kINT8, Dims{2, {2, 3}}, "two -1");
    badReshape.reshape = Dims{2, {4, 2}};
    check(badReshape, DataType::kINT8, Dims{2, {2, 3}}, "counts differ");

    Status const wrongOutput = runShuffle(ShuffleParams{}, din.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(wrongOutput.ok());
    EXPECT_EQ(wrongOutput.error().message, "shuffle: the output is kFLOAT [3, 2] but must be kFLOAT [2, 3]");

    // Device data must be aligned to the element size (the host has no such rule).
    DeviceTensor unaligned = din.tensor();
    unaligned.data = static_cast<std::byte*>(unaligned.data) + 2;
    ShuffleParams transpose;
    transpose.firstTranspose.order[0] = 1;
    transpose.firstTranspose.order[1] = 0;
    Status const misaligned = runShuffle(transpose, unaligned, dout.tensor(), launch());
    ASSERT_FALSE(misaligned.ok());
    EXPECT_EQ(misaligned.error().message, "shuffle: the input's device data is not aligned to its 4-byte elements");
}

} // namespace
} // namespace kiln::cuda::test
