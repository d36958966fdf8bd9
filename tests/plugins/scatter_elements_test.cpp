// SPDX-License-Identifier: Apache-2.0
// ScatterElements "2" on the host: the host implementation against ONNX's ScatterElements written here as nested
// loops (every reduction, negative axes and indices, updates smaller than data, FLOAT, FLOAT16, INT32 and INT64 with
// wrap-around), an index outside the axis skipped, the creator's fields and refusals (reduction required; a kCHAR
// value with or without its NUL), the build-time axis check, and engines built, serialized, deserialized and run, with
// version "2" and the legacy V2 version "1".
#include "core/float_convert.h"
#include "host_engine_support.h"
#include "scatter_elements.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;
using test::initPlugins;

ScatterParams scatterParams(
    ScatterReduction reduction, int32_t axis, std::vector<int64_t> const& data, std::vector<int64_t> const& updates)
{
    ScatterParams p;
    p.reduction = reduction;
    p.rank = static_cast<int32_t>(data.size());
    p.axis = axis < 0 ? axis + p.rank : axis;
    std::copy(data.begin(), data.end(), p.dataDims);
    std::copy(updates.begin(), updates.end(), p.updatesDims);
    return p;
}

//! ONNX ScatterElements by its definition: for every position of updates, the same position in the output with the
//! axis coordinate replaced by the index; combine(old, update) folds the updates in order.
template <typename T, typename Combine>
std::vector<T> scatterReference(std::vector<T> data, std::vector<int64_t> const& dataDims,
    std::vector<int64_t> const& indices, std::vector<T> const& updates, std::vector<int64_t> const& updatesDims,
    int32_t axis, Combine combine)
{
    auto const rank = static_cast<int32_t>(dataDims.size());
    axis = axis < 0 ? axis + rank : axis;
    std::vector<int64_t> position(static_cast<size_t>(rank), 0);
    for (size_t e = 0; e < updates.size(); ++e)
    {
        int64_t index = indices[e];
        if (index < 0)
        {
            index += dataDims[static_cast<size_t>(axis)];
        }
        if (index >= 0 && index < dataDims[static_cast<size_t>(axis)])
        {
            int64_t offset = 0;
            for (int32_t d = 0; d < rank; ++d)
            {
                offset = offset * dataDims[static_cast<size_t>(d)]
                    + (d == axis ? index : position[static_cast<size_t>(d)]);
            }
            data[static_cast<size_t>(offset)] = combine(data[static_cast<size_t>(offset)], updates[e]);
        }
        for (int32_t d = rank - 1; d >= 0; --d) // the next position of updates, row-major
        {
            if (++position[static_cast<size_t>(d)] < updatesDims[static_cast<size_t>(d)])
            {
                break;
            }
            position[static_cast<size_t>(d)] = 0;
        }
    }
    return data;
}

struct ScatterCase
{
    std::vector<int64_t> dataDims;
    std::vector<int64_t> updatesDims;
    int32_t axis;
};

std::vector<int64_t> randomIndices(std::mt19937_64& rng, size_t count, int64_t extent)
{
    std::uniform_int_distribution<int64_t> pick(-extent, extent - 1); // negative ones count from the end
    std::vector<int64_t> indices(count);
    for (int64_t& i : indices)
    {
        i = pick(rng);
    }
    return indices;
}

int64_t volume(std::vector<int64_t> const& dims)
{
    int64_t v = 1;
    for (int64_t d : dims)
    {
        v *= d;
    }
    return v;
}

std::vector<ScatterCase> const& cases()
{
    static std::vector<ScatterCase> const all{{{7}, {5}, 0}, {{4, 5}, {3, 5}, 0}, {{4, 5}, {4, 2}, -1},
        {{3, 4, 5}, {2, 3, 5}, 1}, {{3, 4, 5}, {3, 2, 6}, -1}, {{2, 3, 4}, {2, 3, 4}, -3}};
    return all;
}

