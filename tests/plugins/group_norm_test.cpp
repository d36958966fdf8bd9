// SPDX-License-Identifier: Apache-2.0
// GroupNormalizationPlugin "1" (an IPluginV2DynamicExt) on the host: the normalization against ONNX's
// GroupNormalization (opset 21: scale and bias per channel) computed here in double, the V2 creator's declared fields
// and refusals (fields and serialized bytes), the build-time channel check, and an engine with the plugin built,
// serialized, deserialized and run on the host backend through the library's host runner.
#include "group_norm.h"
#include "host_engine_support.h"
#include "instance_norm.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::plugins
{
namespace
{

KILN_IGNORE_DEPRECATED_BEGIN

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;
using test::expectClose;
using test::initPlugins;
using test::randomValues;

std::vector<float> groupNormReference(std::vector<float> const& x, int64_t n, int64_t c, int64_t plane, int64_t groups,
    std::vector<float> const& scale, std::vector<float> const& bias, double epsilon)
{
    std::vector<float> y(x.size());
    int64_t const size = c / groups * plane;
    for (int64_t g = 0; g < n * groups; ++g)
    {
        double mean = 0.0;
        for (int64_t i = 0; i < size; ++i)
        {
            mean += x[g * size + i];
        }
        mean /= static_cast<double>(size);
        double variance = 0.0;
        for (int64_t i = 0; i < size; ++i)
        {
            variance += (x[g * size + i] - mean) * (x[g * size + i] - mean);
        }
        variance /= static_cast<double>(size);
        for (int64_t i = 0; i < size; ++i)
        {
            int64_t const channel = (g * size + i) / plane % c;
            y[g * size + i] = static_cast<float>(
                (x[g * size + i] - mean) / std::sqrt(variance + epsilon) * scale[channel] + bias[channel]);
        }
    }
    return y;
}

NormParams groupParams(int64_t n, int64_t c, int64_t plane, int64_t groups, float epsilon)
{
    NormParams p;
    p.epsilon = epsilon;
    p.channels = c;
    p.planeSize = plane;
    p.segments = n * groups;
    p.segmentSize = c / groups * plane;
    return p;
}

TEST(GroupNormHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(77);
    struct Case
    {
        int64_t n, c, plane, groups;
    };
    for (Case const& k : {Case{1, 4, 9, 2}, Case{2, 6, 16, 3}, Case{3, 8, 5, 8}, Case{2, 4, 33, 1}})
    {
        SCOPED_TRACE(std::to_string(k.c) + " channels, " + std::to_string(k.groups) + " groups");
        std::vector<float> const x = randomValues(rng, static_cast<size_t>(k.n * k.c * k.plane), -2.0F, 4.0F);
        std::vector<float> const scale = randomValues(rng, static_cast<size_t>(k.c), 0.5F, 2.0F);
        std::vector<float> const bias = randomValues(rng, static_cast<size_t>(k.c), -1.0F, 1.0F);
        std::vector<float> y(x.size(), -7.0F);
        runNormHost(groupParams(k.n, k.c, k.plane, k.groups, 1e-5F), DataType::kFLOAT, x.data(), scale.data(),
            bias.data(), y.data());
        expectClose(y, groupNormReference(x, k.n, k.c, k.plane, k.groups, scale, bias, 1e-5), 2e-5);
    }
}

nvinfer1::IPluginCreator* groupCreator()
{
    return static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("GroupNormalizationPlugin", "1", ""));
}

TEST(GroupNormCreator, IsAV2CreatorWithTensorRTsFieldsAndRefusesBadOnes)
{
    test::PluginLog& log = initPlugins();
    nvinfer1::IPluginCreator* creator = groupCreator();
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    PluginFieldCollection const* declared = creator->getFieldNames();
    ASSERT_EQ(declared->nbFields, 2);
    EXPECT_STREQ(declared->fields[0].name, "eps");
    EXPECT_EQ(declared->fields[0].type, PluginFieldType::kFLOAT32);
    EXPECT_STREQ(declared->fields[1].name, "num_groups");
    EXPECT_EQ(declared->fields[1].type, PluginFieldType::kINT32);

    int32_t const zero = 0;
    PluginField const groupsField{"num_groups", &zero, PluginFieldType::kINT32, 1};
    PluginFieldCollection const badGroups{1, &groupsField};
    EXPECT_EQ(creator->createPlugin("g", &badGroups), nullptr);
    EXPECT_TRUE(log.has("GroupNormalizationPlugin plugin: num_groups is 0; it must be positive")) << log.mMessages;

    float const noEpsilon = 0.0F;
    PluginField const epsField{"eps", &noEpsilon, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const badEps{1, &epsField};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("g", &badEps), nullptr);
    EXPECT_TRUE(log.has("GroupNormalizationPlugin plugin: eps is 0.000000; it must be positive")) << log.mMessages;

    PluginField const wrongType{"num_groups", &noEpsilon, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const wrong{1, &wrongType};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("g", &wrong), nullptr);
    EXPECT_TRUE(log.has("field num_groups must be kINT32")) << log.mMessages;

    // The defaults (eps 1e-5, one group), and the serialized form: eps, num_groups and an unused int32.
    PluginFieldCollection const none{0, nullptr};
    nvinfer1::IPluginV2* plugin = creator->createPlugin("g", &none);
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "GroupNormalizationPlugin");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    ASSERT_EQ(plugin->getSerializationSize(), 12U);
    std::vector<uint8_t> bytes(12);
    plugin->serialize(bytes.data());
    plugin->destroy();
    float eps = 0.0F;
    int32_t groups = 0;
    std::memcpy(&eps, bytes.data(), 4);
    std::memcpy(&groups, bytes.data() + 4, 4);
    EXPECT_EQ(eps, 1e-5F);
    EXPECT_EQ(groups, 1);
    nvinfer1::IPluginV2* restored = creator->deserializePlugin("g", bytes.data(), bytes.size());
    ASSERT_NE(restored, nullptr);
    restored->destroy();

    log.mMessages.clear();
    EXPECT_EQ(creator->deserializePlugin("g", bytes.data(), 8), nullptr);
    EXPECT_TRUE(log.has("GroupNormalizationPlugin plugin: a serialized plugin is 12 bytes; this one is 8"))
        << log.mMessages;
    int32_t const negative = -2;
    std::memcpy(bytes.data() + 4, &negative, 4);
    log.mMessages.clear();
    EXPECT_EQ(creator->deserializePlugin("g", bytes.data(), bytes.size()), nullptr);
    EXPECT_TRUE(log.has("the serialized plugin is refused: num_groups is -2; it must be positive")) << log.mMessages;
}

