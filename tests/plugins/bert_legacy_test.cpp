// SPDX-License-Identifier: Apache-2.0
// The IPluginV2DynamicExt versions "1" of the BERT family on the host: V1 creators with the V3 versions' fields;
// engines with a version "1" layer (addPluginV2) built, serialized, deserialized through deserializePlugin and run on
// the host backend through the registered host runner, giving what the V3 version gives (all four plugins, the two
// outputs of CustomEmbLayerNormPluginDynamic included); and serialized bytes that
// this library did not write refused with a message.
#include "bert_legacy.h"
#include "bert_test_support.h"
#include "skip_layer_norm.h"

#include <tuple>

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

//! Runs plugin (version "1") as the one layer of an engine, serialized and deserialized, on the host backend, like
//! runPluginEngine does for V3 plugins; the outputs' bytes, or why it failed.
EngineRun runLegacyEngine(nvinfer1::IPluginV2& plugin,
    std::vector<std::tuple<char const*, DataType, nvinfer1::Dims>> const& inputs, std::vector<void const*> const& data,
    std::vector<size_t> const& outputBytes)
{
    EngineRun run;
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger())};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::vector<nvinfer1::ITensor*> tensors;
    for (auto const& [name, type, dims] : inputs)
    {
        tensors.push_back(network->addInput(name, type, dims));
    }
    nvinfer1::IPluginV2Layer* layer
        = network->addPluginV2(tensors.data(), static_cast<int32_t>(tensors.size()), plugin);
    if (layer == nullptr)
    {
        run.failure = "addPluginV2 failed: " + logger().mMessages;
        return run;
    }
    for (size_t i = 0; i < outputBytes.size(); ++i)
    {
        layer->getOutput(static_cast<int32_t>(i))->setName(("Y" + std::to_string(i)).c_str());
        network->markOutput(*layer->getOutput(static_cast<int32_t>(i)));
    }
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger())};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{
        plan == nullptr ? nullptr : runtime->deserializeCudaEngine(plan->data(), plan->size())};
    std::unique_ptr<nvinfer1::IExecutionContext> context{
        engine == nullptr ? nullptr : engine->createExecutionContext()};
    if (context == nullptr)
    {
        run.failure = "build, deserialize or createExecutionContext failed: " + logger().mMessages;
        return run;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        context->setTensorAddress(std::get<0>(inputs[i]), const_cast<void*>(data[i]));
    }
    run.outputs.resize(outputBytes.size());
    for (size_t i = 0; i < outputBytes.size(); ++i)
    {
        run.outputs[i].assign(outputBytes[i], 0xA5);
        context->setTensorAddress(("Y" + std::to_string(i)).c_str(), run.outputs[i].data());
    }
    if (!context->enqueueV3(nullptr))
    {
        run.failure = "enqueue failed: " + logger().mMessages;
    }
    return run;
}