TEST(ScatterElementsHost, FloatMatchesOnnxForEveryReduction)
{
    std::mt19937_64 rng(20261130);
    std::pair<ScatterReduction, float (*)(float, float)> const reductions[]
        = {{ScatterReduction::kNONE, [](float, float u) { return u; }},
            {ScatterReduction::kADD, [](float a, float u) { return a + u; }},
            {ScatterReduction::kMEAN, [](float a, float u) { return a + u; }},
            {ScatterReduction::kMUL, [](float a, float u) { return a * u; }},
            {ScatterReduction::kMIN, [](float a, float u) { return std::min(a, u); }},
            {ScatterReduction::kMAX, [](float a, float u) { return std::max(a, u); }}};
    for (ScatterCase const& c : cases())
    {
        for (auto const& [reduction, combine] : reductions)
        {
            SCOPED_TRACE(
                "axis " + std::to_string(c.axis) + " reduction " + std::to_string(static_cast<int>(reduction)));
            std::vector<float> const data = test::randomValues(rng, static_cast<size_t>(volume(c.dataDims)), -2.F, 2.F);
            std::vector<float> const updates
                = test::randomValues(rng, static_cast<size_t>(volume(c.updatesDims)), -2.F, 2.F);
            int32_t const axis = c.axis < 0 ? c.axis + static_cast<int32_t>(c.dataDims.size()) : c.axis;
            std::vector<int64_t> const indices
                = randomIndices(rng, updates.size(), c.dataDims[static_cast<size_t>(axis)]);
            std::vector<float> y(data.size(), -99.F);
            runScatterElementsHost(scatterParams(reduction, c.axis, c.dataDims, c.updatesDims), DataType::kFLOAT,
                data.data(), indices.data(), updates.data(), y.data());
            EXPECT_EQ(y, scatterReference(data, c.dataDims, indices, updates, c.updatesDims, c.axis, combine));
        }
    }
}

TEST(ScatterElementsHost, IntegersWrapAroundAndHalfCombinesInFloat)
{
    std::mt19937_64 rng(3);
    ScatterCase const c{{3, 4}, {3, 4}, 1};
    std::vector<int64_t> const indices = randomIndices(rng, 12, 4);
    // INT64 add near the top wraps around; INT32 mul wraps around.
    std::vector<int64_t> const data64(12, std::numeric_limits<int64_t>::max() - 1);
    std::vector<int64_t> const updates64(12, 5);
    std::vector<int64_t> y64(12);
    runScatterElementsHost(scatterParams(ScatterReduction::kADD, 1, c.dataDims, c.updatesDims), DataType::kINT64,
        data64.data(), indices.data(), updates64.data(), y64.data());
    EXPECT_EQ(y64, scatterReference(data64, c.dataDims, indices, updates64, c.updatesDims, 1, [](int64_t a, int64_t u) {
        return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(u));
    }));
    std::vector<int32_t> const data32(12, 1 << 20);
    std::vector<int32_t> const updates32(12, 1 << 15);
    std::vector<int32_t> y32(12);
    runScatterElementsHost(scatterParams(ScatterReduction::kMUL, 1, c.dataDims, c.updatesDims), DataType::kINT32,
        data32.data(), indices.data(), updates32.data(), y32.data());
    EXPECT_EQ(y32, scatterReference(data32, c.dataDims, indices, updates32, c.updatesDims, 1, [](int32_t a, int32_t u) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(u));
    }));
    std::vector<int32_t> y32max(12);
    runScatterElementsHost(scatterParams(ScatterReduction::kMAX, 1, c.dataDims, c.updatesDims), DataType::kINT32,
        data32.data(), indices.data(), updates32.data(), y32max.data());
    EXPECT_EQ(y32max, data32) << "1 << 15 never beats 1 << 20";

    std::vector<uint16_t> dataH;
    std::vector<uint16_t> updatesH;
    for (float v : test::randomValues(rng, 12, -1.F, 1.F))
    {
        dataH.push_back(floatToHalf(v));
    }
    for (float v : test::randomValues(rng, 12, -1.F, 1.F))
    {
        updatesH.push_back(floatToHalf(v));
    }
    std::vector<uint16_t> yH(12);
    runScatterElementsHost(scatterParams(ScatterReduction::kADD, 1, c.dataDims, c.updatesDims), DataType::kHALF,
        dataH.data(), indices.data(), updatesH.data(), yH.data());
    EXPECT_EQ(yH, scatterReference(dataH, c.dataDims, indices, updatesH, c.updatesDims, 1, [](uint16_t a, uint16_t u) {
        return floatToHalf(halfToFloat(a) + halfToFloat(u));
    }));
}

