// SPDX-License-Identifier: Apache-2.0
// The IPluginV2DynamicExt versions "1" of the BERT family on the host: V1 creators with the V3 versions' fields;
// engines with a version "1" layer (addPluginV2) built, serialized, deserialized through deserializePlugin and run on
// the host backend through the registered host runner, giving what the V3 version gives; and serialized bytes that
// this library did not write refused with a message.
#include "bert_legacy.h"
#include "bert_test_support.h"
#include "skip_layer_norm.h"

namespace kiln::plugins
{
namespace
{

using namespace bert_test;
using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

nvinfer1::IPluginCreator* legacyCreator(char const* name)
{
    return static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator(name, "1", ""));
}

TEST(BertLegacyPlugins, VersionOneCreatorsAreV1WithTheV3Fields)
{
    initPlugins();
    for (auto [name, v3] :
        {std::pair{"CustomSkipLayerNormPluginDynamic", "5"}, std::pair{"CustomEmbLayerNormPluginDynamic", "6"},
            std::pair{"CustomQKVToContextPluginDynamic", "4"}, std::pair{"DisentangledAttention_TRT", "2"}})
    {
        nvinfer1::IPluginCreator* c = legacyCreator(name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_STREQ(c->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
        EXPECT_STREQ(c->getPluginVersion(), "1");
        PluginFieldCollection const* legacyFields = c->getFieldNames();
        PluginFieldCollection const* fields = creator(name, v3)->getFieldNames();
        ASSERT_EQ(legacyFields->nbFields, fields->nbFields);
        for (int32_t i = 0; i < fields->nbFields; ++i)
        {
            EXPECT_STREQ(legacyFields->fields[i].name, fields->fields[i].name);
        }
    }
}

//! Builds a network whose one layer is plugin (version "1"), serializes, deserializes and runs it on the host.
std::vector<float> runLegacy(nvinfer1::IPluginV2& plugin, nvinfer1::Dims const& dims, std::vector<float> const& input,
    std::vector<float> const& skip, std::string& failure)
{
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* inputs[]
        = {network->addInput("input", DataType::kFLOAT, dims), network->addInput("skip", DataType::kFLOAT, dims)};
    nvinfer1::IPluginV2Layer* layer = network->addPluginV2(inputs, 2, plugin);
    if (layer == nullptr)
    {
        failure = "addPluginV2 failed: " + logger().mMessages;
        return {};
    }
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan == nullptr)
    {
        failure = "build failed: " + logger().mMessages;
        return {};
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (engine == nullptr)
    {
        failure = "deserialize failed: " + logger().mMessages;
        return {};
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    if (context == nullptr)
    {
        failure = "createExecutionContext failed: " + logger().mMessages;
        return {};
    }
    std::vector<float> out(input.size(), -7.0F);
    context->setTensorAddress("input", const_cast<float*>(input.data()));
    context->setTensorAddress("skip", const_cast<float*>(skip.data()));
    context->setTensorAddress("Y", out.data());
    if (!context->enqueueV3(nullptr))
    {
        failure = "enqueue failed: " + logger().mMessages;
    }
    return out;
}

TEST(BertLegacyPlugins, SkipLayerNormVersionOneRunsOnTheHostAsVersionFive)
{
    initPlugins();
    int32_t typeId = 0;
    int32_t ld = 6;
    std::vector<float> const beta{0.1F, 0.2F, 0.3F, -0.1F, -0.2F, 0.0F};
    std::vector<float> const gamma{1.0F, 1.5F, 0.5F, 2.0F, 1.0F, 0.75F};
    std::vector<float> const bias{0.0F, 0.1F, -0.1F, 0.2F, 0.0F, -0.3F};
    PluginField const fields[] = {{"type_id", &typeId, PluginFieldType::kINT32, 1},
        {"ld", &ld, PluginFieldType::kINT32, 1}, {"beta", beta.data(), PluginFieldType::kFLOAT32, 6},
        {"gamma", gamma.data(), PluginFieldType::kFLOAT32, 6}, {"bias", bias.data(), PluginFieldType::kFLOAT32, 6}};
    PluginFieldCollection const fc{5, fields};
    nvinfer1::IPluginCreator* c = legacyCreator("CustomSkipLayerNormPluginDynamic");
    ASSERT_NE(c, nullptr);
    std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> plugin{
        c->createPlugin("skip", &fc), [](nvinfer1::IPluginV2* p) { p->destroy(); }};
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(plugin->getPluginType(), "CustomSkipLayerNormPluginDynamic");
    EXPECT_STREQ(plugin->getPluginVersion(), "1");
    std::mt19937_64 rng(14);
    std::vector<float> const input = randomFloats(rng, 4 * 2 * 6, -2.0F, 2.0F);
    std::vector<float> const skip = randomFloats(rng, 4 * 2 * 6, -2.0F, 2.0F);
    std::string failure;
    std::vector<float> const out = runLegacy(*plugin, nvinfer1::Dims{5, {4, 2, 6, 1, 1}}, input, skip, failure);
    ASSERT_EQ(failure, "");
    std::vector<float> expected(input.size());
    runSkipLayerNormHost(
        {8, 6}, DataType::kFLOAT, input.data(), skip.data(), gamma.data(), beta.data(), bias.data(), expected.data());
    expectClose(out, expected, 1e-6);
}

TEST(BertLegacyPlugins, SerializedBytesThisLibraryDidNotWriteAreRefused)
{
    initPlugins();
    nvinfer1::IPluginCreator* c = legacyCreator("DisentangledAttention_TRT");
    ASSERT_NE(c, nullptr);
    int32_t span = 4;
    float factor = 0.2F;
    PluginField const fields[]
        = {{"span", &span, PluginFieldType::kINT32, 1}, {"factor", &factor, PluginFieldType::kFLOAT32, 1}};
    PluginFieldCollection const fc{2, fields};
    std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> plugin{
        c->createPlugin("d", &fc), [](nvinfer1::IPluginV2* p) { p->destroy(); }};
    ASSERT_NE(plugin, nullptr);
    std::vector<uint8_t> bytes(plugin->getSerializationSize());
    plugin->serialize(bytes.data());
    std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> back{
        c->deserializePlugin("d", bytes.data(), bytes.size()), [](nvinfer1::IPluginV2* p) { p->destroy(); }};
    EXPECT_NE(back, nullptr) << logger().mMessages;
    for (size_t cut : {size_t{0}, size_t{3}, bytes.size() - 1})
    {
        logger().mMessages.clear();
        EXPECT_EQ(c->deserializePlugin("d", bytes.data(), cut), nullptr) << cut;
        EXPECT_TRUE(logged("DisentangledAttention_TRT version \"1\" namespace \"\" plugin: the serialized plugin ("
            + std::to_string(cut) + " bytes) is not one this library wrote"));
    }
    std::vector<uint8_t> longer = bytes;
    longer.push_back(0);
    EXPECT_EQ(c->deserializePlugin("d", longer.data(), longer.size()), nullptr);
    // Fields that decode but that the V3 creator refuses: a span of 0.
    // The span's value lies after the header (8 bytes) and its field's name length, name, type and count (16).
    std::vector<uint8_t> zeroSpan = bytes;
    ASSERT_GE(zeroSpan.size(), 28U);
    std::memset(zeroSpan.data() + 24, 0, 4);
    logger().mMessages.clear();
    EXPECT_EQ(c->deserializePlugin("d", zeroSpan.data(), zeroSpan.size()), nullptr);
    EXPECT_TRUE(logged("span is 0; it must be positive"));
}

} // namespace
} // namespace kiln::plugins
