// SPDX-License-Identifier: Apache-2.0
// CustomEmbLayerNormPluginDynamic "6" on the host: the host implementation against a direct reference written here
// (word + token type + position embeddings of [S, B] ids, layer norm in double; the mask index as the first zero of
// each column), FP32 and FP16 output, ids outside the tables; the creator's declared fields and every refusal with its
// message; a run whose shapes disagree; and engines built, serialized, deserialized and run on the host backend.
#include "bert_test_support.h"
#include "emb_layer_norm.h"
#include "kiln/plugin_host.h"

namespace kiln::plugins
{
namespace
{

using namespace bert_test;
using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

//! A plugin's tables: hidden size ld and the numbers of rows.
struct Tables
{
    int32_t ld{};
    std::vector<float> beta;
    std::vector<float> gamma;
    std::vector<float> word;
    std::vector<float> token;
    std::vector<float> position;
};

Tables randomTables(std::mt19937_64& rng, int32_t ld, size_t words, size_t tokens, size_t positions)
{
    auto const n = static_cast<size_t>(ld);
    return Tables{ld, randomFloats(rng, n, -0.5F, 0.5F), randomFloats(rng, n, 0.5F, 1.5F),
        randomFloats(rng, words * n, -1.0F, 1.0F), randomFloats(rng, tokens * n, -1.0F, 1.0F),
        randomFloats(rng, positions * n, -1.0F, 1.0F)};
}

std::vector<float> embReference(
    Tables const& t, int64_t seq, int64_t batch, std::vector<int32_t> const& ids, std::vector<int32_t> const& segments)
{
    std::vector<float> out(static_cast<size_t>(seq * batch * t.ld));
    auto const rows = [&](std::vector<float> const& table) { return static_cast<int64_t>(table.size()) / t.ld; };
    for (int64_t s = 0; s < seq; ++s)
    {
        for (int64_t b = 0; b < batch; ++b)
        {
            int64_t const row = s * batch + b;
            int64_t const w = ids[row];
            int64_t const k = segments[row];
            bool const valid = w >= 0 && w < rows(t.word) && k >= 0 && k < rows(t.token) && s < rows(t.position);
            std::vector<double> x(static_cast<size_t>(t.ld), 0.0);
            double mean = 0.0;
            for (int32_t i = 0; i < t.ld; ++i)
            {
                if (valid)
                {
                    x[i] = static_cast<double>(t.word[w * t.ld + i]) + t.token[k * t.ld + i] + t.position[s * t.ld + i];
                }
                mean += x[i] / t.ld;
            }
            double variance = 0.0;
            for (int32_t i = 0; i < t.ld; ++i)
            {
                variance += (x[i] - mean) * (x[i] - mean) / t.ld;
            }
            for (int32_t i = 0; i < t.ld; ++i)
            {
                out[row * t.ld + i]
                    = static_cast<float>(t.gamma[i] * (x[i] - mean) / std::sqrt(variance + 1e-5) + t.beta[i]);
            }
        }
    }
    return out;
}

std::vector<int32_t> maskIndexReference(int64_t seq, int64_t batch, std::vector<int32_t> const& mask)
{
    std::vector<int32_t> out(static_cast<size_t>(batch), static_cast<int32_t>(seq));
    for (int64_t b = 0; b < batch; ++b)
    {
        for (int64_t s = seq - 1; s >= 0; --s)
        {
            if (mask[s * batch + b] == 0)
            {
                out[b] = static_cast<int32_t>(s);
            }
        }
    }
    return out;
}

EmbLayerNormWeights weightsOf(Tables const& t)
{
    return {t.word.data(), t.token.data(), t.position.data(), t.gamma.data(), t.beta.data()};
}

EmbLayerNormParams paramsOf(Tables const& t, int64_t seq, int64_t batch)
{
    auto const rows = [&](std::vector<float> const& table) { return static_cast<int64_t>(table.size()) / t.ld; };
    return {seq, batch, t.ld, rows(t.word), rows(t.token), rows(t.position)};
}

TEST(EmbLayerNormHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261131);
    for (int32_t ld : {1, 8, 48})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            SCOPED_TRACE("ld " + std::to_string(ld) + (type == DataType::kHALF ? " FP16" : " FP32"));
            int64_t const seq = 5;
            int64_t const batch = 3;
            Tables const t = randomTables(rng, ld, 11, 2, 6);
            std::uniform_int_distribution<int32_t> word(-1, 11); // -1 and 11 lie outside the table
            std::uniform_int_distribution<int32_t> token(0, 2);  // 2 lies outside
            std::vector<int32_t> ids;
            std::vector<int32_t> segments;
            std::vector<int32_t> mask;
            for (int64_t i = 0; i < seq * batch; ++i)
            {
                ids.push_back(word(rng));
                segments.push_back(token(rng));
            }
            // Column b has 5 - b leading ones; column 2 also a stray one after its first zero.
            for (int64_t s = 0; s < seq; ++s)
            {
                for (int64_t b = 0; b < batch; ++b)
                {
                    mask.push_back(s < seq - b || (b == 2 && s == seq - 1) ? 1 : 0);
                }
            }
            EmbLayerNormParams const p = paramsOf(t, seq, batch);
            auto const n = static_cast<size_t>(seq * batch * ld);
            std::vector<int32_t> index(static_cast<size_t>(batch), -1);
            std::vector<float> actual;
            if (type == DataType::kHALF)
            {
                std::vector<uint16_t> out(n, 0x7E00);
                runEmbLayerNormHost(
                    p, type, ids.data(), segments.data(), mask.data(), weightsOf(t), out.data(), index.data());
                actual = fromHalf(out);
            }
            else
            {
                actual.assign(n, -7.0F);
                runEmbLayerNormHost(
                    p, type, ids.data(), segments.data(), mask.data(), weightsOf(t), actual.data(), index.data());
            }
            expectClose(actual, embReference(t, seq, batch, ids, segments), type == DataType::kHALF ? 2e-3 : 1e-5);
            EXPECT_EQ(index, maskIndexReference(seq, batch, mask));
            EXPECT_EQ(index, (std::vector<int32_t>{5, 4, 3}));
        }
    }
}

