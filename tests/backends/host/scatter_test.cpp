// SPDX-License-Identifier: Apache-2.0
// The host scatter against a definition computed here from coordinates (ONNX's ScatterElements and ScatterND with
// reduction "none"): both modes, random shapes, axes (negative ones too), index types and data types, negative and
// out-of-range indices, repeated indices (the last update kept), in-place runs, and every refusal.
#include "backends/host/scatter.h"

#include "host_test_util.h"

#include <map>

namespace kiln::host::test
{
namespace
{

using nvinfer1::ScatterMode;

//! A buffer of type and dims holding values (encoded by the test's own path).
HostBuffer tensorOf(DataType type, Dims const& dims, std::vector<double> const& values)
{
    HostBuffer buffer(type, dims);
    EXPECT_EQ(static_cast<int64_t>(values.size()), elementCount(dims));
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        if (type == DataType::kINT32 || type == DataType::kINT64)
        {
            encodeInteger(type, buffer.bytes().data(), static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
        }
        else
        {
            encode(type, buffer.bytes().data(), static_cast<int64_t>(i), values[i], 1.F);
        }
    }
    return buffer;
}

std::vector<double> valuesOf(HostBuffer& buffer)
{
    std::vector<double> values;
    for (int64_t i = 0; i < elementCount(buffer.tensor()); ++i)
    {
        DataType const type = buffer.tensor().type;
        values.push_back(type == DataType::kINT32 || type == DataType::kINT64
                ? static_cast<double>(decodeInteger(type, buffer.bytes().data(), i))
                : decode(type, buffer.bytes().data(), i, 1.F));
    }
    return values;
}

//! Row-major coordinates of index in dims.
std::vector<int64_t> coordinates(Dims const& dims, int64_t index)
{
    std::vector<int64_t> c(static_cast<std::size_t>(dims.nbDims));
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        c[static_cast<std::size_t>(i)] = index % dims.d[i];
        index /= dims.d[i];
    }
    return c;
}

int64_t linear(Dims const& dims, std::vector<int64_t> const& c)
{
    int64_t index = 0;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        index = index * dims.d[i] + c[static_cast<std::size_t>(i)];
    }
    return index;
}

//! The definition: out = data; for each update in row-major order, its target (skipped when out of range).
std::vector<double> reference(ScatterMode mode, int32_t axis, Dims const& data, std::vector<double> const& values,
    Dims const& indices, std::vector<double> const& index, Dims const& updates, std::vector<double> const& update)
{
    std::vector<double> out = values;
    for (int64_t u = 0; u < elementCount(updates); ++u)
    {
        std::vector<int64_t> target;
        if (mode == ScatterMode::kELEMENT)
        {
            target = coordinates(updates, u);
            int32_t const a = axis < 0 ? axis + data.nbDims : axis;
            auto i = static_cast<int64_t>(index[static_cast<std::size_t>(u)]);
            i = i < 0 ? i + data.d[a] : i;
            if (i < 0 || i >= data.d[a])
            {
                continue;
            }
            target[static_cast<std::size_t>(a)] = i;
        }
        else
        {
            int64_t const k = indices.d[indices.nbDims - 1];
            std::vector<int64_t> const c = coordinates(updates, u);
            auto const q1 = static_cast<std::size_t>(indices.nbDims - 1);
            std::vector<int64_t> tuplePosition(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(q1));
            tuplePosition.push_back(0);
            int64_t const first = linear(indices, tuplePosition);
            bool inside = true;
            for (int64_t j = 0; j < k; ++j)
            {
                auto i = static_cast<int64_t>(index[static_cast<std::size_t>(first + j)]);
                i = i < 0 ? i + data.d[j] : i;
                inside = inside && i >= 0 && i < data.d[j];
                target.push_back(i);
            }
            if (!inside)
            {
                continue;
            }
            target.insert(target.end(), c.begin() + static_cast<std::ptrdiff_t>(q1), c.end());
        }
        out[static_cast<std::size_t>(linear(data, target))] = update[static_cast<std::size_t>(u)];
    }
    return out;
}

//! Random values (integers in [0, 100), so every type tested holds them exactly).
std::vector<double> randomValues(std::mt19937& rng, int64_t count)
{
    std::vector<double> values;
    for (int64_t i = 0; i < count; ++i)
    {
        values.push_back(static_cast<double>(rng() % 100));
    }
    return values;
}

