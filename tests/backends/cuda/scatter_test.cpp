// SPDX-License-Identifier: Apache-2.0
// The CUDA scatter against the host reference, exactly (elements move as bytes): both modes, every element size, both
// index types, random shapes and axes (negative ones too), negative and out-of-range indices (skipped), a large
// scatter (the grid-stride loop), an empty one, and the refusals (the host's messages). Indices are unique within a
// case where they address the same element: which of repeated updates wins is unspecified on the GPU.
#include "backends/host/scatter.h"

#include "cuda_test_util.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kiln::cuda::test
{
namespace
{

using nvinfer1::ScatterMode;

constexpr std::array kTypes{DataType::kFLOAT, DataType::kHALF, DataType::kINT8, DataType::kINT32, DataType::kINT64,
    DataType::kBOOL, DataType::kBF16};

class CudaScatter : public CudaKernelTest
{
protected:
    //! Random bytes in every element of t (any bit pattern moves).
    void randomBytes(HostBuffer& t)
    {
        auto* bytes = reinterpret_cast<uint8_t*>(t.bytes().data());
        for (std::size_t i = 0; i < t.bytes().size(); ++i)
        {
            bytes[i] = static_cast<uint8_t>(mRng() % 256);
        }
        if (t.tensor().type == DataType::kBOOL)
        {
            for (std::size_t i = 0; i < t.bytes().size(); ++i)
            {
                bytes[i] &= 1U;
            }
        }
    }

    //! Runs the scatter on both backends and compares the outputs byte for byte.
    void compare(ScatterParams const& params, HostBuffer& data, HostBuffer& indices, HostBuffer& updates,
        std::string const& what)
    {
        SCOPED_TRACE(what);
        HostBuffer expected(data.tensor().type, data.tensor().dims);
        host::Status const done
            = host::runScatter(params, data.tensor(), indices.tensor(), updates.tensor(), expected.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        DeviceBuffer const dData = DeviceBuffer::upload(data.tensor());
        DeviceBuffer const dIndices = DeviceBuffer::upload(indices.tensor());
        DeviceBuffer const dUpdates = DeviceBuffer::upload(updates.tensor());
        DeviceBuffer const dOut(expected.tensor());
        host::Status const ran
            = cuda::runScatter(params, dData.tensor(), dIndices.tensor(), dUpdates.tensor(), dOut.tensor(), launch());
        ASSERT_TRUE(ran.ok()) << ran.error().message;
        HostBuffer actual = dOut.download(mStream);
        ASSERT_TRUE(std::equal(actual.bytes().begin(), actual.bytes().end(), expected.bytes().begin()));
    }

    //! count distinct indices into an axis of extent: in range (some written negative, counted from the end), and with
    //! outOfRange possibly the one index extent (whose update is skipped).
    std::vector<int64_t> distinctIndices(int64_t count, int64_t extent, bool outOfRange)
    {
        std::vector<int64_t> pool(static_cast<std::size_t>(extent + (outOfRange ? 1 : 0)));
        std::iota(pool.begin(), pool.end(), 0);
        std::shuffle(pool.begin(), pool.end(), mRng);
        std::vector<int64_t> out(pool.begin(), pool.begin() + count);
        for (int64_t& i : out)
        {
            if (i < extent && mRng() % 3 == 0)
            {
                i -= extent; // the same element, counted from the end
            }
        }
        return out;
    }
};

TEST_F(CudaScatter, ElementsMatchTheHost)
{
    for (int32_t round = 0; round < 200; ++round)
    {
        Dims data{1 + static_cast<int32_t>(mRng() % 4), {}};
        for (int32_t i = 0; i < data.nbDims; ++i)
        {
            data.d[i] = 1 + static_cast<int64_t>(mRng() % 6);
        }
        auto const axis = static_cast<int32_t>(mRng() % static_cast<uint32_t>(data.nbDims));
        Dims indices = data;
        for (int32_t i = 0; i < data.nbDims; ++i)
        {
            indices.d[i] = 1 + static_cast<int64_t>(mRng() % static_cast<uint64_t>(data.d[i]));
        }
        DataType const type = kTypes[mRng() % kTypes.size()];
        DataType const indexType = mRng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
        HostBuffer dataBuffer(type, data);
        randomBytes(dataBuffer);
        HostBuffer updates(type, indices);
        randomBytes(updates);
        HostBuffer index(indexType, indices);
        // Along the axis, each line of the indices gets distinct targets (the extent itself is out of range).
        Dims line = indices;
        line.d[axis] = 1;
        for (int64_t l = 0; l < host::elementCount(line); ++l)
        {
            std::vector<int64_t> const targets = distinctIndices(indices.d[axis], data.d[axis], true);
            int64_t stride = 1;
            for (int32_t i = data.nbDims - 1; i > axis; --i)
            {
                stride *= indices.d[i];
            }
            int64_t const outer = l / stride;
            int64_t const inner = l % stride;
            for (int64_t j = 0; j < indices.d[axis]; ++j)
            {
                int64_t const at = (outer * indices.d[axis] + j) * stride + inner;
                host::storeInteger(index.tensor(), at, targets[static_cast<std::size_t>(j)]);
            }
        }
        ScatterParams const params{ScatterMode::kELEMENT, mRng() % 2 == 0 ? axis : axis - data.nbDims};
        compare(params, dataBuffer, index, updates,
            "round " + std::to_string(round) + " data " + host::shapeString(data) + " indices "
                + host::shapeString(indices) + " axis " + std::to_string(params.axis) + " " + dataTypeName(type));
        if (HasFatalFailure())
        {
            return;
        }
    }
}

TEST_F(CudaScatter, NdMatchesTheHost)
{
    for (int32_t round = 0; round < 200; ++round)
    {
        Dims data{1 + static_cast<int32_t>(mRng() % 4), {}};
        for (int32_t i = 0; i < data.nbDims; ++i)
        {
            data.d[i] = 1 + static_cast<int64_t>(mRng() % 5);
        }
        int64_t const k = 1 + static_cast<int64_t>(mRng() % static_cast<uint32_t>(data.nbDims));
        int64_t cells = 1;
        for (int64_t i = 0; i < k; ++i)
        {
            cells *= data.d[i];
        }
        // Distinct tuples: a shuffled subset of the cells of the first k axes (plus one out of range).
        int64_t const tuples = 1 + static_cast<int64_t>(mRng() % static_cast<uint64_t>(cells));
        std::vector<int64_t> cellIds(static_cast<std::size_t>(cells));
        std::iota(cellIds.begin(), cellIds.end(), 0);
        std::shuffle(cellIds.begin(), cellIds.end(), mRng);
        Dims indices{2, {tuples, k}};
        Dims updates{static_cast<int32_t>(1 + data.nbDims - k), {tuples}};
        for (int64_t i = k; i < data.nbDims; ++i)
        {
            updates.d[1 + i - k] = data.d[i];
        }
        DataType const type = kTypes[mRng() % kTypes.size()];
        DataType const indexType = mRng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
        HostBuffer dataBuffer(type, data);
        randomBytes(dataBuffer);
        HostBuffer update(type, updates);
        randomBytes(update);
        HostBuffer index(indexType, indices);
        for (int64_t t = 0; t < tuples; ++t)
        {
            int64_t cell = cellIds[static_cast<std::size_t>(t)];
            for (int64_t j = k - 1; j >= 0; --j)
            {
                int64_t coordinate = cell % data.d[j];
                cell /= data.d[j];
                if (mRng() % 4 == 0)
                {
                    coordinate -= data.d[j];
                }
                if (t == 0 && j == 0 && mRng() % 3 == 0)
                {
                    coordinate = data.d[0] + 1; // out of range: this update is skipped
                }
                host::storeInteger(index.tensor(), t * k + j, coordinate);
            }
        }
        compare(ScatterParams{ScatterMode::kND, 0}, dataBuffer, index, update,
            "round " + std::to_string(round) + " data " + host::shapeString(data) + " k " + std::to_string(k));
        if (HasFatalFailure())
        {
            return;
        }
    }
}

TEST_F(CudaScatter, ALargeScatterAndAnEmptyOne)
{
    // 3000 rows of 1000 floats: 3 million updates, more than one grid covers.
    Dims const data{2, {3000, 1000}};
    HostBuffer dataBuffer(DataType::kFLOAT, data);
    randomBytes(dataBuffer);
    HostBuffer update(DataType::kFLOAT, data);
    randomBytes(update);
    HostBuffer index(DataType::kINT64, Dims{2, {3000, 1}});
    std::vector<int64_t> const rows = distinctIndices(3000, 3000, false);
    for (int64_t r = 0; r < 3000; ++r)
    {
        host::storeInteger(index.tensor(), r, rows[static_cast<std::size_t>(r)]);
    }
    compare(ScatterParams{ScatterMode::kND, 0}, dataBuffer, index, update, "large");

    HostBuffer small(DataType::kHALF, Dims{1, {4}});
    randomBytes(small);
    HostBuffer none(DataType::kINT32, Dims{1, {0}});
    HostBuffer noUpdates(DataType::kHALF, Dims{1, {0}});
    compare(ScatterParams{ScatterMode::kELEMENT, 0}, small, none, noUpdates, "empty");
}

TEST_F(CudaScatter, RefusalsAreTheHosts)
{
    HostBuffer data(DataType::kFLOAT, Dims{2, {3, 4}});
    HostBuffer index(DataType::kFLOAT, Dims{2, {2, 4}});
    HostBuffer updates(DataType::kFLOAT, Dims{2, {2, 4}});
    DeviceBuffer const dData = DeviceBuffer::upload(data.tensor());
    DeviceBuffer const dIndex = DeviceBuffer::upload(index.tensor());
    DeviceBuffer const dUpdates = DeviceBuffer::upload(updates.tensor());
    DeviceBuffer const dOut(data.tensor());
    host::Status const refused = cuda::runScatter(ScatterParams{ScatterMode::kELEMENT, 0}, dData.tensor(),
        dIndex.tensor(), dUpdates.tensor(), dOut.tensor(), launch());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message, "scatter: the indices are kFLOAT; they must be kINT32 or kINT64");
}

} // namespace
} // namespace kiln::cuda::test
