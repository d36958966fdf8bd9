// SPDX-License-Identifier: Apache-2.0
// CustomSkipLayerNormPluginDynamic "5" on the host: the host implementation against a direct reference written here
// (layer norm of input + skip + bias over each row of [S, B, E, 1, 1], in double), FP32 and FP16, with and without
// bias; the creator's declared fields and every refusal with its message; a run whose shapes disagree with ld; and
// engines built, serialized, deserialized and run on the host backend.
#include "bert_test_support.h"
#include "kiln/plugin_host.h"
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

std::vector<float> skipLayerNormReference(int64_t rows, int32_t ld, std::vector<float> const& input,
    std::vector<float> const& skip, std::vector<float> const& gamma, std::vector<float> const& beta,
    std::vector<float> const& bias)
{
    std::vector<float> out(input.size());
    for (int64_t r = 0; r < rows; ++r)
    {
        std::vector<double> x(static_cast<size_t>(ld));
        double mean = 0.0;
        for (int32_t i = 0; i < ld; ++i)
        {
            x[i] = static_cast<double>(input[r * ld + i]) + skip[r * ld + i] + (bias.empty() ? 0.0 : bias[i]);
            mean += x[i] / ld;
        }
        double variance = 0.0;
        for (int32_t i = 0; i < ld; ++i)
        {
            variance += (x[i] - mean) * (x[i] - mean) / ld;
        }
        for (int32_t i = 0; i < ld; ++i)
        {
            out[r * ld + i] = static_cast<float>(gamma[i] * (x[i] - mean) / std::sqrt(variance + 1e-5) + beta[i]);
        }
    }
    return out;
}

TEST(SkipLayerNormHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261130);
    for (int32_t ld : {1, 7, 64})
    {
        for (bool withBias : {false, true})
        {
            for (DataType type : {DataType::kFLOAT, DataType::kHALF})
            {
                SCOPED_TRACE("ld " + std::to_string(ld) + (withBias ? " bias" : "")
                    + (type == DataType::kHALF ? " FP16" : " FP32"));
                int64_t const rows = 3 * 2; // S = 3, B = 2
                auto const n = static_cast<size_t>(rows * ld);
                std::vector<float> input = randomFloats(rng, n, -3.0F, 3.0F);
                std::vector<float> skip = randomFloats(rng, n, -1.0F, 1.0F);
                std::vector<float> const gamma = randomFloats(rng, static_cast<size_t>(ld), 0.5F, 1.5F);
                std::vector<float> const beta = randomFloats(rng, static_cast<size_t>(ld), -0.5F, 0.5F);
                std::vector<float> const bias
                    = withBias ? randomFloats(rng, static_cast<size_t>(ld), -1.0F, 1.0F) : std::vector<float>{};
                SkipLayerNormParams const p{rows, ld};
                std::vector<float> actual;
                if (type == DataType::kHALF)
                {
                    input = roundedToHalf(input);
                    skip = roundedToHalf(skip);
                    std::vector<uint16_t> const in16 = toHalf(input);
                    std::vector<uint16_t> const skip16 = toHalf(skip);
                    std::vector<uint16_t> out16(n, 0x7E00);
                    runSkipLayerNormHost(p, type, in16.data(), skip16.data(), gamma.data(), beta.data(),
                        withBias ? bias.data() : nullptr, out16.data());
                    actual = fromHalf(out16);
                }
                else
                {
                    actual.assign(n, -7.0F);
                    runSkipLayerNormHost(p, type, input.data(), skip.data(), gamma.data(), beta.data(),
                        withBias ? bias.data() : nullptr, actual.data());
                }
                expectClose(actual, skipLayerNormReference(rows, ld, input, skip, gamma, beta, bias),
                    type == DataType::kHALF ? 2e-3 : 1e-5);
            }
        }
    }
}