TEST(ScatterElementsHost, AnIndexOutsideTheAxisIsSkipped)
{
    std::vector<float> const data{1.F, 2.F, 3.F};
    std::vector<float> const updates{10.F, 20.F, 30.F, 40.F};
    std::vector<int64_t> const indices{3, -4, -3, 2}; // 3 and -4 are outside [-3, 3)
    std::vector<float> y(3);
    runScatterElementsHost(scatterParams(ScatterReduction::kADD, 0, {3}, {4}), DataType::kFLOAT, data.data(),
        indices.data(), updates.data(), y.data());
    EXPECT_EQ(y, (std::vector<float>{31.F, 2.F, 43.F}));
}

//! reduction as a kCHAR field of length bytes (the NUL counted or not), and axis.
struct ScatterFields
{
    std::string reduction;
    int32_t length;
    int32_t axis{0};
    std::vector<PluginField> fields;
    PluginFieldCollection collection{};

    ScatterFields(std::string r, bool withNul, int32_t a)
        : reduction(std::move(r))
        , length(static_cast<int32_t>(reduction.size()) + (withNul ? 1 : 0))
        , axis(a)
    {
    }
    PluginFieldCollection const* get()
    {
        fields = {PluginField{"reduction", reduction.c_str(), PluginFieldType::kCHAR, length},
            PluginField{"axis", &axis, PluginFieldType::kINT32, 1}};
        collection = {2, fields.data()};
        return &collection;
    }
};

