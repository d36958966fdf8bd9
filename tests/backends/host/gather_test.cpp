// SPDX-License-Identifier: Apache-2.0
// The host gather against expectations computed here from the modes' definitions, on random shapes, every data type
// and both index types, and every refusal.
#include "backends/host/gather.h"

#include "movement_test_util.h"

namespace kiln::host::test
{
namespace
{

using nvinfer1::GatherMode;

//! Random indices in [0, extent) written into an index buffer.
void randomIndices(std::mt19937& rng, HostBuffer& indices, int64_t extent)
{
    for (int64_t i = 0; i < elementCount(indices.tensor()); ++i)
    {
        encodeInteger(indices.tensor().type, indices.bytes().data(), i, static_cast<int64_t>(rng() % extent));
    }
}

int64_t indexAt(HostBuffer const& indices, int64_t i)
{
    return decodeInteger(indices.tensor().type, bytesOf(indices), i);
}

TEST(HostGather, TableFollowsTheEnum)
{
    ASSERT_EQ(gatherModes().size(), 3U);
    EXPECT_STREQ(gatherModes()[1].name, "kELEMENT");
    EXPECT_STREQ(gatherModes()[2].onnx, "GatherND");
}

TEST(HostGather, DefaultMatchesOnnxGather)
{
    std::mt19937 rng(101);
    for (int32_t trial = 0; trial < 300; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        DataType const indexType = trial % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
        int32_t const r = 1 + static_cast<int32_t>(rng() % 3);
        Dims const data = shapeOfRank(rng, r);
        int32_t const axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(r));
        int32_t const k = axis >= 1 && rng() % 2 == 0 ? 1 : 0;
        Dims indexDims = shapeOfRank(rng, k + static_cast<int32_t>(rng() % 3), 3, true);
        if (k == 1)
        {
            indexDims.d[0] = data.d[0];
        }
        int32_t const q = indexDims.nbDims;
        // out = data[:axis] + indices[k:] + data[axis + 1:]
        Dims outDims{0, {}};
        for (int32_t i = 0; i < axis; ++i)
        {
            outDims.d[outDims.nbDims++] = data.d[i];
        }
        for (int32_t i = k; i < q; ++i)
        {
            outDims.d[outDims.nbDims++] = indexDims.d[i];
        }
        for (int32_t i = axis + 1; i < r; ++i)
        {
            outDims.d[outDims.nbDims++] = data.d[i];
        }
        HostBuffer in(type, data);
        HostBuffer idx(indexType, indexDims);
        HostBuffer out(type, outDims);
        randomBytes(rng, in);
        randomIndices(rng, idx, data.d[axis]);
        GatherParams const params{GatherMode::kDEFAULT, axis, k};
        Expected<TensorDesc> const desc = inferGather(params, {type, data}, {indexType, indexDims});
        ASSERT_TRUE(desc.ok()) << desc.error().message;
        ASSERT_TRUE(sameShape(desc.value().dims, outDims)) << shapeString(desc.value().dims);
        Status const done = runGather(params, in.tensor(), idx.tensor(), out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(outDims); ++o)
        {
            std::vector<int64_t> const c = coords(outDims, o);
            std::vector<int64_t> ic;
            if (k == 1)
            {
                ic.push_back(c[0]);
            }
            for (int32_t i = k; i < q; ++i)
            {
                ic.push_back(c[static_cast<std::size_t>(axis + i - k)]);
            }
            std::vector<int64_t> dc(c.begin(), c.begin() + axis);
            dc.push_back(indexAt(idx, linear(indexDims, ic)));
            dc.insert(dc.end(), c.begin() + axis + q - k, c.end());
            ASSERT_TRUE(sameElement(out, o, in, linear(data, dc)))
                << dataTypeName(type) << " data " << shapeString(data) << " axis " << axis << " k " << k << " o " << o;
        }
    }
}

TEST(HostGather, ElementMatchesOnnxGatherElements)
{
    std::mt19937 rng(102);
    for (int32_t trial = 0; trial < 200; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        DataType const indexType = trial % 2 == 0 ? DataType::kINT64 : DataType::kINT32;
        int32_t const r = 1 + static_cast<int32_t>(rng() % 3);
        Dims const data = shapeOfRank(rng, r);
        int32_t const axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(r));
        Dims indexDims = data;
        for (int32_t i = 0; i < r; ++i)
        {
            indexDims.d[i] = i == axis ? static_cast<int64_t>(rng() % 4) : 1 + static_cast<int64_t>(rng() % data.d[i]);
        }
        HostBuffer in(type, data);
        HostBuffer idx(indexType, indexDims);
        HostBuffer out(type, indexDims);
        randomBytes(rng, in);
        randomIndices(rng, idx, data.d[axis]);
        Status const done = runGather({GatherMode::kELEMENT, axis, 0}, in.tensor(), idx.tensor(), out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(indexDims); ++o)
        {
            std::vector<int64_t> c = coords(indexDims, o);
            c[static_cast<std::size_t>(axis)] = indexAt(idx, o);
            ASSERT_TRUE(sameElement(out, o, in, linear(data, c))) << shapeString(data) << " axis " << axis;
        }
    }
}