TEST(SkipLayerNormHost, AConstantRowGivesBeta)
{
    // Zero variance: the epsilon keeps the scale finite and the output is beta.
    std::vector<float> const input(4, 2.0F);
    std::vector<float> const skip(4, 0.5F);
    std::vector<float> const gamma{1.0F, 2.0F, 3.0F, 4.0F};
    std::vector<float> const beta{0.1F, 0.2F, 0.3F, 0.4F};
    std::vector<float> out(4);
    runSkipLayerNormHost(
        {1, 4}, DataType::kFLOAT, input.data(), skip.data(), gamma.data(), beta.data(), nullptr, out.data());
    expectClose(out, beta, 1e-6);
}

//! The fields of a plugin of hidden size ld (bias when given), as an application passes them.
struct SkipFields
{
    int32_t typeId{0};
    int32_t ld{};
    std::vector<float> beta;
    std::vector<float> gamma;
    std::vector<float> bias;
    std::vector<PluginField> list;
    PluginFieldCollection collection{};

    PluginFieldCollection const& build()
    {
        list = {{"type_id", &typeId, PluginFieldType::kINT32, 1}, {"ld", &ld, PluginFieldType::kINT32, 1},
            {"beta", beta.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(beta.size())},
            {"gamma", gamma.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(gamma.size())}};
        if (!bias.empty())
        {
            list.push_back({"bias", bias.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(bias.size())});
        }
        collection = {static_cast<int32_t>(list.size()), list.data()};
        return collection;
    }
};

SkipFields skipFields(int32_t ld, bool withBias)
{
    SkipFields f;
    f.ld = ld;
    for (int32_t i = 0; i < ld; ++i)
    {
        f.beta.push_back(0.1F * static_cast<float>(i));
        f.gamma.push_back(1.0F + 0.05F * static_cast<float>(i));
        if (withBias)
        {
            f.bias.push_back(0.2F - 0.03F * static_cast<float>(i));
        }
    }
    return f;
}

