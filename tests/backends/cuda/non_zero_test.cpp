// SPDX-License-Identifier: Apache-2.0
// The CUDA non-zero kernel against the host reference, exactly (the count and every coordinate): every type it takes,
// both indices and count types, fixed shapes (a detection-sized mask, a long vector, rank 0, empty inputs, all zeros,
// all non-zero) and random shapes with about half the elements zero and special values (NaN, -0, infinities, kINT8
// codes); indices with more room than needed; and the refusals (the host's messages).
#include "backends/host/non_zero.h"

#include "cuda_test_util.h"

#include <array>
#include <limits>
#include <sstream>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

constexpr std::array kTypes{DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kINT32,
    DataType::kINT64, DataType::kBOOL};

class CudaNonZero : public CudaKernelTest
{
protected:
    //! An input of type and dims: zero with probability zeroShare, else a value (special ones sometimes).
    HostBuffer input(DataType type, Dims const& dims, double zeroShare)
    {
        HostBuffer in(type, dims, type == DataType::kINT8 ? 0.5F : 1.0F);
        int64_t const n = host::elementCount(dims);
        bool const floating = host::numberKind(type) == host::NumberKind::kFLOATING;
        double const specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
            -std::numeric_limits<double>::infinity(), -0.0, 1e-30};
        std::uniform_real_distribution<double> share(0.0, 1.0);
        for (int64_t i = 0; i < n; ++i)
        {
            if (share(mRng) < zeroShare)
            {
                host::storeInteger(in.tensor(), i, 0);
            }
            else if (floating && type != DataType::kINT8 && mRng() % 16 == 0)
            {
                host::storeFloat(in.tensor(), i, specials[mRng() % 5]);
            }
            else
            {
                host::storeInteger(in.tensor(), i, type == DataType::kBOOL ? 1 : static_cast<int64_t>(mRng() % 9) - 4);
            }
        }
        return in;
    }

    //! Runs both backends on in and compares the count and the compact coordinates exactly.
    void compare(HostBuffer const& in, DataType indicesType, DataType countType, int64_t room, std::string const& what)
    {
        SCOPED_TRACE(what);
        NonZeroParams const params{indicesType};
        Expected<host::TensorDesc> const desc = host::inferNonZero(params, {in.tensor().type, in.tensor().dims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        Dims roomy = desc.value().dims;
        roomy.d[1] += room;
        HostBuffer indices(indicesType, roomy);
        HostBuffer count(countType, Dims{0, {}});
        Status const hostDone = host::runNonZero(params, in.tensor(), indices.tensor(), count.tensor());
        ASSERT_TRUE(hostDone.ok()) << hostDone.error().message;
        DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
        DeviceBuffer const dindices(indices.tensor());
        DeviceBuffer const dcount(count.tensor());
        Status const done = cuda::runNonZero(params, din.tensor(), dindices.tensor(), dcount.tensor(), launch());
        ASSERT_TRUE(done.ok()) << done.error().message;
        HostBuffer const gotCount = dcount.download(mStream);
        int64_t const n = host::loadInteger(count.tensor(), 0);
        ASSERT_EQ(host::loadInteger(gotCount.tensor(), 0), n);
        HostBuffer const got = dindices.download(mStream);
        for (int64_t k = 0, failures = 0; k < in.tensor().dims.nbDims * n && failures < 10; ++k)
        {
            bool const same = host::loadInteger(got.tensor(), k) == host::loadInteger(indices.tensor(), k);
            EXPECT_TRUE(same) << "element " << k << ": device " << host::loadInteger(got.tensor(), k) << ", host "
                              << host::loadInteger(indices.tensor(), k);
            failures += same ? 0 : 1;
        }
    }

    void check(
        DataType type, Dims const& dims, double zeroShare, DataType indicesType, DataType countType, int64_t room = 0)
    {
        std::ostringstream what;
        what << dataTypeName(type) << " " << host::shapeString(dims) << " zeros " << zeroShare << " indices "
             << dataTypeName(indicesType) << " count " << dataTypeName(countType) << " room +" << room;
        compare(input(type, dims, zeroShare), indicesType, countType, room, what.str());
    }
};

TEST_F(CudaNonZero, FixedShapesEveryType)
{
    std::vector<std::pair<Dims, double>> const cases{
        {Dims{2, {1, 8400}}, 0.9},                // a detection head's mask: mostly zero
        {Dims{1, {1 << 20}}, 0.5},                // one long vector (several blocks, CUB's multi-pass scan)
        {Dims{4, {2, 3, 4, 5}}, 0.5},             // rank 4
        {Dims{8, {2, 2, 2, 2, 2, 2, 2, 2}}, 0.3}, // the largest rank
        {Dims{0, {}}, 0.0},                       // rank 0, non-zero
        {Dims{0, {}}, 1.0},                       // rank 0, zero
        {Dims{2, {0, 7}}, 0.5},                   // empty
        {Dims{2, {33, 65}}, 1.0},                 // all zero
        {Dims{2, {33, 65}}, 0.0},                 // none zero
    };
    for (auto const& [dims, zeros] : cases)
    {
        for (DataType const type : kTypes)
        {
            check(type, dims, zeros, DataType::kINT64, DataType::kINT64);
            check(type, dims, zeros, DataType::kINT32, DataType::kINT32, 5);
        }
    }
}

TEST_F(CudaNonZero, RandomShapes)
{
    for (int trial = 0; trial < 200; ++trial)
    {
        Dims dims{static_cast<int32_t>(mRng() % 6), {}};
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            dims.d[i] = static_cast<int64_t>(mRng() % 17);
        }
        DataType const type = kTypes[static_cast<std::size_t>(mRng() % kTypes.size())];
        check(type, dims, 0.5, trial % 2 == 0 ? DataType::kINT64 : DataType::kINT32,
            trial % 3 == 0 ? DataType::kINT32 : DataType::kINT64, static_cast<int64_t>(mRng() % 3));
    }
}

TEST_F(CudaNonZero, RefusesWhatTheHostRefuses)
{
    HostBuffer const in(DataType::kFLOAT, Dims{2, {2, 3}});
    DeviceBuffer const din = DeviceBuffer::upload(in.tensor());
    HostBuffer const small(DataType::kINT64, Dims{2, {2, 5}});
    DeviceBuffer const dsmall(small.tensor());
    HostBuffer const count(DataType::kINT64, Dims{0, {}});
    DeviceBuffer const dcount(count.tensor());
    Status const done
        = cuda::runNonZero(NonZeroParams{DataType::kINT64}, din.tensor(), dsmall.tensor(), dcount.tensor(), launch());
    ASSERT_FALSE(done.ok());
    EXPECT_NE(done.error().message.find("non-zero: the indices are kINT64 [2, 5]; they must be kINT64 [2, n] with n "
                                        "at least 6"),
        std::string::npos)
        << done.error().message;
    HostBuffer const bytes(DataType::kUINT8, Dims{1, {3}});
    DeviceBuffer const dbytes = DeviceBuffer::upload(bytes.tensor());
    Status const refused = cuda::runNonZero(
        NonZeroParams{DataType::kINT64}, dbytes.tensor(), dsmall.tensor(), dcount.tensor(), launch());
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("does not take kUINT8 inputs"), std::string::npos)
        << refused.error().message;
}

} // namespace
} // namespace kiln::cuda::test
