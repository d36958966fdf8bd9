// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT "2" on the host: the host implementation against Deformable DETR's formula
// written here in double (bilinear sampling with zero padding, locations beyond the edges, several levels, heads and
// points, FP16), a level that does not fit inside value contributing nothing, the creator (no fields), the build-time
// shape check, and engines built, serialized, deserialized and run, with version "2" and the legacy V2 version "1".
#include "core/float_convert.h"
#include "host_engine_support.h"
#include "ms_deform_attn.h"

#include <gtest/gtest.h>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginFieldCollection;
using test::expectClose;
using test::initPlugins;
using test::randomValues;

struct Attention
{
    MsDeformAttnParams p;
    std::vector<int32_t> shapes; //!< [L, 2]
    std::vector<int32_t> starts; //!< [L]
    std::vector<float> value;
    std::vector<float> locations;
    std::vector<float> weights;
};

Attention makeAttention(std::mt19937_64& rng, int64_t batch, int64_t heads, int64_t channels, int64_t queries,
    int64_t points, std::vector<std::pair<int32_t, int32_t>> const& levels)
{
    Attention a;
    a.p.batch = batch;
    a.p.heads = heads;
    a.p.channels = channels;
    a.p.queries = queries;
    a.p.points = points;
    a.p.levels = static_cast<int64_t>(levels.size());
    int32_t start = 0;
    for (auto const& [h, w] : levels)
    {
        a.shapes.push_back(h);
        a.shapes.push_back(w);
        a.starts.push_back(start);
        start += h * w;
    }
    a.p.spatialSize = start;
    a.value = randomValues(rng, static_cast<size_t>(batch * start * heads * channels), -1.F, 1.F);
    size_t const pairs = static_cast<size_t>(batch * queries * heads * a.p.levels * points);
    a.locations = randomValues(rng, 2 * pairs, -0.2F, 1.2F); // some samples fall outside the maps
    a.weights = randomValues(rng, pairs, 0.F, 1.F);
    return a;
}

//! value of level l at pixel (row, column), zero outside the map.
double pixel(Attention const& a, int64_t n, int64_t m, int64_t d, int64_t l, int64_t row, int64_t column)
{
    int64_t const h = a.shapes[static_cast<size_t>(2 * l)];
    int64_t const w = a.shapes[static_cast<size_t>(2 * l + 1)];
    if (row < 0 || row >= h || column < 0 || column >= w)
    {
        return 0.0;
    }
    int64_t const s = a.starts[static_cast<size_t>(l)] + row * w + column;
    return a.value[static_cast<size_t>(((n * a.p.spatialSize + s) * a.p.heads + m) * a.p.channels + d)];
}

std::vector<float> attentionReference(Attention const& a)
{
    MsDeformAttnParams const& p = a.p;
    std::vector<float> y(static_cast<size_t>(p.outputCount()));
    for (int64_t n = 0; n < p.batch; ++n)
    {
        for (int64_t q = 0; q < p.queries; ++q)
        {
            for (int64_t m = 0; m < p.heads; ++m)
            {
                for (int64_t d = 0; d < p.channels; ++d)
                {
                    double sum = 0.0;
                    for (int64_t l = 0; l < p.levels; ++l)
                    {
                        for (int64_t k = 0; k < p.points; ++k)
                        {
                            size_t const pair = static_cast<size_t>(
                                (((n * p.queries + q) * p.heads + m) * p.levels + l) * p.points + k);
                            double const column
                                = a.locations[2 * pair] * a.shapes[static_cast<size_t>(2 * l + 1)] - 0.5;
                            double const row = a.locations[2 * pair + 1] * a.shapes[static_cast<size_t>(2 * l)] - 0.5;
                            auto const r0 = static_cast<int64_t>(std::floor(row));
                            auto const c0 = static_cast<int64_t>(std::floor(column));
                            double const fr = row - static_cast<double>(r0);
                            double const fc = column - static_cast<double>(c0);
                            double const sample = (1 - fr) * (1 - fc) * pixel(a, n, m, d, l, r0, c0)
                                + (1 - fr) * fc * pixel(a, n, m, d, l, r0, c0 + 1)
                                + fr * (1 - fc) * pixel(a, n, m, d, l, r0 + 1, c0)
                                + fr * fc * pixel(a, n, m, d, l, r0 + 1, c0 + 1);
                            sum += a.weights[pair] * sample;
                        }
                    }
                    y[static_cast<size_t>(((n * p.queries + q) * p.heads + m) * p.channels + d)]
                        = static_cast<float>(sum);
                }
            }
        }
    }
    return y;
}