TEST(HostGather, NdMatchesOnnxGatherNd)
{
    std::mt19937 rng(103);
    for (int32_t trial = 0; trial < 200; ++trial)
    {
        DataType const type = moveTypes()[trial % moveTypes().size()];
        DataType const indexType = trial % 2 == 0 ? DataType::kINT32 : DataType::kINT64;
        int32_t const r = 1 + static_cast<int32_t>(rng() % 4);
        Dims const data = shapeOfRank(rng, r);
        int32_t const k = r >= 2 && rng() % 2 == 0 ? 1 : 0;
        int64_t const m = 1 + static_cast<int64_t>(rng() % static_cast<uint32_t>(r - k));
        Dims indexDims = shapeOfRank(rng, k + 1 + static_cast<int32_t>(rng() % 2), 3, true);
        if (k == 1)
        {
            indexDims.d[0] = data.d[0];
        }
        indexDims.d[indexDims.nbDims - 1] = m;
        int32_t const q = indexDims.nbDims;
        Dims outDims{0, {}};
        for (int32_t i = 0; i < q - 1; ++i)
        {
            outDims.d[outDims.nbDims++] = indexDims.d[i];
        }
        for (auto i = static_cast<int32_t>(k + m); i < r; ++i)
        {
            outDims.d[outDims.nbDims++] = data.d[i];
        }
        HostBuffer in(type, data);
        HostBuffer idx(indexType, indexDims);
        HostBuffer out(type, outDims);
        randomBytes(rng, in);
        for (int64_t i = 0; i < elementCount(indexDims); ++i)
        {
            int64_t const axis = k + i % m;
            encodeInteger(indexType, idx.bytes().data(), i, static_cast<int64_t>(rng() % data.d[axis]));
        }
        Status const done = runGather({GatherMode::kND, 0, k}, in.tensor(), idx.tensor(), out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;
        for (int64_t o = 0; o < elementCount(outDims); ++o)
        {
            std::vector<int64_t> const c = coords(outDims, o);
            std::vector<int64_t> row(c.begin(), c.begin() + q - 1);
            row.push_back(0);
            int64_t const base = linear(indexDims, row);
            std::vector<int64_t> dc;
            if (k == 1)
            {
                dc.push_back(c[0]);
            }
            for (int64_t j = 0; j < m; ++j)
            {
                dc.push_back(indexAt(idx, base + j));
            }
            dc.insert(dc.end(), c.begin() + q - 1, c.end());
            ASSERT_TRUE(sameElement(out, o, in, linear(data, dc))) << shapeString(data) << " k " << k << " m " << m;
        }
    }
}

TEST(HostGather, OutOfRangeAndNegativeIndicesAreRefused)
{
    HostBuffer in(DataType::kFLOAT, Dims{2, {2, 4}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 1}});
    for (int64_t const bad : {int64_t{4}, int64_t{-1}, int64_t{1} << 40})
    {
        HostBuffer idx(DataType::kINT64, Dims{1, {1}});
        encodeInteger(DataType::kINT64, idx.bytes().data(), 0, bad);
        expectError(runGather({GatherMode::kDEFAULT, 1, 0}, in.tensor(), idx.tensor(), out.tensor()),
            {"kDEFAULT", "index " + std::to_string(bad), "extent 4", "do not wrap"});
    }
    HostBuffer idx(DataType::kINT32, Dims{2, {2, 1}});
    encodeInteger(DataType::kINT32, idx.bytes().data(), 1, -3);
    expectError(runGather({GatherMode::kELEMENT, 1, 0}, in.tensor(), idx.tensor(), out.tensor()),
        {"kELEMENT", "index -3", "extent 4"});
    HostBuffer nd(DataType::kINT32, Dims{2, {1, 2}});
    encodeInteger(DataType::kINT32, nd.bytes().data(), 0, 2);
    HostBuffer ndOut(DataType::kFLOAT, Dims{1, {1}});
    expectError(runGather({GatherMode::kND, 0, 0}, in.tensor(), nd.tensor(), ndOut.tensor()),
        {"kND", "index 2", "extent 2", "dimension 0"});
}

