// SPDX-License-Identifier: Apache-2.0
// CustomSkipLayerNormPluginDynamic through the ONNX parser: a node of that op type with plugin_version "5", type_id,
// ld and the beta, gamma and bias weights as attributes, found in the registry once kiln's standard plugin library is
// loaded (it registers the BERT family when it loads), parsed, built and run on the host backend against a direct
// reference; version "1", the IPluginV2DynamicExt one, giving the same result; the parser's refusals when the version
// is one kiln lacks or the creator refuses the fields.
#include "bert_plugins_support.h"

#include <gtest/gtest.h>

#include <map>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

::onnx::NodeProto& skipNode(ModelBuilder& m, int64_t ld, int64_t typeId, char const* version)
{
    auto& node = m.node("CustomSkipLayerNormPluginDynamic", {"input", "skip"}, {"Y"}, "skip_ln");
    attrString(node, "plugin_version", version);
    attrInt(node, "type_id", typeId);
    attrInt(node, "ld", ld);
    std::vector<float> beta;
    std::vector<float> gamma;
    std::vector<float> bias;
    for (int64_t i = 0; i < ld; ++i)
    {
        beta.push_back(0.1F * static_cast<float>(i) - 0.2F);
        gamma.push_back(1.0F + 0.1F * static_cast<float>(i));
        bias.push_back(0.3F - 0.05F * static_cast<float>(i));
    }
    attrTensor(node, "beta", floatTensor("beta", {1, 1, ld}, beta));
    attrTensor(node, "gamma", floatTensor("gamma", {1, 1, ld}, gamma));
    attrTensor(node, "bias", floatTensor("bias", {1, 1, ld}, bias));
    return node;
}

TEST(OnnxSkipLayerNorm, ThePluginNodeParsesBuildsAndRunsOnTheHost)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    int64_t const ld = 5;
    Shape const shape{4, 2, ld, 1, 1};
    ModelBuilder m(17);
    m.input("input", shape);
    m.input("skip", shape);
    skipNode(m, ld, 0, "5");
    m.output("Y");
    Harness h;
    ASSERT_TRUE(h.parse(m)) << h.errors();
    EXPECT_EQ(h.layers(nvinfer1::LayerType::kPLUGIN_V3).size(), 1U);
    std::vector<float> const input = randomValues(40, 21, -2.0F, 2.0F);
    std::vector<float> const skip = randomValues(40, 22, -2.0F, 2.0F);
    auto outputs = h.run({{"input", {shape, input}}, {"skip", {shape, skip}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, shape);
    std::vector<float> beta;
    std::vector<float> gamma;
    std::vector<double> x(input.size());
    for (int64_t i = 0; i < ld; ++i)
    {
        beta.push_back(0.1F * static_cast<float>(i) - 0.2F);
        gamma.push_back(1.0F + 0.1F * static_cast<float>(i));
    }
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<double>(input[i]) + skip[i] + (0.3F - 0.05F * static_cast<float>(i % ld));
    }
    expectClose(outputs["Y"].values, layerNormRows(x, static_cast<size_t>(ld), gamma, beta), 1e-5F);
}

TEST(OnnxSkipLayerNorm, VersionOneIsTheV2PluginWithTheSameResult)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    Shape const shape{3, 2, 4, 1, 1};
    std::vector<float> const input = randomValues(24, 23, -2.0F, 2.0F);
    std::vector<float> const skip = randomValues(24, 24, -2.0F, 2.0F);
    std::map<std::string, std::vector<float>> results;
    for (char const* version : {"1", "5"})
    {
        ModelBuilder m(17);
        m.input("input", shape);
        m.input("skip", shape);
        skipNode(m, 4, 0, version);
        m.output("Y");
        Harness h;
        ASSERT_TRUE(h.parse(m)) << h.errors();
        EXPECT_EQ(
            h.layers(std::string(version) == "1" ? nvinfer1::LayerType::kPLUGIN_V2 : nvinfer1::LayerType::kPLUGIN_V3)
                .size(),
            1U)
            << version;
        auto outputs = h.run({{"input", {shape, input}}, {"skip", {shape, skip}}});
        ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
        results[version] = outputs["Y"].values;
    }
    EXPECT_EQ(results["1"], results["5"]);
}

TEST(OnnxSkipLayerNorm, VersionsKilnLacksAndBadFieldsAreRefused)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    Shape const shape{2, 1, 3, 1, 1};
    {
        // Version 3 is TensorRT's INT8 variable-sequence-length plugin, which kiln does not provide.
        ModelBuilder m(17);
        m.input("input", shape);
        m.input("skip", shape);
        skipNode(m, 3, 0, "3");
        m.output("Y");
        expectRefused(m, ErrorCode::kINVALID_NODE,
            "Did you mean 'CustomSkipLayerNormPluginDynamic' version '1' namespace '' (another version)",
            "CustomSkipLayerNormPluginDynamic", "skip_ln");
    }
    {
        ModelBuilder m(17);
        m.input("input", shape);
        m.input("skip", shape);
        skipNode(m, 3, 2, "5");
        m.output("Y");
        expectRefused(m, ErrorCode::kUNSUPPORTED_NODE,
            "the creator of plugin \"CustomSkipLayerNormPluginDynamic\" version \"5\" namespace \"\" returned nullptr",
            "CustomSkipLayerNormPluginDynamic", "skip_ln");
    }
}

} // namespace
} // namespace kiln::onnx_test