TEST(MsDeformAttnHost, MatchesTheFormula)
{
    std::mt19937_64 rng(20261130);
    std::vector<Attention> const all{makeAttention(rng, 1, 1, 1, 1, 1, {{3, 4}}),
        makeAttention(rng, 2, 2, 3, 5, 4, {{6, 5}, {3, 3}, {1, 2}}),
        makeAttention(rng, 1, 4, 8, 7, 2, {{8, 8}, {4, 4}})};
    for (Attention const& a : all)
    {
        std::vector<float> y(static_cast<size_t>(a.p.outputCount()), -7.F);
        runMsDeformAttnHost(a.p, DataType::kFLOAT, a.value.data(), a.shapes.data(), a.starts.data(), a.locations.data(),
            a.weights.data(), y.data());
        expectClose(y, attentionReference(a), 1e-5);
    }
}

TEST(MsDeformAttnHost, Fp16AndALevelOutsideValue)
{
    std::mt19937_64 rng(4);
    Attention a = makeAttention(rng, 1, 2, 4, 3, 2, {{4, 4}, {2, 2}});
    auto toHalf = [](std::vector<float>& values) {
        std::vector<uint16_t> bits;
        for (float& v : values)
        {
            bits.push_back(floatToHalf(v));
            v = halfToFloat(bits.back());
        }
        return bits;
    };
    std::vector<uint16_t> const value = toHalf(a.value);
    std::vector<uint16_t> const locations = toHalf(a.locations);
    std::vector<uint16_t> const weights = toHalf(a.weights);
    std::vector<uint16_t> yh(static_cast<size_t>(a.p.outputCount()));
    runMsDeformAttnHost(a.p, DataType::kHALF, value.data(), a.shapes.data(), a.starts.data(), locations.data(),
        weights.data(), yh.data());
    std::vector<float> y;
    for (uint16_t v : yh)
    {
        y.push_back(halfToFloat(v));
    }
    expectClose(y, attentionReference(a), 4e-3);

    // The second level starting past S: it adds nothing (the reference without it), nothing read outside value.
    Attention moved = a;
    moved.starts[1] = static_cast<int32_t>(a.p.spatialSize) - 1;
    std::vector<float> got(static_cast<size_t>(a.p.outputCount()));
    runMsDeformAttnHost(moved.p, DataType::kFLOAT, moved.value.data(), moved.shapes.data(), moved.starts.data(),
        moved.locations.data(), moved.weights.data(), got.data());
    Attention firstOnly = a;
    for (size_t i = 0; i < firstOnly.weights.size(); ++i)
    {
        if (i / static_cast<size_t>(a.p.points) % 2 == 1)
        {
            firstOnly.weights[i] = 0.F;
        }
    }
    expectClose(got, attentionReference(firstOnly), 1e-5);
}

//! A network with the attention's five inputs -> MultiscaleDeformableAttnPlugin_TRT -> Y; weightsLevels overrides L
//! in attention_weights.
struct AttentionNetwork
{
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
    std::unique_ptr<nvinfer1::IPluginV3> plugin;

    AttentionNetwork(test::PluginLog& log, MsDeformAttnParams const& p, int64_t weightsLevels)
        : builder(nvinfer1::createInferBuilder(log))
        , network(builder->createNetworkV2(0))
    {
        PluginFieldCollection const none{0, nullptr};
        plugin.reset(test::v3Creator("MultiscaleDeformableAttnPlugin_TRT", "2")
                         ->createPlugin("attention", &none, nvinfer1::TensorRTPhase::kBUILD));
        nvinfer1::ITensor* inputs[] = {network->addInput("value", DataType::kFLOAT,
                                           nvinfer1::Dims{4, {p.batch, p.spatialSize, p.heads, p.channels}}),
            network->addInput("shapes", DataType::kINT32, nvinfer1::Dims{2, {p.levels, 2}}),
            network->addInput("starts", DataType::kINT32, nvinfer1::Dims{1, {p.levels}}),
            network->addInput(
                "locations", DataType::kFLOAT, nvinfer1::Dims{6, {p.batch, p.queries, p.heads, p.levels, p.points, 2}}),
            network->addInput("weights", DataType::kFLOAT,
                nvinfer1::Dims{5, {p.batch, p.queries, p.heads, weightsLevels, p.points}})};
        nvinfer1::IPluginV3Layer* layer
            = plugin != nullptr ? network->addPluginV3(inputs, 5, nullptr, 0, *plugin) : nullptr;
        if (layer != nullptr)
        {
            layer->getOutput(0)->setName("Y");
            network->markOutput(*layer->getOutput(0));
        }
    }
};

