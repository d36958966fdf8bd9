// SPDX-License-Identifier: Apache-2.0
// CustomEmbLayerNormPluginDynamic through the ONNX parser: a node of that op type with plugin_version "6", the five
// tables as TENSOR attributes and output_fp16 and mha_type_id as INT attributes, found in the registry once kiln's
// standard plugin library is loaded, parsed, built and run on the host backend: the embeddings' layer norm against a
// direct reference and the mask index [B, 1]; and the refusal of full_mask 1.
#include "bert_plugins_support.h"

#include <gtest/gtest.h>

namespace kiln::onnx_test
{
namespace
{

using nvonnxparser::ErrorCode;

struct EmbModel
{
    int64_t seq{3};
    int64_t batch{2};
    int64_t ld{4};
    std::vector<float> beta{0.1F, -0.1F, 0.2F, 0.0F};
    std::vector<float> gamma{1.0F, 0.5F, 2.0F, 1.5F};
    std::vector<float> word = randomValues(5 * 4, 31);
    std::vector<float> token = randomValues(2 * 4, 32);
    std::vector<float> position = randomValues(3 * 4, 33);
};

ModelBuilder embModel(EmbModel const& e, int64_t fullMask)
{
    ModelBuilder m(17);
    for (char const* name : {"input_ids", "segment_ids", "input_mask"})
    {
        m.input(name, {e.seq, e.batch}, ::onnx::TensorProto::INT32);
    }
    auto& node = m.node(
        "CustomEmbLayerNormPluginDynamic", {"input_ids", "segment_ids", "input_mask"}, {"Y", "mask_index"}, "emb");
    attrString(node, "plugin_version", "6");
    attrTensor(node, "bert_embeddings_layernorm_beta", floatTensor("beta", {e.ld}, e.beta));
    attrTensor(node, "bert_embeddings_layernorm_gamma", floatTensor("gamma", {e.ld}, e.gamma));
    attrTensor(node, "bert_embeddings_word_embeddings", floatTensor("word", {5, e.ld}, e.word));
    attrTensor(node, "bert_embeddings_token_type_embeddings", floatTensor("token", {2, e.ld}, e.token));
    attrTensor(node, "bert_embeddings_position_embeddings", floatTensor("position", {3, e.ld}, e.position));
    attrInt(node, "output_fp16", 0);
    attrInt(node, "mha_type_id", 0);
    attrInt(node, "full_mask", fullMask);
    m.output("Y");
    m.output("mask_index", ::onnx::TensorProto::INT32);
    return m;
}

TEST(OnnxEmbLayerNorm, ThePluginNodeParsesBuildsAndRunsOnTheHost)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    EmbModel const e;
    Harness h;
    ASSERT_TRUE(h.parse(embModel(e, 0))) << h.errors();
    std::vector<int32_t> const ids{4, 0, 1, 2, 3, 3};
    std::vector<int32_t> const segments{0, 1, 1, 1, 0, 0};
    std::vector<int32_t> const mask{1, 1, 1, 0, 0, 0};
    Shape const sb{e.seq, e.batch};
    auto outputs = h.run({{"input_ids", {sb, intBits(ids)}}, {"segment_ids", {sb, intBits(segments)}},
        {"input_mask", {sb, intBits(mask)}}});
    ASSERT_EQ(outputs.count("Y"), 1U) << h.lastFailure();
    EXPECT_EQ(outputs["Y"].shape, (Shape{3, 2, 4, 1, 1}));
    EXPECT_EQ(outputs["mask_index"].shape, (Shape{2, 1}));
    std::vector<double> x;
    for (int64_t s = 0; s < e.seq; ++s)
    {
        for (int64_t b = 0; b < e.batch; ++b)
        {
            int64_t const row = s * e.batch + b;
            for (int64_t i = 0; i < e.ld; ++i)
            {
                x.push_back(static_cast<double>(e.word[ids[row] * e.ld + i]) + e.token[segments[row] * e.ld + i]
                    + e.position[s * e.ld + i]);
            }
        }
    }
    expectClose(outputs["Y"].values, layerNormRows(x, 4, e.gamma, e.beta), 1e-5F);
    std::vector<float> index = outputs["mask_index"].values;
    index.resize(2);
    EXPECT_EQ(intsOf(index), (std::vector<int32_t>{2, 1}));
}

TEST(OnnxEmbLayerNorm, FullMaskIsRefused)
{
    ASSERT_EQ(loadStandardPluginLibrary(), "");
    expectRefused(embModel(EmbModel{}, 1), ErrorCode::kUNSUPPORTED_NODE,
        "the creator of plugin \"CustomEmbLayerNormPluginDynamic\" version \"6\" namespace \"\" returned nullptr",
        "CustomEmbLayerNormPluginDynamic", "emb");
}

} // namespace
} // namespace kiln::onnx_test