TEST(HostScatter, ElementsAlongAnAxisWithNegativeAndOutOfRangeIndices)
{
    // ONNX's ScatterElements example with axis 1, one index negative (-2 -> 3) and one out of range (skipped).
    HostBuffer data = tensorOf(DataType::kFLOAT, Dims{2, {1, 5}}, {1, 2, 3, 4, 5});
    HostBuffer indices = tensorOf(DataType::kINT64, Dims{2, {1, 3}}, {1, -2, 9});
    HostBuffer updates = tensorOf(DataType::kFLOAT, Dims{2, {1, 3}}, {1.1, 2.1, 3.1});
    HostBuffer out(DataType::kFLOAT, Dims{2, {1, 5}});
    ScatterParams const params{ScatterMode::kELEMENT, 1};
    ASSERT_TRUE(runScatter(params, data.tensor(), indices.tensor(), updates.tensor(), out.tensor()).ok());
    std::vector<double> const got = valuesOf(out);
    EXPECT_EQ(
        got, (std::vector<double>{1, roundTo(DataType::kFLOAT, 1.1, 1.F), 3, roundTo(DataType::kFLOAT, 2.1, 1.F), 5}));
    // The same with axis -1.
    ASSERT_TRUE(runScatter(
        ScatterParams{ScatterMode::kELEMENT, -1}, data.tensor(), indices.tensor(), updates.tensor(), out.tensor())
                    .ok());
    EXPECT_EQ(valuesOf(out), got);
}

TEST(HostScatter, NdWritesSlicesAndKeepsTheLastOfRepeatedIndices)
{
    // data [4, 2], tuples of one index: rows 3, 1, 3 (the second write to row 3 wins).
    HostBuffer data = tensorOf(DataType::kINT32, Dims{2, {4, 2}}, {0, 1, 2, 3, 4, 5, 6, 7});
    HostBuffer indices = tensorOf(DataType::kINT32, Dims{2, {3, 1}}, {3, 1, -1});
    HostBuffer updates = tensorOf(DataType::kINT32, Dims{2, {3, 2}}, {10, 11, 12, 13, 14, 15});
    HostBuffer out(DataType::kINT32, Dims{2, {4, 2}});
    ScatterParams const params{ScatterMode::kND, 0};
    ASSERT_TRUE(runScatter(params, data.tensor(), indices.tensor(), updates.tensor(), out.tensor()).ok());
    EXPECT_EQ(valuesOf(out), (std::vector<double>{0, 1, 12, 13, 4, 5, 14, 15}));
    // In place: the output is the data.
    ASSERT_TRUE(runScatter(params, data.tensor(), indices.tensor(), updates.tensor(), data.tensor()).ok());
    EXPECT_EQ(valuesOf(data), (std::vector<double>{0, 1, 12, 13, 4, 5, 14, 15}));
    // Full tuples: one element each (updates of rank indices' - 1).
    HostBuffer full = tensorOf(DataType::kINT64, Dims{2, {2, 2}}, {0, 1, 2, 0});
    HostBuffer two = tensorOf(DataType::kINT32, Dims{1, {2}}, {-7, -8});
    ASSERT_TRUE(runScatter(params, data.tensor(), full.tensor(), two.tensor(), out.tensor()).ok());
    EXPECT_EQ(valuesOf(out), (std::vector<double>{0, -7, 12, 13, -8, 5, 14, 15}));
}

TEST(HostScatter, MatchesTheDefinitionOnRandomInputs)
{
    std::mt19937 rng(1122);
    DataType const types[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT32, DataType::kINT64,
        DataType::kINT8, DataType::kUINT8};
    for (int32_t round = 0; round < 400; ++round)
    {
        Dims data{1 + static_cast<int32_t>(rng() % 4), {}};
        for (int32_t i = 0; i < data.nbDims; ++i)
        {
            data.d[i] = 1 + static_cast<int64_t>(rng() % 5);
        }
        DataType const type = types[rng() % 7];
        DataType const indexType = rng() % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
        ScatterMode const mode = rng() % 2 == 0 ? ScatterMode::kELEMENT : ScatterMode::kND;
        int32_t axis = 0;
        Dims indices{};
        Dims updates{};
        if (mode == ScatterMode::kELEMENT)
        {
            axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(data.nbDims));
            indices = data;
            for (int32_t i = 0; i < data.nbDims; ++i)
            {
                indices.d[i]
                    = i == axis ? 1 + static_cast<int64_t>(rng() % 6) : 1 + static_cast<int64_t>(rng()) % data.d[i];
            }
            updates = indices;
            axis = rng() % 2 == 0 ? axis : axis - data.nbDims;
        }
        else
        {
            int64_t const k = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(data.nbDims));
            int32_t const batch = static_cast<int32_t>(rng() % 3);
            indices = Dims{batch + 1, {}};
            for (int32_t i = 0; i < batch; ++i)
            {
                indices.d[i] = 1 + static_cast<int64_t>(rng() % 3);
            }
            indices.d[batch] = k;
            updates = Dims{static_cast<int32_t>(batch + data.nbDims - k), {}};
            for (int32_t i = 0; i < batch; ++i)
            {
                updates.d[i] = indices.d[i];
            }
            for (int64_t i = k; i < data.nbDims; ++i)
            {
                updates.d[batch + i - k] = data.d[i];
            }
        }
        SCOPED_TRACE("round " + std::to_string(round) + " data " + shapeString(data) + " indices "
            + shapeString(indices) + " updates " + shapeString(updates) + " axis " + std::to_string(axis));
        std::vector<double> const values = randomValues(rng, elementCount(data));
        std::vector<double> const update = randomValues(rng, elementCount(updates));
        // Indices: mostly in range, some negative, a few out of range (extent + 2 covers [-e-2, e+1]).
        std::vector<double> index;
        int32_t const a = axis < 0 ? axis + data.nbDims : axis;
        for (int64_t i = 0; i < elementCount(indices); ++i)
        {
            int64_t const extent
                = mode == ScatterMode::kELEMENT ? data.d[a] : data.d[i % indices.d[indices.nbDims - 1]];
            int64_t const span = 2 * extent + 4;
            index.push_back(
                static_cast<double>(static_cast<int64_t>(rng() % static_cast<uint32_t>(span)) - extent - 2));
        }
        HostBuffer dataBuffer = tensorOf(type, data, values);
        HostBuffer indexBuffer = tensorOf(indexType, indices, index);
        HostBuffer updateBuffer = tensorOf(type, updates, update);
        HostBuffer out(type, data);
        ScatterParams const params{mode, axis};
        Status const done
            = runScatter(params, dataBuffer.tensor(), indexBuffer.tensor(), updateBuffer.tensor(), out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        EXPECT_EQ(valuesOf(out), reference(mode, axis, data, values, indices, index, updates, update));
    }
}