TEST(MsDeformAttnEngine, SerializesDeserializesAndRuns)
{
    test::PluginLog& log = initPlugins();
    nvinfer1::IPluginCreatorV3One* creator = test::v3Creator("MultiscaleDeformableAttnPlugin_TRT", "2");
    ASSERT_NE(creator, nullptr);
    EXPECT_EQ(creator->getFieldNames()->nbFields, 0);
    std::mt19937_64 rng(6);
    Attention const a = makeAttention(rng, 2, 2, 4, 6, 3, {{5, 6}, {3, 3}});
    AttentionNetwork net(log, a.p, a.p.levels);
    ASSERT_NE(net.plugin, nullptr);
    test::EngineRun const run = test::buildAndRun(*net.builder, *net.network,
        {{"value", a.value.data()}, {"shapes", a.shapes.data()}, {"starts", a.starts.data()},
            {"locations", a.locations.data()}, {"weights", a.weights.data()}},
        static_cast<size_t>(a.p.outputCount()) * sizeof(float), log);
    ASSERT_EQ(run.failure, "");
    expectClose(run.floats(), attentionReference(a), 1e-5);
}

TEST(MsDeformAttnEngine, TheLegacyVersionOneRunsTheSameOp)
{
    test::PluginLog& log = initPlugins();
    KILN_IGNORE_DEPRECATED_BEGIN
    auto* creator = static_cast<nvinfer1::IPluginCreator*>(
        getPluginRegistry()->getCreator("MultiscaleDeformableAttnPlugin_TRT", "1", ""));
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    EXPECT_EQ(creator->getFieldNames()->nbFields, 0);
    PluginFieldCollection const none{0, nullptr};
    nvinfer1::IPluginV2* plugin = creator->createPlugin("attention", &none);
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(plugin->getSerializationSize(), 0U);
    std::mt19937_64 rng(12);
    Attention const a = makeAttention(rng, 1, 2, 3, 4, 2, {{4, 5}, {2, 3}});
    MsDeformAttnParams const& p = a.p;
    {
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(log)};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
        nvinfer1::ITensor* inputs[] = {network->addInput("value", DataType::kFLOAT,
                                           nvinfer1::Dims{4, {p.batch, p.spatialSize, p.heads, p.channels}}),
            network->addInput("shapes", DataType::kINT32, nvinfer1::Dims{2, {p.levels, 2}}),
            network->addInput("starts", DataType::kINT32, nvinfer1::Dims{1, {p.levels}}),
            network->addInput(
                "locations", DataType::kFLOAT, nvinfer1::Dims{6, {p.batch, p.queries, p.heads, p.levels, p.points, 2}}),
            network->addInput(
                "weights", DataType::kFLOAT, nvinfer1::Dims{5, {p.batch, p.queries, p.heads, p.levels, p.points}})};
        nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 5, *plugin);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("Y");
        network->markOutput(*layer->getOutput(0));
        test::EngineRun const run = test::buildAndRun(*builder, *network,
            {{"value", a.value.data()}, {"shapes", a.shapes.data()}, {"starts", a.starts.data()},
                {"locations", a.locations.data()}, {"weights", a.weights.data()}},
            static_cast<size_t>(p.outputCount()) * sizeof(float), log);
        ASSERT_EQ(run.failure, "");
        expectClose(run.floats(), attentionReference(a), 1e-5);
    }
    plugin->destroy();
    KILN_IGNORE_DEPRECATED_END
}

TEST(MsDeformAttnEngine, InputsThatDisagreeAreRefusedAtBuildTime)
{
    test::PluginLog& log = initPlugins();
    std::mt19937_64 rng(7);
    Attention const a = makeAttention(rng, 1, 2, 4, 3, 2, {{4, 4}, {2, 2}});
    AttentionNetwork net(log, a.p, 3); // attention_weights with 3 levels, spatial_shapes with 2
    ASSERT_NE(net.plugin, nullptr);
    std::unique_ptr<nvinfer1::IBuilderConfig> config{net.builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{net.builder->buildSerializedNetwork(*net.network, *config)};
    EXPECT_EQ(plan, nullptr);
    EXPECT_TRUE(log.has("MultiscaleDeformableAttnPlugin_TRT plugin: the extents disagree")) << log.mMessages;
}

} // namespace
} // namespace kiln::plugins
