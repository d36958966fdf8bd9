// SPDX-License-Identifier: Apache-2.0
// The CUDA gather against the host's: the three modes on random shapes, axes and nbElementWiseDims, kINT32 and kINT64
// indices, every element size, rank-0 and empty indices, a grid larger than one pass, whole rows of 16 bytes;
// out-of-range indices (which the host refuses and the device cannot report) written as zero; and the refusals with the
// host's messages.
#include "backends/host/gather.h"

#include "movement_test_util.h"

#include <array>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::GatherMode;

class CudaGather : public CudaKernelTest
{
protected:
    //! Gathers random data of type with indices (filled by the caller) on the host and the device, and compares
    //! outcomes and bytes.
    void check(GatherParams const& params, DataType type, Dims const& dataDims, HostBuffer const& indices,
        std::string const& what)
    {
        HostBuffer data(type, dataDims);
        randomBytes(data, mRng);
        Expected<host::TensorDesc> const desc
            = host::inferGather(params, {type, dataDims}, {indices.tensor().type, indices.tensor().dims});
        HostBuffer expected(type, desc ? desc.value().dims : dataDims);
        Status const hostStatus = host::runGather(params, data.tensor(), indices.tensor(), expected.tensor());
        DeviceBuffer const ddata = DeviceBuffer::upload(data.tensor());
        DeviceBuffer const dindices = DeviceBuffer::upload(indices.tensor());
        DeviceBuffer const dout(expected.tensor());
        Status const deviceStatus = runGather(params, ddata.tensor(), dindices.tensor(), dout.tensor(), launch());
        if (sameOutcome(deviceStatus, hostStatus, what))
        {
            HostBuffer actual = dout.download(mStream);
            expectSameBytes(actual, expected, what);
        }
    }

    //! Indices of shape dims and a random index type; element i in [0, extentOf(i)).
    template <typename Extent>
    HostBuffer randomIndices(Dims const& dims, Extent extentOf)
    {
        HostBuffer indices(mRng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64, dims);
        for (int64_t i = 0; i < host::elementCount(dims); ++i)
        {
            int64_t const extent = extentOf(i);
            host::storeInteger(indices.tensor(), i, extent > 0 ? static_cast<int64_t>(mRng() % extent) : 0);
        }
        return indices;
    }
};

TEST_F(CudaGather, RandomGathersInEveryModeMatchTheHost)
{
    std::vector<DataType> const types = moveTypes();
    for (int32_t trial = 0; trial < 600; ++trial)
    {
        auto const mode = static_cast<GatherMode>(trial % 3);
        DataType const type = types[mRng() % types.size()];
        int32_t const r = 1 + static_cast<int32_t>(mRng() % 4);
        Dims const data = randomShape(mRng, r, 4);
        GatherParams params{mode, static_cast<int32_t>(mRng() % static_cast<uint64_t>(r)), 0};
        Dims indices{0, {}};
        bool const zeros = trial % 10 == 0; // empty indices sometimes
        switch (mode)
        {
        case GatherMode::kDEFAULT:
        {
            params.nbElementWiseDims = params.axis >= 1 && mRng() % 3 == 0 ? 1 : 0;
            int32_t const q = params.nbElementWiseDims + static_cast<int32_t>(mRng() % 4);
            indices = randomShape(mRng, q, 4, zeros);
            if (params.nbElementWiseDims == 1)
            {
                indices.d[0] = data.d[0];
            }
            break;
        }
        case GatherMode::kELEMENT:
            indices = Dims{r, {}};
            for (int32_t i = 0; i < r; ++i)
            {
                indices.d[i] = i == params.axis ? 1 + static_cast<int64_t>(mRng() % 4)
                                                : static_cast<int64_t>(mRng() % static_cast<uint64_t>(data.d[i] + 1));
            }
            break;
        case GatherMode::kND:
        {
            params.nbElementWiseDims = mRng() % 3 == 0 ? 1 : 0;
            int32_t const k = params.nbElementWiseDims;
            int32_t const q = k + 1 + static_cast<int32_t>(mRng() % 3);
            indices = randomShape(mRng, q, 3, zeros);
            if (k == 1)
            {
                indices.d[0] = data.d[0];
            }
            indices.d[q - 1] = r > k ? 1 + static_cast<int64_t>(mRng() % static_cast<uint64_t>(r - k)) : 1;
            break;
        }
        }
        HostBuffer const values = randomIndices(indices, [&](int64_t i) {
            switch (mode)
            {
            case GatherMode::kND:
            {
                int64_t const m = indices.d[indices.nbDims - 1];
                return data.d[params.nbElementWiseDims + i % m];
            }
            default: return data.d[params.axis];
            }
        });
        check(params, type, data, values,
            "trial " + std::to_string(trial) + " " + host::gatherModes()[static_cast<std::size_t>(mode)].name + " axis "
                + std::to_string(params.axis) + " k " + std::to_string(params.nbElementWiseDims) + " data "
                + describe(type, data) + " indices " + describe(values.tensor().type, indices));
    }
}