TEST(HostScatter, Refusals)
{
    auto const error = [](ScatterParams const& params, TensorDesc const& data, TensorDesc const& indices,
                           TensorDesc const& updates) {
        Expected<TensorDesc> const made = inferScatter(params, data, indices, updates);
        return made ? std::string("accepted") : made.error().message;
    };
    TensorDesc const data{DataType::kFLOAT, Dims{2, {3, 4}}};
    TensorDesc const index{DataType::kINT32, Dims{2, {2, 4}}};
    TensorDesc const update{DataType::kFLOAT, Dims{2, {2, 4}}};
    ScatterParams const element{ScatterMode::kELEMENT, 0};
    EXPECT_EQ(error(element, data, index, update), "accepted");
    EXPECT_EQ(error(element, TensorDesc{DataType::kINT4, data.dims}, index, TensorDesc{DataType::kINT4, update.dims}),
        "scatter: does not take kINT4 data (it takes kFLOAT, kHALF, kINT8, kINT32, kBOOL, kUINT8, kFP8, kBF16, kINT64)");
    EXPECT_EQ(error(element, data, TensorDesc{DataType::kFLOAT, index.dims}, update),
        "scatter: the indices are kFLOAT; they must be kINT32 or kINT64");
    EXPECT_EQ(error(element, data, index, TensorDesc{DataType::kHALF, update.dims}),
        "scatter: the updates are kHALF but the data is kFLOAT; they must be one type");
    EXPECT_EQ(error(ScatterParams{ScatterMode::kELEMENT, 2}, data, index, update),
        "scatter: axis 2 is outside [-2, 2) for the data [3, 4]");
    EXPECT_EQ(error(element, data, index, TensorDesc{DataType::kFLOAT, Dims{2, {2, 3}}}),
        "scatter: kELEMENT needs indices and updates of one shape and the data's rank; the data is [3, 4], the indices "
        "[2, 4], the updates [2, 3]");
    EXPECT_EQ(error(element, data, TensorDesc{DataType::kINT32, Dims{2, {2, 5}}},
                  TensorDesc{DataType::kFLOAT, Dims{2, {2, 5}}}),
        "scatter: the indices [2, 5] exceed the data [3, 4] along axis 1 (only the scatter axis may be longer)");
    EXPECT_EQ(error(element, TensorDesc{DataType::kFLOAT, Dims{0, {}}}, TensorDesc{DataType::kINT32, Dims{0, {}}},
                  TensorDesc{DataType::kFLOAT, Dims{0, {}}}),
        "scatter: the data is 0-D; a scatter needs rank 1 or more");
    ScatterParams const nd{ScatterMode::kND, 0};
    EXPECT_EQ(error(nd, data, TensorDesc{DataType::kINT64, Dims{2, {2, 3}}}, update),
        "scatter: kND needs index tuples (the last extent of the indices [2, 3]) of 1 to the data's rank 2 entries");
    EXPECT_EQ(
        error(nd, data, TensorDesc{DataType::kINT64, Dims{2, {2, 1}}}, TensorDesc{DataType::kFLOAT, Dims{1, {2}}}),
        "scatter: the updates are [2]; kND needs indices.shape[:-1] + data.shape[k:] ([2, 4])");
    EXPECT_EQ(error(ScatterParams{static_cast<ScatterMode>(2), 0}, data, index, update),
        "scatter: mode 2 is not a valid ScatterMode");
    // Run time: the output's type and shape.
    HostBuffer d = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer i = tensorOf(DataType::kINT32, Dims{1, {1}}, {0});
    HostBuffer u = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {5});
    HostBuffer wrong(DataType::kHALF, Dims{1, {2}});
    Status const mismatch = runScatter(element, d.tensor(), i.tensor(), u.tensor(), wrong.tensor());
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().message, "scatter: the output is kHALF [2] but must be kFLOAT [2]");
}

} // namespace
} // namespace kiln::host::test
