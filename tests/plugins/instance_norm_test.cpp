// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT "3" on the host: the host implementation against ONNX's definition computed here in double
// (ranks 3 to 5, the leaky ReLU, FP16), the creator's declared fields and refusals, the build-time and run-time shape
// checks, and engines with the plugin built, serialized, deserialized (the plugin restored from its fields) and run,
// with version "3" and the legacy V2 versions "1" and "2" (their serialized bytes checked when read back).
#include "core/float_convert.h"
#include "host_engine_support.h"
#include "instance_norm.h"
#include "kiln/plugin_host.h"

#include <gtest/gtest.h>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;
using test::describe;
using test::expectClose;
using test::initPlugins;
using test::randomValues;

//! ONNX InstanceNormalization (then the leaky ReLU when relu), in double, over X [N, C, plane].
std::vector<float> instanceNormReference(std::vector<float> const& x, int64_t n, int64_t c, int64_t plane,
    std::vector<float> const& scale, std::vector<float> const& bias, double epsilon, bool relu, double alpha)
{
    std::vector<float> y(x.size());
    for (int64_t s = 0; s < n * c; ++s)
    {
        double mean = 0.0;
        for (int64_t i = 0; i < plane; ++i)
        {
            mean += x[s * plane + i];
        }
        mean /= static_cast<double>(plane);
        double variance = 0.0;
        for (int64_t i = 0; i < plane; ++i)
        {
            variance += (x[s * plane + i] - mean) * (x[s * plane + i] - mean);
        }
        variance /= static_cast<double>(plane);
        for (int64_t i = 0; i < plane; ++i)
        {
            double v = (x[s * plane + i] - mean) / std::sqrt(variance + epsilon) * scale[s % c] + bias[s % c];
            if (relu && v < 0.0)
            {
                v *= alpha;
            }
            y[s * plane + i] = static_cast<float>(v);
        }
    }
    return y;
}

NormParams instanceParams(int64_t n, int64_t c, int64_t plane, float epsilon, bool relu, float alpha)
{
    NormParams p;
    p.epsilon = epsilon;
    p.relu = relu;
    p.alpha = alpha;
    p.channels = c;
    p.planeSize = plane;
    p.segments = n * c;
    p.segmentSize = plane;
    return p;
}

TEST(InstanceNormHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261130);
    struct Case
    {
        int64_t n, c, plane;
        bool relu;
    };
    for (Case const& k : {Case{1, 3, 7, false}, Case{2, 4, 30, true}, Case{3, 2, 120, false}, Case{1, 1, 1, true},
             Case{2, 5, 257, true}})
    {
        SCOPED_TRACE(std::to_string(k.n) + "x" + std::to_string(k.c) + "x" + std::to_string(k.plane));
        std::vector<float> const x = randomValues(rng, static_cast<size_t>(k.n * k.c * k.plane), -3.0F, 5.0F);
        std::vector<float> const scale = randomValues(rng, static_cast<size_t>(k.c), 0.5F, 2.0F);
        std::vector<float> const bias = randomValues(rng, static_cast<size_t>(k.c), -1.0F, 1.0F);
        std::vector<float> y(x.size(), -7.0F);
        runNormHost(instanceParams(k.n, k.c, k.plane, 1e-5F, k.relu, 0.1F), DataType::kFLOAT, x.data(), scale.data(),
            bias.data(), y.data());
        expectClose(y, instanceNormReference(x, k.n, k.c, k.plane, scale, bias, 1e-5, k.relu, 0.1), 2e-5);
    }
}

TEST(InstanceNormHost, Fp16RoundsOnceFromTheFloatResult)
{
    std::mt19937_64 rng(31);
    int64_t const n = 2;
    int64_t const c = 3;
    int64_t const plane = 20;
    std::vector<float> const raw = randomValues(rng, static_cast<size_t>(n * c * plane), -2.0F, 2.0F);
    std::vector<uint16_t> xh;
    std::vector<float> x;
    for (float v : raw)
    {
        xh.push_back(floatToHalf(v));
        x.push_back(halfToFloat(xh.back()));
    }
    std::vector<float> const scale{1.0F, 0.5F, 2.0F};
    std::vector<float> const bias{0.0F, 1.0F, -1.0F};
    std::vector<uint16_t> yh(xh.size());
    runNormHost(instanceParams(n, c, plane, 1e-3F, false, 0.0F), DataType::kHALF, xh.data(), scale.data(), bias.data(),
        yh.data());
    std::vector<float> y;
    for (uint16_t v : yh)
    {
        y.push_back(halfToFloat(v));
    }
    expectClose(y, instanceNormReference(x, n, c, plane, scale, bias, 1e-3, false, 0.0), 2e-3);
}

//! The fields of an InstanceNormalization_TRT plugin, kept alive with their values.
struct InstanceFields
{
    float epsilon{1e-5F};
    std::vector<float> scales;
    std::vector<float> bias;
    int32_t relu{0};
    float alpha{0.0F};
    std::vector<PluginField> fields;
    PluginFieldCollection collection{};