TEST_F(CudaGather, LargeGathersLoopOverTheGrid)
{
    for (DataType const type : {DataType::kUINT8, DataType::kBF16, DataType::kINT32, DataType::kINT64})
    {
        Dims const data{2, {3000, 50}};
        HostBuffer const indices = randomIndices(Dims{2, {1000, 50}}, [](int64_t) { return int64_t{50}; });
        check(
            GatherParams{GatherMode::kELEMENT, 1, 0}, type, data, indices, std::string("large ") + dataTypeName(type));
        HostBuffer const rows = randomIndices(Dims{1, {50000}}, [](int64_t) { return int64_t{3000}; });
        check(GatherParams{GatherMode::kDEFAULT, 0, 0}, type, data, rows,
            std::string("large rows ") + dataTypeName(type));
    }
}

TEST_F(CudaGather, WholeRowsOfSixteenBytesMatchTheHost)
{
    // The row copy (kDEFAULT, rows a multiple of 16 bytes): an embedding table [50, 768] of kHALF looked up by a batch
    // of token ids, rows inside a leading axis ([2, 10, 8] kFLOAT along axis 1), and kINT64 rows [7, 2] of 16 bytes.
    for (DataType const indexType : {DataType::kINT32, DataType::kINT64})
    {
        HostBuffer ids(indexType, Dims{2, {3, 7}});
        for (int64_t i = 0; i < 21; ++i)
        {
            host::storeInteger(ids.tensor(), i, static_cast<int64_t>(mRng() % 50));
        }
        check(GatherParams{GatherMode::kDEFAULT, 0, 0}, DataType::kHALF, Dims{2, {50, 768}}, ids, "embedding");
        HostBuffer picks(indexType, Dims{1, {5}});
        for (int64_t i = 0; i < 5; ++i)
        {
            host::storeInteger(picks.tensor(), i, static_cast<int64_t>(mRng() % 10));
        }
        check(GatherParams{GatherMode::kDEFAULT, 1, 0}, DataType::kFLOAT, Dims{3, {2, 10, 8}}, picks, "inner rows");
        check(GatherParams{GatherMode::kDEFAULT, 0, 0}, DataType::kINT64, Dims{2, {10, 2}}, picks, "int64 rows");
    }

    // Out-of-range ids give rows of zeros there too.
    HostBuffer table(DataType::kFLOAT, Dims{2, {3, 4}});
    for (int64_t i = 0; i < 12; ++i)
    {
        host::storeFloat(table.tensor(), i, static_cast<double>(i + 1));
    }
    HostBuffer ids(DataType::kINT32, Dims{1, {3}});
    for (int64_t i = 0; i < 3; ++i)
    {
        host::storeInteger(ids.tensor(), i, std::array<int64_t, 3>{2, 3, -1}[static_cast<std::size_t>(i)]);
    }
    DeviceBuffer const dtable = DeviceBuffer::upload(table.tensor());
    DeviceBuffer const dids = DeviceBuffer::upload(ids.tensor());
    DeviceBuffer const drows(HostBuffer(DataType::kFLOAT, Dims{2, {3, 4}}).tensor());
    ASSERT_TRUE(
        runGather(GatherParams{GatherMode::kDEFAULT, 0, 0}, dtable.tensor(), dids.tensor(), drows.tensor(), launch())
            .ok());
    HostBuffer const rows = drows.download(mStream);
    for (int64_t i = 0; i < 12; ++i)
    {
        EXPECT_EQ(host::loadFloat(rows.tensor(), i), i < 4 ? static_cast<double>(9 + i) : 0.0) << "element " << i;
    }
}

TEST_F(CudaGather, RankZeroAndEmptyIndices)
{
    HostBuffer scalar(DataType::kINT32, Dims{0, {}});
    host::storeInteger(scalar.tensor(), 0, 2);
    check(GatherParams{GatherMode::kDEFAULT, 1, 0}, DataType::kHALF, Dims{2, {2, 3}}, scalar, "rank-0 index");
    check(GatherParams{GatherMode::kDEFAULT, 0, 0}, DataType::kBOOL, Dims{1, {3}}, scalar, "rank-0 output");
    HostBuffer const none(DataType::kINT64, Dims{2, {0, 2}});
    check(GatherParams{GatherMode::kND, 0, 0}, DataType::kFLOAT, Dims{2, {2, 3}}, none, "no index rows");
    check(GatherParams{GatherMode::kDEFAULT, 1, 0}, DataType::kFLOAT, Dims{2, {2, 3}}, none, "no indices");
}