//! A network X [2, C, 3, 4], scale [C], bias [C] -> GroupNormalizationPlugin -> Y.
struct GroupNetwork
{
    std::unique_ptr<nvinfer1::IBuilder> builder;
    std::unique_ptr<nvinfer1::INetworkDefinition> network;
    nvinfer1::IPluginV2* plugin{};

    GroupNetwork(test::PluginLog& log, int64_t channels, int32_t groups)
        : builder(nvinfer1::createInferBuilder(log))
        , network(builder->createNetworkV2(0))
    {
        float const eps = 1e-4F;
        PluginField const fields[]
            = {{"eps", &eps, PluginFieldType::kFLOAT32, 1}, {"num_groups", &groups, PluginFieldType::kINT32, 1}};
        PluginFieldCollection const fc{2, fields};
        plugin = groupCreator()->createPlugin("group", &fc);
        nvinfer1::ITensor* inputs[] = {network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, channels, 3, 4}}),
            network->addInput("scale", DataType::kFLOAT, nvinfer1::Dims{1, {channels}}),
            network->addInput("bias", DataType::kFLOAT, nvinfer1::Dims{1, {channels}})};
        nvinfer1::IPluginV2Layer* layer = plugin != nullptr ? network->addPluginV2(inputs, 3, *plugin) : nullptr;
        if (layer != nullptr)
        {
            layer->getOutput(0)->setName("Y");
            network->markOutput(*layer->getOutput(0));
        }
    }
    ~GroupNetwork()
    {
        network.reset();
        if (plugin != nullptr)
        {
            plugin->destroy();
        }
    }
};

TEST(GroupNormEngine, SerializesDeserializesAndRunsOnTheHostBackend)
{
    test::PluginLog& log = initPlugins();
    std::mt19937_64 rng(8);
    GroupNetwork net(log, 6, 3);
    ASSERT_NE(net.plugin, nullptr);
    std::vector<float> const x = randomValues(rng, 2 * 6 * 12, -1.0F, 3.0F);
    std::vector<float> const scale = randomValues(rng, 6, 0.5F, 1.5F);
    std::vector<float> const bias = randomValues(rng, 6, -1.0F, 1.0F);
    test::EngineRun const run = test::buildAndRun(*net.builder, *net.network,
        {{"X", x.data()}, {"scale", scale.data()}, {"bias", bias.data()}}, x.size() * sizeof(float), log);
    ASSERT_EQ(run.failure, "");
    expectClose(run.floats(), groupNormReference(x, 2, 6, 12, 3, scale, bias, 1e-4), 2e-5);
}

TEST(GroupNormEngine, ChannelsNotDivisibleByTheGroupsAreRefusedAtBuildTime)
{
    test::PluginLog& log = initPlugins();
    GroupNetwork net(log, 6, 4);
    ASSERT_NE(net.plugin, nullptr);
    std::unique_ptr<nvinfer1::IBuilderConfig> config{net.builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{net.builder->buildSerializedNetwork(*net.network, *config)};
    EXPECT_EQ(plan, nullptr);
    EXPECT_TRUE(log.has("GroupNormalizationPlugin plugin: X has 6 channels; num_groups (4) must divide them"))
        << log.mMessages;
}

KILN_IGNORE_DEPRECATED_END

} // namespace
} // namespace kiln::plugins