    PluginFieldCollection const* get()
    {
        fields = {PluginField{"epsilon", &epsilon, PluginFieldType::kFLOAT32, 1},
            PluginField{"scales", scales.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(scales.size())},
            PluginField{"bias", bias.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(bias.size())},
            PluginField{"relu", &relu, PluginFieldType::kINT32, 1},
            PluginField{"alpha", &alpha, PluginFieldType::kFLOAT32, 1}};
        collection = {static_cast<int32_t>(fields.size()), fields.data()};
        return &collection;
    }
};

TEST(InstanceNormCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    test::PluginLog& log = initPlugins();
    nvinfer1::IPluginCreatorV3One* creator = test::v3Creator("InstanceNormalization_TRT", "3");
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    PluginFieldCollection const* declared = creator->getFieldNames();
    ASSERT_EQ(declared->nbFields, 5);
    char const* names[] = {"epsilon", "scales", "bias", "relu", "alpha"};
    PluginFieldType const types[] = {PluginFieldType::kFLOAT32, PluginFieldType::kFLOAT32, PluginFieldType::kFLOAT32,
        PluginFieldType::kINT32, PluginFieldType::kFLOAT32};
    for (int32_t i = 0; i < 5; ++i)
    {
        EXPECT_STREQ(declared->fields[i].name, names[i]);
        EXPECT_EQ(declared->fields[i].type, types[i]);
    }

    InstanceFields mismatched;
    mismatched.scales = {1.0F, 2.0F};
    mismatched.bias = {0.0F};
    EXPECT_EQ(creator->createPlugin("in", mismatched.get(), nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: scales and bias hold 2 and 1 values; they must hold one "
                        "value per channel each"))
        << log.mMessages;

    InstanceFields empty;
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("in", empty.get(), nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("scales and bias hold 0 and 0 values")) << log.mMessages;

    InstanceFields negative;
    negative.scales = {1.0F};
    negative.bias = {0.0F};
    negative.epsilon = -1.0F;
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("in", negative.get(), nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: epsilon is -1.000000; it must be 0 or more"))
        << log.mMessages;

    int32_t const wrong = 3;
    PluginField const wrongType{"scales", &wrong, PluginFieldType::kINT32, 1};
    PluginFieldCollection const wrongCollection{1, &wrongType};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("in", &wrongCollection, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: field scales must be kFLOAT32")) << log.mMessages;

    float const alphaInt = 1.0F;
    PluginField const reluWrong{"relu", &alphaInt, PluginFieldType::kFLOAT32, 1};
    PluginFieldCollection const reluCollection{1, &reluWrong};
    log.mMessages.clear();
    EXPECT_EQ(creator->createPlugin("in", &reluCollection, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(log.has("field relu must be kINT32")) << log.mMessages;
}

TEST(InstanceNormPlugin, ChannelsThatDisagreeWithTheFieldsAreRefused)
{
    test::PluginLog& log = initPlugins();
    InstanceFields f;
    f.scales = {1.0F, 2.0F};
    f.bias = {0.0F, 0.5F};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{test::v3Creator("InstanceNormalization_TRT", "3")
                                                    ->createPlugin("in", f.get(), nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);

    // At build time: X with 3 channels.
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(log)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* x = network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {1, 3, 2, 2}});
    nvinfer1::IPluginV3Layer* layer = network->addPluginV3(&x, 1, nullptr, 0, *plugin);
    if (layer != nullptr)
    {
        layer->getOutput(0)->setName("Y");
        network->markOutput(*layer->getOutput(0));
        std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
        std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
        EXPECT_EQ(plan, nullptr);
    }
    EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: X has 3 channels; the fields scales and bias hold 2"))
        << log.mMessages;

    // At run time (a corrupted plan): the host enqueue refuses and writes nothing.
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<float> in(12, 1.0F);
    std::vector<float> out(12, -7.0F);
    nvinfer1::PluginTensorDesc const desc = describe(nvinfer1::Dims{4, {1, 3, 2, 2}}, DataType::kFLOAT);
    void const* inputs[] = {in.data()};
    void* outputs[] = {out.data()};
    log.mMessages.clear();
    EXPECT_NE(host->enqueueHost(&desc, &desc, inputs, outputs, nullptr), 0);
    EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: the tensors of this run do not have the shapes"))
        << log.mMessages;
    EXPECT_EQ(out, std::vector<float>(12, -7.0F));
}

TEST(InstanceNormEngine, SerializesDeserializesAndRuns)
{
    test::PluginLog& log = initPlugins();
    std::mt19937_64 rng(5);
    for (int32_t rank : {3, 4, 5})
    {
        SCOPED_TRACE(rank);
        nvinfer1::Dims dims{rank, {}};
        int64_t plane = 1;
        dims.d[0] = 2;
        dims.d[1] = 3;
        for (int32_t d = 2; d < rank; ++d)
        {
            dims.d[d] = 3 + d;
            plane *= dims.d[d];
        }
        InstanceFields f;
        f.scales = randomValues(rng, 3, 0.5F, 1.5F);
        f.bias = randomValues(rng, 3, -1.0F, 1.0F);
        f.relu = rank == 4 ? 1 : 0;
        f.alpha = 0.2F;
        f.epsilon = 1e-4F;
        std::unique_ptr<nvinfer1::IPluginV3> plugin{test::v3Creator("InstanceNormalization_TRT", "3")
                                                        ->createPlugin("in", f.get(), nvinfer1::TensorRTPhase::kBUILD)};
        ASSERT_NE(plugin, nullptr);
        std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(log)};
        std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
        nvinfer1::ITensor* x = network->addInput("X", DataType::kFLOAT, dims);
        nvinfer1::IPluginV3Layer* layer = network->addPluginV3(&x, 1, nullptr, 0, *plugin);
        ASSERT_NE(layer, nullptr);
        layer->getOutput(0)->setName("Y");
        network->markOutput(*layer->getOutput(0));
        std::vector<float> const input = randomValues(rng, static_cast<size_t>(6 * plane), -2.0F, 3.0F);
        test::EngineRun const run
            = test::buildAndRun(*builder, *network, {{"X", input.data()}}, input.size() * sizeof(float), log);
        ASSERT_EQ(run.failure, "");
        expectClose(
            run.floats(), instanceNormReference(input, 2, 3, plane, f.scales, f.bias, 1e-4, f.relu != 0, 0.2), 2e-5);
    }
}

TEST(InstanceNormEngine, TheLegacyVersionsOneAndTwoRunTheSameOpAndSerializeTheirFields)
{
    test::PluginLog& log = initPlugins();
    KILN_IGNORE_DEPRECATED_BEGIN
    std::mt19937_64 rng(15);
    for (char const* version : {"1", "2"})
    {
        SCOPED_TRACE(version);
        auto* creator = static_cast<nvinfer1::IPluginCreator*>(
            getPluginRegistry()->getCreator("InstanceNormalization_TRT", version, ""));
        ASSERT_NE(creator, nullptr);
        EXPECT_STREQ(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
        EXPECT_EQ(creator->getFieldNames()->nbFields, 5);
        InstanceFields mismatched;
        mismatched.scales = {1.0F};
        log.mMessages.clear();
        EXPECT_EQ(creator->createPlugin("in", mismatched.get()), nullptr);
        EXPECT_TRUE(log.has("scales and bias hold 1 and 0 values")) << log.mMessages;

        InstanceFields f;
        f.scales = randomValues(rng, 3, 0.5F, 1.5F);
        f.bias = randomValues(rng, 3, -1.0F, 1.0F);
        f.relu = 1;
        f.alpha = 0.3F;
        nvinfer1::IPluginV2* created = creator->createPlugin("in", f.get());
        ASSERT_NE(created, nullptr);
        EXPECT_STREQ(created->getPluginVersion(), version);
        std::vector<uint8_t> bytes(created->getSerializationSize());
        ASSERT_EQ(bytes.size(), 32U + 8U * 3U);
        created->serialize(bytes.data());
        created->destroy();
        log.mMessages.clear();
        EXPECT_EQ(creator->deserializePlugin("in", bytes.data(), bytes.size() - 4), nullptr);
        EXPECT_TRUE(log.has("InstanceNormalization_TRT plugin: the serialized plugin is refused: a serialized plugin "
                            "is 32 + 8 * C bytes"))
            << log.mMessages;
        nvinfer1::IPluginV2* plugin = creator->deserializePlugin("in", bytes.data(), bytes.size());
        ASSERT_NE(plugin, nullptr);
        {
            std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(log)};
            std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
            nvinfer1::ITensor* x = network->addInput("X", DataType::kFLOAT, nvinfer1::Dims{4, {2, 3, 4, 5}});
            nvinfer1::IPluginV2Layer* layer = network->addPluginV2(&x, 1, *plugin);
            ASSERT_NE(layer, nullptr);
            layer->getOutput(0)->setName("Y");
            network->markOutput(*layer->getOutput(0));
            std::vector<float> const input = randomValues(rng, 120, -2.0F, 3.0F);
            test::EngineRun const run
                = test::buildAndRun(*builder, *network, {{"X", input.data()}}, input.size() * sizeof(float), log);
            ASSERT_EQ(run.failure, "");
            expectClose(run.floats(), instanceNormReference(input, 2, 3, 20, f.scales, f.bias, 1e-5, true, 0.3), 2e-5);
        }
        plugin->destroy();
    }
    KILN_IGNORE_DEPRECATED_END
}

} // namespace
} // namespace kiln::plugins