TEST(ScatterElementsCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    test::PluginLog& log = initPlugins();
    nvinfer1::IPluginCreatorV3One* creator = test::v3Creator("ScatterElements", "2");
    ASSERT_NE(creator, nullptr);
    PluginFieldCollection const* declared = creator->getFieldNames();
    ASSERT_EQ(declared->nbFields, 2);
    EXPECT_STREQ(declared->fields[0].name, "reduction");
    EXPECT_EQ(declared->fields[0].type, PluginFieldType::kCHAR);
    EXPECT_STREQ(declared->fields[1].name, "axis");

    // Both spellings of a kCHAR value: TensorRT's parser counts the NUL, its Python bindings do not.
    for (bool withNul : {true, false})
    {
        ScatterFields f("max", withNul, -1);
        std::unique_ptr<nvinfer1::IPluginV3> plugin{
            creator->createPlugin("s", f.get(), nvinfer1::TensorRTPhase::kBUILD)};
        EXPECT_NE(plugin, nullptr) << log.mMessages;
    }

    // "mean" is accepted as TensorRT's plugin accepts it, and computed as its kernel computes it (a sum): said so.
    log.mMessages.clear();
    ScatterFields mean("mean", true, 0);
    std::unique_ptr<nvinfer1::IPluginV3> summing{
        creator->createPlugin("s", mean.get(), nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_NE(summing, nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: reduction 'mean' is computed as 'add'")) << log.mMessages;

    ScatterFields bad("median", true, 0);
    EXPECT_EQ(creator->createPlugin("s", bad.get(), nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: reduction is 'median'; it must be none, add, mul, min, max or mean"))
        << log.mMessages;

    int32_t const axis = 0;
    PluginField const axisOnly{"axis", &axis, PluginFieldType::kINT32, 1};
    PluginFieldCollection const noReduction{1, &axisOnly};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("s", &noReduction, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: field reduction is required")) << log.mMessages;

    PluginField const reductionWrong{"reduction", &axis, PluginFieldType::kINT32, 1};
    PluginFieldCollection const wrong{1, &reductionWrong};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("s", &wrong, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: field reduction must be kCHAR")) << log.mMessages;
}

//! A network data [4, 5] (type), indices [3, 5] INT64, updates [3, 5] -> ScatterElements -> Y.
struct ScatterNetwork
{
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
    std::unique_ptr<nvinfer1::IPluginV3> plugin;

    ScatterNetwork(test::PluginLog& log, char const* reduction, int32_t axis, DataType type, int64_t updatesRows = 3)
        : builder(nvinfer1::createInferBuilder(log))
        , network(builder->createNetworkV2(0))
    {
        ScatterFields f(reduction, true, axis);
        plugin.reset(
            test::v3Creator("ScatterElements", "2")->createPlugin("s", f.get(), nvinfer1::TensorRTPhase::kBUILD));
        nvinfer1::ITensor* inputs[] = {network->addInput("data", type, nvinfer1::Dims{2, {4, 5}}),
            network->addInput("indices", DataType::kINT64, nvinfer1::Dims{2, {3, 5}}),
            network->addInput("updates", type, nvinfer1::Dims{2, {updatesRows, 5}})};
        nvinfer1::IPluginV3Layer* layer
            = plugin != nullptr ? network->addPluginV3(inputs, 3, nullptr, 0, *plugin) : nullptr;
        if (layer != nullptr)
        {
            layer->getOutput(0)->setName("Y");
            network->markOutput(*layer->getOutput(0));
        }
    }
};

TEST(ScatterElementsEngine, SerializesDeserializesAndRuns)
{
    test::PluginLog& log = initPlugins();
    std::mt19937_64 rng(9);
    std::vector<int64_t> const indices = randomIndices(rng, 15, 4);
    {
        ScatterNetwork net(log, "add", -2, DataType::kFLOAT);
        ASSERT_NE(net.plugin, nullptr);
        std::vector<float> const data = test::randomValues(rng, 20, -1.F, 1.F);
        std::vector<float> const updates = test::randomValues(rng, 15, -1.F, 1.F);
        test::EngineRun const run = test::buildAndRun(*net.builder, *net.network,
            {{"data", data.data()}, {"indices", indices.data()}, {"updates", updates.data()}}, 20 * sizeof(float), log);
        ASSERT_EQ(run.failure, "");
        EXPECT_EQ(run.floats(),
            scatterReference(data, {4, 5}, indices, updates, {3, 5}, 0, [](float a, float u) { return a + u; }));
    }
    {
        ScatterNetwork net(log, "min", 0, DataType::kINT32);
        ASSERT_NE(net.plugin, nullptr);
        std::vector<int32_t> data(20);
        std::vector<int32_t> updates(15);
        for (size_t i = 0; i < data.size(); ++i)
        {
            data[i] = static_cast<int32_t>(i * 7 % 11) - 5;
        }
        for (size_t i = 0; i < updates.size(); ++i)
        {
            updates[i] = static_cast<int32_t>(i * 5 % 13) - 6;
        }
        test::EngineRun const run = test::buildAndRun(*net.builder, *net.network,
            {{"data", data.data()}, {"indices", indices.data()}, {"updates", updates.data()}}, 20 * sizeof(int32_t),
            log);
        ASSERT_EQ(run.failure, "");
        std::vector<int32_t> y(20);
        std::memcpy(y.data(), run.output.data(), run.output.size());
        EXPECT_EQ(y, scatterReference(data, {4, 5}, indices, updates, {3, 5}, 0, [](int32_t a, int32_t u) {
            return std::min(a, u);
        }));
    }
}

TEST(ScatterElementsEngine, AnAxisOutsideTheRankAndUnequalIndicesAndUpdatesAreRefusedAtBuildTime)
{
    test::PluginLog& log = initPlugins();
    ScatterNetwork net(log, "add", 2, DataType::kFLOAT);
    ASSERT_NE(net.plugin, nullptr);
    std::unique_ptr<nvinfer1::IBuilderConfig> config{net.builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{net.builder->buildSerializedNetwork(*net.network, *config)};
    EXPECT_EQ(plan, nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: axis is 2; for data of rank 2 it must be in [-2, 1]"))
        << log.mMessages;

    log.mMessages.clear();
    ScatterNetwork mismatched(log, "add", 0, DataType::kFLOAT, 2);
    ASSERT_NE(mismatched.plugin, nullptr);
    std::unique_ptr<nvinfer1::IBuilderConfig> mismatchedConfig{mismatched.builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> refused{
        mismatched.builder->buildSerializedNetwork(*mismatched.network, *mismatchedConfig)};
    EXPECT_EQ(refused, nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: indices and updates differ in extent 0 (3 and 2)")) << log.mMessages;
}

TEST(ScatterElementsEngine, TheLegacyVersionOneRunsTheSameOpAndSerializesItsFields)
{
    test::PluginLog& log = initPlugins();
    KILN_IGNORE_DEPRECATED_BEGIN
    auto* creator = static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("ScatterElements", "1", ""));
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    EXPECT_EQ(creator->getFieldNames()->nbFields, 2);
    ScatterFields bad("median", true, 0);
    EXPECT_EQ(creator->createPlugin("s", bad.get()), nullptr);
    EXPECT_TRUE(log.has("reduction is 'median'")) << log.mMessages;

    ScatterFields f("max", true, 1);
    nvinfer1::IPluginV2* created = creator->createPlugin("s", f.get());
    ASSERT_NE(created, nullptr);
    std::vector<uint8_t> bytes(created->getSerializationSize());
    ASSERT_EQ(bytes.size(), 8U);
    created->serialize(bytes.data());
    created->destroy();
    nvinfer1::IPluginV2* plugin = creator->deserializePlugin("s", bytes.data(), bytes.size());
    ASSERT_NE(plugin, nullptr);
    std::vector<uint8_t> badBytes = bytes;
    badBytes[0] = 9;
    log.mMessages.clear();
    EXPECT_EQ(creator->deserializePlugin("s", badBytes.data(), badBytes.size()), nullptr);
    EXPECT_TRUE(log.has("ScatterElements plugin: a serialized version 1 plugin is 8 bytes")) << log.mMessages;

    std::mt19937_64 rng(13);
    std::vector<int64_t> const indices = randomIndices(rng, 15, 5);
    std::vector<int64_t> data(20);
    std::vector<int64_t> updates(15);
    for (size_t i = 0; i < data.size(); ++i)
    {
        data[i] = static_cast<int64_t>(i * 3 % 7) - 3;
    }
    for (size_t i = 0; i < updates.size(); ++i)
    {
        updates[i] = static_cast<int64_t>(i * 5 % 9) - 4;
    }
    {
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(log)};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
        nvinfer1::ITensor* inputs[] = {network->addInput("data", DataType::kINT64, nvinfer1::Dims{2, {4, 5}}),
            network->addInput("indices", DataType::kINT64, nvinfer1::Dims{2, {3, 5}}),
            network->addInput("updates", DataType::kINT64, nvinfer1::Dims{2, {3, 5}})};
        nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 3, *plugin);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("Y");
        network->markOutput(*layer->getOutput(0));
        test::EngineRun const run = test::buildAndRun(*builder, *network,
            {{"data", data.data()}, {"indices", indices.data()}, {"updates", updates.data()}}, 20 * sizeof(int64_t),
            log);
        ASSERT_EQ(run.failure, "");
        std::vector<int64_t> y(20);
        std::memcpy(y.data(), run.output.data(), run.output.size());
        EXPECT_EQ(y, scatterReference(data, {4, 5}, indices, updates, {3, 5}, 1, [](int64_t a, int64_t u) {
            return std::max(a, u);
        }));
    }
    plugin->destroy();
    KILN_IGNORE_DEPRECATED_END
}

} // namespace
} // namespace kiln::plugins