TEST(EmbLayerNormHost, PositionsPastTheTableAndBadIdsGiveBeta)
{
    std::mt19937_64 rng(8);
    Tables const t = randomTables(rng, 4, 3, 1, 2); // two positions only
    int64_t const seq = 3;
    std::vector<int32_t> const ids{0, 1, 2};
    std::vector<int32_t> const segments{0, 0, 0};
    std::vector<int32_t> const mask{1, 1, 1};
    std::vector<float> out(12, -7.0F);
    int32_t index = -1;
    runEmbLayerNormHost(paramsOf(t, seq, 1), DataType::kFLOAT, ids.data(), segments.data(), mask.data(), weightsOf(t),
        out.data(), &index);
    EXPECT_EQ(index, 3);
    expectClose(std::vector<float>(out.begin() + 8, out.end()), t.beta, 1e-6);
    expectClose(out, embReference(t, seq, 1, ids, segments), 1e-5);
}

//! The fields of a plugin as an application passes them.
struct EmbFields
{
    explicit EmbFields(Tables t)
        : tables(std::move(t))
    {
    }

    Tables tables;
    int32_t outputFp16{0};
    int32_t fullMask{0};
    int32_t mhaTypeId{0};
    std::vector<PluginField> list;
    PluginFieldCollection collection{};