TEST(BertLegacyPlugins, EmbQkvAndDisentangledVersionsOneGiveWhatTheV3VersionsGive)
{
    initPlugins();
    std::mt19937_64 rng(15);
    struct Case
    {
        char const* name;
        char const* v3;
        std::vector<PluginField> fields;
        std::vector<std::tuple<char const*, DataType, nvinfer1::Dims>> inputs;
        std::vector<void const*> data;
        std::vector<size_t> outputBytes;
    };
    // CustomEmbLayerNormPluginDynamic: S 3, B 2, E 4, tables of 5, 2 and 3 rows; two outputs.
    std::vector<float> const beta = randomFloats(rng, 4, -0.5F, 0.5F);
    std::vector<float> const gamma = randomFloats(rng, 4, 0.5F, 1.5F);
    std::vector<float> const word = randomFloats(rng, 20, -1.0F, 1.0F);
    std::vector<float> const token = randomFloats(rng, 8, -1.0F, 1.0F);
    std::vector<float> const position = randomFloats(rng, 12, -1.0F, 1.0F);
    std::vector<int32_t> const ids{4, 0, 1, 2, 3, 3};
    std::vector<int32_t> const segments{0, 1, 1, 1, 0, 0};
    std::vector<int32_t> const mask{1, 1, 1, 0, 0, 0};
    nvinfer1::Dims const sb{2, {3, 2}};
    // CustomQKVToContextPluginDynamic: S 4, B 2, 2 heads of 3, with a mask.
    int32_t typeId = 0;
    int32_t hidden = 6;
    int32_t heads = 2;
    int32_t hasMask = 1;
    std::vector<float> const qkv = randomFloats(rng, 4 * 2 * 18, -1.5F, 1.5F);
    std::vector<int32_t> const maskIndex{3, 4};
    // DisentangledAttention_TRT: BN 2, S 6, span 2 (log buckets beyond distance 1).
    int32_t span = 2;
    float factor = 0.3F;
    std::vector<float> const c2c = randomFloats(rng, 2 * 6 * 6, -1.0F, 1.0F);
    std::vector<float> const c2p = randomFloats(rng, 2 * 6 * 4, -1.0F, 1.0F);
    std::vector<float> const p2c = randomFloats(rng, 2 * 6 * 4, -1.0F, 1.0F);
    auto weights = [](char const* name, std::vector<float> const& v) {
        return PluginField{name, v.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(v.size())};
    };
    std::vector<Case> const cases{
        {"CustomEmbLayerNormPluginDynamic", "6",
            {weights("bert_embeddings_layernorm_beta", beta), weights("bert_embeddings_layernorm_gamma", gamma),
                weights("bert_embeddings_word_embeddings", word),
                weights("bert_embeddings_token_type_embeddings", token),
                weights("bert_embeddings_position_embeddings", position)},
            {{"ids", DataType::kINT32, sb}, {"segments", DataType::kINT32, sb}, {"mask", DataType::kINT32, sb}},
            {ids.data(), segments.data(), mask.data()}, {3 * 2 * 4 * 4, 2 * 4}},
        {"CustomQKVToContextPluginDynamic", "4",
            {{"type_id", &typeId, PluginFieldType::kINT32, 1}, {"hidden_size", &hidden, PluginFieldType::kINT32, 1},
                {"num_heads", &heads, PluginFieldType::kINT32, 1}, {"has_mask", &hasMask, PluginFieldType::kINT32, 1}},
            {{"qkv", DataType::kFLOAT, nvinfer1::Dims{5, {4, 2, 18, 1, 1}}},
                {"mask", DataType::kINT32, nvinfer1::Dims{2, {2, 1}}}},
            {qkv.data(), maskIndex.data()}, {4 * 2 * 6 * 4}},
        {"DisentangledAttention_TRT", "2",
            {{"span", &span, PluginFieldType::kINT32, 1}, {"factor", &factor, PluginFieldType::kFLOAT32, 1}},
            {{"c2c", DataType::kFLOAT, nvinfer1::Dims{3, {2, 6, 6}}},
                {"c2p", DataType::kFLOAT, nvinfer1::Dims{3, {2, 6, 4}}},
                {"p2c", DataType::kFLOAT, nvinfer1::Dims{3, {2, 6, 4}}}},
            {c2c.data(), c2p.data(), p2c.data()}, {2 * 6 * 6 * 4}}};
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.name);
        PluginFieldCollection const fc{static_cast<int32_t>(c.fields.size()), c.fields.data()};
        std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> plugin{
            legacyCreator(c.name)->createPlugin("legacy", &fc), [](nvinfer1::IPluginV2* p) { p->destroy(); }};
        ASSERT_NE(plugin, nullptr) << logger().mMessages;
        EngineRun const legacy = runLegacyEngine(*plugin, c.inputs, c.data, c.outputBytes);
        ASSERT_EQ(legacy.failure, "");
        EngineRun const v3 = runPluginEngine(*creator(c.name, c.v3), fc, c.inputs, c.data, c.outputBytes);
        ASSERT_EQ(v3.failure, "");
        EXPECT_EQ(legacy.outputs, v3.outputs);
        EXPECT_NE(legacy.outputs[0], std::vector<uint8_t>(c.outputBytes[0], 0xA5)) << "the outputs were written";
    }
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