TEST(SkipLayerNormCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    initPlugins();
    nvinfer1::IPluginCreatorV3One* c = creator("CustomSkipLayerNormPluginDynamic", "5");
    ASSERT_NE(c, nullptr);
    PluginFieldCollection const* declared = c->getFieldNames();
    ASSERT_EQ(declared->nbFields, 5);
    std::vector<std::string> names;
    for (int32_t i = 0; i < declared->nbFields; ++i)
    {
        names.emplace_back(declared->fields[i].name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"type_id", "ld", "beta", "gamma", "bias"}));

    auto refused = [&](SkipFields& f, std::string const& fragment) {
        logger().mMessages.clear();
        std::unique_ptr<nvinfer1::IPluginV3> plugin{c->createPlugin("s", &f.build(), nvinfer1::TensorRTPhase::kBUILD)};
        EXPECT_EQ(plugin, nullptr) << fragment;
        EXPECT_TRUE(logged("CustomSkipLayerNormPluginDynamic version \"5\" namespace \"\" plugin: " + fragment));
    };
    SkipFields intType = skipFields(4, false);
    intType.typeId = 2;
    refused(intType, "type_id is 2; kiln supports 0 (FP32) and 1 (FP16), not 2 (INT8)");
    SkipFields zero = skipFields(4, false);
    zero.ld = 0;
    refused(zero, "ld is 0; it must be positive");
    SkipFields shortGamma = skipFields(4, true);
    shortGamma.gamma.pop_back();
    refused(shortGamma, "beta, gamma and bias must have ld (4) elements; they have 4, 3 and 4");

    SkipFields good = skipFields(4, false);
    PluginFieldCollection const& all = good.build();
    PluginFieldCollection const withoutLd{all.nbFields - 1, all.fields + 0};
    std::vector<PluginField> noLd{all.fields[0], all.fields[2], all.fields[3]};
    PluginFieldCollection const missing{3, noLd.data()};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("s", &missing, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("the fields type_id, ld, beta and gamma are required"));
    static_cast<void>(withoutLd);

    int32_t const notWeights = 3;
    std::vector<PluginField> wrongType{
        all.fields[0], all.fields[1], all.fields[2], PluginField{"gamma", &notWeights, PluginFieldType::kINT32, 1}};
    PluginFieldCollection const wrong{4, wrongType.data()};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("s", &wrong, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("field gamma must be weights (kFLOAT32 or kFLOAT16 with at least one element)"));

    float const floatType = 0.0F;
    std::vector<PluginField> floatTypeId{
        PluginField{"type_id", &floatType, PluginFieldType::kFLOAT32, 1}, all.fields[1], all.fields[2], all.fields[3]};
    PluginFieldCollection const floatId{4, floatTypeId.data()};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("s", &floatId, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("field type_id must be kINT32"));

    // FP16 weights are read as such.
    std::vector<uint16_t> const beta16 = toHalf(good.beta);
    std::vector<PluginField> halfWeights{
        all.fields[0], all.fields[1], PluginField{"beta", beta16.data(), PluginFieldType::kFLOAT16, 4}, all.fields[3]};
    PluginFieldCollection const half{4, halfWeights.data()};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{c->createPlugin("s", &half, nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_NE(plugin, nullptr) << logger().mMessages;
}

nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type = DataType::kFLOAT)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(SkipLayerNormCreator, RunsWhoseShapesDisagreeWithLdAreRefused)
{
    initPlugins();
    SkipFields f = skipFields(4, false);
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator("CustomSkipLayerNormPluginDynamic", "5")
                                                    ->createPlugin("s", &f.build(), nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<float> input(2 * 1 * 8, 1.0F);
    std::vector<float> out(input.size(), -7.0F);
    nvinfer1::PluginTensorDesc const inputs[]
        = {describe(nvinfer1::Dims{5, {2, 1, 8, 1, 1}}), describe(nvinfer1::Dims{5, {2, 1, 8, 1, 1}})};
    nvinfer1::PluginTensorDesc const output = describe(nvinfer1::Dims{5, {2, 1, 8, 1, 1}});
    void const* data[] = {input.data(), input.data()};
    void* outData[] = {out.data()};
    logger().mMessages.clear();
    EXPECT_NE(host->enqueueHost(inputs, &output, data, outData, nullptr), 0);
    EXPECT_TRUE(logged("input, skip and the output must be [S, B, ld, 1, 1] with ld 4"));
    EXPECT_EQ(out, std::vector<float>(out.size(), -7.0F)) << "nothing written";
}

TEST(SkipLayerNormEngine, SerializesDeserializesAndRunsInFp32AndFp16)
{
    initPlugins();
    std::mt19937_64 rng(5);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        SCOPED_TRACE(type == DataType::kHALF ? "FP16" : "FP32");
        int32_t const ld = 6;
        SkipFields f = skipFields(ld, type == DataType::kFLOAT);
        f.typeId = type == DataType::kHALF ? 1 : 0;
        nvinfer1::Dims const dims{5, {3, 2, ld, 1, 1}};
        size_t const n = 3 * 2 * ld;
        std::vector<float> input = roundedToHalf(randomFloats(rng, n, -2.0F, 2.0F));
        std::vector<float> skip = roundedToHalf(randomFloats(rng, n, -2.0F, 2.0F));
        std::vector<uint16_t> const in16 = toHalf(input);
        std::vector<uint16_t> const skip16 = toHalf(skip);
        bool const half = type == DataType::kHALF;
        EngineRun const run = runPluginEngine(*creator("CustomSkipLayerNormPluginDynamic", "5"), f.build(),
            {{"input", type, dims}, {"skip", type, dims}},
            {half ? static_cast<void const*>(in16.data()) : input.data(),
                half ? static_cast<void const*>(skip16.data()) : skip.data()},
            {n * (half ? 2 : 4)});
        ASSERT_EQ(run.failure, "");
        std::vector<float> const actual
            = half ? fromHalf(elementsOf<uint16_t>(run.outputs[0])) : elementsOf<float>(run.outputs[0]);
        expectClose(actual, skipLayerNormReference(6, ld, input, skip, f.gamma, f.beta, f.bias), half ? 2e-3 : 1e-5);
    }
}

} // namespace
} // namespace kiln::plugins