    PluginFieldCollection const& build()
    {
        auto weights = [](char const* name, std::vector<float> const& v) {
            return PluginField{name, v.data(), PluginFieldType::kFLOAT32, static_cast<int32_t>(v.size())};
        };
        list = {weights("bert_embeddings_layernorm_beta", tables.beta),
            weights("bert_embeddings_layernorm_gamma", tables.gamma),
            weights("bert_embeddings_word_embeddings", tables.word),
            weights("bert_embeddings_token_type_embeddings", tables.token),
            weights("bert_embeddings_position_embeddings", tables.position),
            {"output_fp16", &outputFp16, PluginFieldType::kINT32, 1},
            {"full_mask", &fullMask, PluginFieldType::kINT32, 1},
            {"mha_type_id", &mhaTypeId, PluginFieldType::kINT32, 1}};
        collection = {static_cast<int32_t>(list.size()), list.data()};
        return collection;
    }
};

TEST(EmbLayerNormCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    initPlugins();
    nvinfer1::IPluginCreatorV3One* c = creator("CustomEmbLayerNormPluginDynamic", "6");
    ASSERT_NE(c, nullptr);
    PluginFieldCollection const* declared = c->getFieldNames();
    std::vector<std::string> names;
    for (int32_t i = 0; i < declared->nbFields; ++i)
    {
        names.emplace_back(declared->fields[i].name);
    }
    EXPECT_EQ(names,
        (std::vector<std::string>{"bert_embeddings_layernorm_beta", "bert_embeddings_layernorm_gamma",
            "bert_embeddings_word_embeddings", "bert_embeddings_token_type_embeddings",
            "bert_embeddings_position_embeddings", "output_fp16", "full_mask", "mha_type_id"}));

    std::mt19937_64 rng(9);
    auto refused = [&](EmbFields& f, std::string const& fragment) {
        logger().mMessages.clear();
        std::unique_ptr<nvinfer1::IPluginV3> plugin{c->createPlugin("e", &f.build(), nvinfer1::TensorRTPhase::kBUILD)};
        EXPECT_EQ(plugin, nullptr) << fragment;
        EXPECT_TRUE(logged("CustomEmbLayerNormPluginDynamic version \"6\" namespace \"\" plugin: " + fragment));
    };
    EmbFields shortGamma{randomTables(rng, 4, 3, 2, 5)};
    shortGamma.tables.gamma.pop_back();
    refused(shortGamma,
        "bert_embeddings_layernorm_gamma has 3 elements; it must have as many as "
        "bert_embeddings_layernorm_beta (4)");
    EmbFields ragged{randomTables(rng, 4, 3, 2, 5)};
    ragged.tables.word.pop_back();
    refused(ragged,
        "the word, token type and position embeddings must be whole rows of the hidden size 4; they have "
        "11, 8 and 20 elements");
    EmbFields fp16{randomTables(rng, 4, 3, 2, 5)};
    fp16.outputFp16 = 2;
    refused(fp16, "output_fp16 is 2; it must be 0 or 1");
    EmbFields full{randomTables(rng, 4, 3, 2, 5)};
    full.fullMask = 1;
    refused(full, "full_mask is 1; kiln gives only the unfused mask index [B, 1]");
    EmbFields mha{randomTables(rng, 4, 3, 2, 5)};
    mha.mhaTypeId = 4;
    refused(mha, "mha_type_id is 4; it must be 0 to 3");

    EmbFields good{randomTables(rng, 4, 3, 2, 5)};
    PluginFieldCollection const& all = good.build();
    std::vector<PluginField> noWords{all.fields[0], all.fields[1], all.fields[3], all.fields[4]};
    PluginFieldCollection const missing{4, noWords.data()};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("e", &missing, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("the weights bert_embeddings_word_embeddings are required"));

    // mha_type_id picks the mask type of TensorRT's fused attention kernels, which kiln does not have: accepted, and
    // said to be ignored.
    EmbFields typed{randomTables(rng, 4, 3, 2, 5)};
    typed.mhaTypeId = 1;
    logger().mMessages.clear();
    std::unique_ptr<nvinfer1::IPluginV3> accepted{
        c->createPlugin("e", &typed.build(), nvinfer1::TensorRTPhase::kBUILD)};
    EXPECT_NE(accepted, nullptr);
    EXPECT_TRUE(logged("mha_type_id 1 is accepted and ignored"));
}

nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(EmbLayerNormCreator, RunsWhoseShapesDisagreeAreRefused)
{
    initPlugins();
    std::mt19937_64 rng(10);
    EmbFields f{randomTables(rng, 4, 3, 2, 5)};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator("CustomEmbLayerNormPluginDynamic", "6")
                                                    ->createPlugin("e", &f.build(), nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<int32_t> const ids(6, 0);
    std::vector<float> out(6 * 4, -7.0F);
    std::vector<int32_t> index(2, -7);
    nvinfer1::Dims const sb{2, {3, 2}};
    nvinfer1::PluginTensorDesc const inputs[]
        = {describe(sb, DataType::kINT32), describe(sb, DataType::kINT32), describe(sb, DataType::kINT32)};
    // The mask index output is [3, 1]: B is 2.
    nvinfer1::PluginTensorDesc const outputs[] = {describe(nvinfer1::Dims{5, {3, 2, 4, 1, 1}}, DataType::kFLOAT),
        describe(nvinfer1::Dims{2, {3, 1}}, DataType::kINT32)};
    void const* data[] = {ids.data(), ids.data(), ids.data()};
    void* outData[] = {out.data(), index.data()};
    logger().mMessages.clear();
    EXPECT_NE(host->enqueueHost(inputs, outputs, data, outData, nullptr), 0);
    EXPECT_TRUE(logged("input_ids, segment_ids and input_mask must be kINT32 [S, B], and the outputs [S, B, 4, 1, 1] "
                       "and kINT32 [B, 1]; nothing was computed"));
    EXPECT_EQ(out, std::vector<float>(out.size(), -7.0F));
}

TEST(EmbLayerNormEngine, SerializesDeserializesAndRunsInFp32AndFp16)
{
    initPlugins();
    std::mt19937_64 rng(11);
    for (int32_t outputFp16 : {0, 1})
    {
        SCOPED_TRACE(outputFp16 != 0 ? "FP16" : "FP32");
        int64_t const seq = 4;
        int64_t const batch = 2;
        EmbFields f{randomTables(rng, 8, 10, 2, 4)};
        f.outputFp16 = outputFp16;
        std::vector<int32_t> const ids{3, 9, 0, 1, 7, 2, 5, 5};
        std::vector<int32_t> const segments{0, 1, 1, 0, 0, 1, 1, 1};
        std::vector<int32_t> const mask{1, 1, 1, 1, 0, 1, 0, 0};
        nvinfer1::Dims const sb{2, {seq, batch}};
        size_t const n = static_cast<size_t>(seq * batch * 8);
        EngineRun const run = runPluginEngine(*creator("CustomEmbLayerNormPluginDynamic", "6"), f.build(),
            {{"input_ids", DataType::kINT32, sb}, {"segment_ids", DataType::kINT32, sb},
                {"input_mask", DataType::kINT32, sb}},
            {ids.data(), segments.data(), mask.data()}, {n * (outputFp16 != 0 ? 2 : 4), batch * sizeof(int32_t)});
        ASSERT_EQ(run.failure, "");
        Tables expectedTables = f.tables;
        if (outputFp16 != 0)
        {
            // The tables are kept in FP16, as TensorRT keeps them.
            expectedTables.word = roundedToHalf(expectedTables.word);
            expectedTables.token = roundedToHalf(expectedTables.token);
            expectedTables.position = roundedToHalf(expectedTables.position);
        }
        std::vector<float> const actual
            = outputFp16 != 0 ? fromHalf(elementsOf<uint16_t>(run.outputs[0])) : elementsOf<float>(run.outputs[0]);
        expectClose(actual, embReference(expectedTables, seq, batch, ids, segments), outputFp16 != 0 ? 2e-3 : 1e-5);
        EXPECT_EQ(elementsOf<int32_t>(run.outputs[1]), (std::vector<int32_t>{2, 3}));
    }
}

} // namespace
} // namespace kiln::plugins