TEST(HostGather, RefusalsNameShapesAndTypes)
{
    TensorDesc const data{DataType::kFLOAT, Dims{2, {3, 4}}};
    TensorDesc const idx{DataType::kINT32, Dims{1, {2}}};
    expectError(inferGather({GatherMode{7}, 0, 0}, data, idx), {"unknown GatherMode 7"});
    expectError(inferGather({GatherMode::kDEFAULT, 0, 0}, data, {DataType::kFLOAT, Dims{1, {2}}}),
        {"kFLOAT indices", "kINT32, kINT64"});
    expectError(inferGather({GatherMode::kDEFAULT, 0, 0}, {DataType::kINT4, Dims{1, {2}}}, idx), {"kINT4 data"});
    expectError(inferGather({GatherMode::kDEFAULT, 2, 0}, data, idx), {"axis 2", "[3, 4]", "[2]"});
    expectError(inferGather({GatherMode::kDEFAULT, 0, 2}, data, idx), {"nbElementWiseDims is 2"});
    expectError(inferGather({GatherMode::kELEMENT, 0, 1}, data, idx), {"0 in kELEMENT"});
    expectError(
        inferGather({GatherMode::kDEFAULT, 0, 1}, data, {DataType::kINT32, Dims{1, {3}}}), {"at most the axis 0"});
    expectError(inferGather({GatherMode::kDEFAULT, 1, 1}, data, idx), {"element-wise dimension 0", "[3, 4]", "[2]"});
    expectError(inferGather({GatherMode::kELEMENT, 0, 0}, data, idx), {"same rank", "[3, 4]"});
    expectError(inferGather({GatherMode::kELEMENT, 0, 0}, data, {DataType::kINT32, Dims{2, {1, 5}}}),
        {"extent 5 in dimension 1 exceeds"});
    expectError(inferGather({GatherMode::kND, 0, 0}, data, {DataType::kINT32, Dims{1, {3}}}),
        {"last extent must be 1 to", "(2)"});
    expectError(inferGather({GatherMode::kDEFAULT, 0, 0}, {DataType::kFLOAT, Dims{0, {}}}, idx), {"rank 1 or more"});
    HostBuffer in(DataType::kFLOAT, Dims{1, {3}});
    HostBuffer index(DataType::kINT32, Dims{1, {2}});
    HostBuffer wrong(DataType::kHALF, Dims{1, {2}});
    expectError(runGather({GatherMode::kDEFAULT, 0, 0}, in.tensor(), index.tensor(), wrong.tensor()),
        {"output is kHALF [2]", "kFLOAT [2]"});
    HostTensor noData = in.tensor();
    noData.data = nullptr;
    HostBuffer out(DataType::kFLOAT, Dims{1, {2}});
    expectError(runGather({GatherMode::kDEFAULT, 0, 0}, noData, index.tensor(), out.tensor()),
        {"data of shape [3] has no data"});
}

} // namespace
} // namespace kiln::host::test