TEST_F(CudaGather, OutOfRangeIndicesGiveZeros)
{
    // data = {11, 12, 13, 14}; the host refuses -1 (negative indices do not wrap) and 4, the device writes 0.
    HostBuffer data(DataType::kINT32, Dims{1, {4}});
    for (int64_t i = 0; i < 4; ++i)
    {
        host::storeInteger(data.tensor(), i, 11 + i);
    }
    HostBuffer indices(DataType::kINT64, Dims{1, {4}});
    for (int64_t i = 0; i < 4; ++i)
    {
        host::storeInteger(indices.tensor(), i, std::array<int64_t, 4>{0, -1, 4, 3}[static_cast<std::size_t>(i)]);
    }
    HostBuffer out(DataType::kINT32, Dims{1, {4}});
    for (GatherMode const mode : {GatherMode::kDEFAULT, GatherMode::kELEMENT})
    {
        GatherParams const params{mode, 0, 0};
        Status const hostStatus = host::runGather(params, data.tensor(), indices.tensor(), out.tensor());
        ASSERT_FALSE(hostStatus.ok());
        EXPECT_NE(hostStatus.error().message.find("index -1 (indices element 1) is out of range for extent 4"),
            std::string::npos)
            << hostStatus.error().message;
        DeviceBuffer const ddata = DeviceBuffer::upload(data.tensor());
        DeviceBuffer const dindices = DeviceBuffer::upload(indices.tensor());
        DeviceBuffer const dout(out.tensor());
        ASSERT_TRUE(runGather(params, ddata.tensor(), dindices.tensor(), dout.tensor(), launch()).ok());
        HostBuffer const actual = dout.download(mStream);
        std::array<int64_t, 4> const expected{11, 0, 0, 14};
        for (int64_t i = 0; i < 4; ++i)
        {
            EXPECT_EQ(host::loadInteger(actual.tensor(), i), expected[static_cast<std::size_t>(i)]) << "element " << i;
        }
    }

    // kND: a row with one coordinate out of range gives a whole slice of zeros.
    HostBuffer matrix(DataType::kHALF, Dims{2, {2, 3}});
    for (int64_t i = 0; i < 6; ++i)
    {
        host::storeFloat(matrix.tensor(), i, static_cast<double>(i + 1));
    }
    HostBuffer rows(DataType::kINT32, Dims{2, {2, 1}});
    host::storeInteger(rows.tensor(), 0, 1);
    host::storeInteger(rows.tensor(), 1, 2);
    DeviceBuffer const dmatrix = DeviceBuffer::upload(matrix.tensor());
    DeviceBuffer const drows = DeviceBuffer::upload(rows.tensor());
    DeviceBuffer const dslices(HostBuffer(DataType::kHALF, Dims{2, {2, 3}}).tensor());
    ASSERT_TRUE(
        runGather(GatherParams{GatherMode::kND, 0, 0}, dmatrix.tensor(), drows.tensor(), dslices.tensor(), launch())
            .ok());
    HostBuffer const slices = dslices.download(mStream);
    std::array<double, 6> const expected{4, 5, 6, 0, 0, 0};
    for (int64_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(host::loadFloat(slices.tensor(), i), expected[static_cast<std::size_t>(i)]) << "element " << i;
    }
}

TEST_F(CudaGather, RefusesWhatTheHostRefuses)
{
    HostBuffer indices(DataType::kINT32, Dims{2, {2, 3}});
    check(GatherParams{GatherMode::kELEMENT, 0, 1}, DataType::kFLOAT, Dims{2, {2, 3}}, indices, "kELEMENT with k 1");
    check(GatherParams{GatherMode::kDEFAULT, 2, 0}, DataType::kFLOAT, Dims{2, {2, 3}}, indices, "axis 2 of rank 2");
    check(GatherParams{GatherMode::kND, 0, 0}, DataType::kFLOAT, Dims{2, {2, 3}},
        HostBuffer(DataType::kINT32, Dims{1, {3}}), "kND rows too long");
    HostBuffer const floatIndices(DataType::kFLOAT, Dims{1, {1}});
    check(GatherParams{}, DataType::kFLOAT, Dims{1, {3}}, floatIndices, "kFLOAT indices");

    HostBuffer const data(DataType::kFLOAT, Dims{2, {2, 3}});
    DeviceBuffer const ddata(data.tensor());
    DeviceBuffer const dindices(indices.tensor());
    DeviceBuffer const dout(HostBuffer(DataType::kFLOAT, Dims{1, {2}}).tensor());
    Status const wrong = runGather(
        GatherParams{GatherMode::kELEMENT, 0, 0}, ddata.tensor(), dindices.tensor(), dout.tensor(), launch());
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error().message, "gather kELEMENT: the output is kFLOAT [2] but must be kFLOAT [2, 3]");
}

} // namespace
} // namespace kiln::cuda::test
