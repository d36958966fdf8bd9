// SPDX-License-Identifier: Apache-2.0
// CustomQKVToContextPluginDynamic "4" on the host: the host implementation against a direct reference written here
// (per head softmax(Q K^T / sqrt(H)) V over the valid keys, from the packed [S, B, N, 3, H] input, in double), with and
// without a mask (mask indices 0, past S and negative included), FP32 and FP16; the creator's declared fields and every
// refusal with its message; a run whose shapes disagree; and engines built, serialized, deserialized and run on the
// host backend, the mask index coming from CustomEmbLayerNormPluginDynamic's format.
#include "bert_test_support.h"
#include "kiln/plugin_host.h"
#include "qkv_to_context.h"

namespace kiln::plugins
{
namespace
{

using namespace bert_test;
using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

std::vector<float> qkvReference(
    QkvToContextParams const& p, std::vector<float> const& qkv, std::vector<int32_t> const* mask)
{
    int64_t const hidden = static_cast<int64_t>(p.heads) * p.headSize;
    std::vector<float> out(static_cast<size_t>(p.outputCount()), 0.0F);
    auto at = [&](int64_t s, int64_t b, int64_t n, int64_t part, int64_t h) {
        return static_cast<double>(qkv[((s * p.batch + b) * p.heads + n) * 3 * p.headSize + part * p.headSize + h]);
    };
    for (int64_t s = 0; s < p.seq; ++s)
    {
        for (int64_t b = 0; b < p.batch; ++b)
        {
            int64_t valid = mask == nullptr ? p.seq : std::clamp<int64_t>((*mask)[b], 0, p.seq);
            for (int64_t n = 0; n < p.heads; ++n)
            {
                if (valid == 0)
                {
                    continue;
                }
                std::vector<double> scores;
                for (int64_t j = 0; j < valid; ++j)
                {
                    double dot = 0.0;
                    for (int64_t k = 0; k < p.headSize; ++k)
                    {
                        dot += at(s, b, n, 0, k) * at(j, b, n, 1, k);
                    }
                    scores.push_back(dot / std::sqrt(static_cast<double>(p.headSize)));
                }
                double const largest = *std::max_element(scores.begin(), scores.end());
                double total = 0.0;
                for (double& v : scores)
                {
                    v = std::exp(v - largest);
                    total += v;
                }
                for (int64_t h = 0; h < p.headSize; ++h)
                {
                    double sum = 0.0;
                    for (int64_t j = 0; j < valid; ++j)
                    {
                        sum += scores[j] / total * at(j, b, n, 2, h);
                    }
                    out[(s * p.batch + b) * hidden + n * p.headSize + h] = static_cast<float>(sum);
                }
            }
        }
    }
    return out;
}

TEST(QkvToContextHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261132);
    struct Shape
    {
        int32_t heads;
        int32_t headSize;
    };
    for (Shape const shape : {Shape{1, 1}, Shape{2, 8}, Shape{4, 16}})
    {
        for (bool withMask : {false, true})
        {
            for (DataType type : {DataType::kFLOAT, DataType::kHALF})
            {
                SCOPED_TRACE("heads " + std::to_string(shape.heads) + " x " + std::to_string(shape.headSize)
                    + (withMask ? " mask" : "") + (type == DataType::kHALF ? " FP16" : " FP32"));
                QkvToContextParams const p{5, 4, shape.heads, shape.headSize};
                std::vector<float> const qkv
                    = roundedToHalf(randomFloats(rng, static_cast<size_t>(p.outputCount() * 3), -2.0F, 2.0F));
                std::vector<int32_t> const mask{5, 2, 0, 9}; // all, two, none (zeros), past S (all)
                int32_t const* maskData = withMask ? mask.data() : nullptr;
                std::vector<float> actual;
                if (type == DataType::kHALF)
                {
                    std::vector<uint16_t> const in = toHalf(qkv);
                    std::vector<uint16_t> out(static_cast<size_t>(p.outputCount()), 0x7E00);
                    runQkvToContextHost(p, type, in.data(), maskData, out.data());
                    actual = fromHalf(out);
                }
                else
                {
                    actual.assign(static_cast<size_t>(p.outputCount()), -7.0F);
                    runQkvToContextHost(p, type, qkv.data(), maskData, actual.data());
                }
                expectClose(
                    actual, qkvReference(p, qkv, withMask ? &mask : nullptr), type == DataType::kHALF ? 2e-3 : 1e-5);
            }
        }
    }
}

TEST(QkvToContextHost, OneValidKeyCopiesItsValueAndNegativeMaskIndicesGiveZeros)
{
    QkvToContextParams const p{3, 2, 1, 2};
    std::vector<float> qkv(static_cast<size_t>(p.outputCount() * 3));
    for (size_t i = 0; i < qkv.size(); ++i)
    {
        qkv[i] = static_cast<float>(i % 7) - 3.0F;
    }
    std::vector<int32_t> const mask{1, -4};
    std::vector<float> out(static_cast<size_t>(p.outputCount()), -7.0F);
    runQkvToContextHost(p, DataType::kFLOAT, qkv.data(), mask.data(), out.data());
    for (int64_t s = 0; s < p.seq; ++s)
    {
        // Batch 0: every query sees key 0 only, so its context is value 0 of batch 0.
        EXPECT_EQ(out[(s * 2 + 0) * 2 + 0], qkv[4]);
        EXPECT_EQ(out[(s * 2 + 0) * 2 + 1], qkv[5]);
        EXPECT_EQ(out[(s * 2 + 1) * 2 + 0], 0.0F);
        EXPECT_EQ(out[(s * 2 + 1) * 2 + 1], 0.0F);
    }
}

struct QkvFields
{
    QkvFields(int32_t type, int32_t hidden, int32_t heads, int32_t mask = 0)
        : typeId(type)
        , hiddenSize(hidden)
        , numHeads(heads)
        , hasMask(mask)
    {
    }

    int32_t typeId{0};
    int32_t hiddenSize{};
    int32_t numHeads{};
    int32_t hasMask{0};
    float dqProbs{1.0F / 127.0F};
    std::vector<PluginField> list;
    PluginFieldCollection collection{};

    PluginFieldCollection const& build()
    {
        list = {{"type_id", &typeId, PluginFieldType::kINT32, 1},
            {"hidden_size", &hiddenSize, PluginFieldType::kINT32, 1},
            {"num_heads", &numHeads, PluginFieldType::kINT32, 1}, {"has_mask", &hasMask, PluginFieldType::kINT32, 1},
            {"dq_probs", &dqProbs, PluginFieldType::kFLOAT32, 1}};
        collection = {static_cast<int32_t>(list.size()), list.data()};
        return collection;
    }
};

TEST(QkvToContextCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    initPlugins();
    nvinfer1::IPluginCreatorV3One* c = creator("CustomQKVToContextPluginDynamic", "4");
    ASSERT_NE(c, nullptr);
    PluginFieldCollection const* declared = c->getFieldNames();
    std::vector<std::string> names;
    for (int32_t i = 0; i < declared->nbFields; ++i)
    {
        names.emplace_back(declared->fields[i].name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"type_id", "hidden_size", "num_heads", "has_mask", "dq_probs"}));

    auto refused = [&](QkvFields f, std::string const& fragment) {
        logger().mMessages.clear();
        std::unique_ptr<nvinfer1::IPluginV3> plugin{c->createPlugin("q", &f.build(), nvinfer1::TensorRTPhase::kBUILD)};
        EXPECT_EQ(plugin, nullptr) << fragment;
        EXPECT_TRUE(logged("CustomQKVToContextPluginDynamic version \"4\" namespace \"\" plugin: " + fragment));
    };
    refused(QkvFields{2, 8, 2}, "type_id is 2; kiln supports 0 (FP32) and 1 (FP16), not 2 (INT8)");
    refused(QkvFields{0, 8, 3}, "hidden_size 8 and num_heads 3 must be positive, num_heads dividing hidden_size");
    refused(QkvFields{0, 0, 1}, "hidden_size 0 and num_heads 1 must be positive");
    refused(QkvFields{0, 8, 2, 2}, "has_mask is 2; it must be 0 or 1");
    QkvFields missing{0, 8, 2};
    PluginFieldCollection const& all = missing.build();
    PluginFieldCollection const noHeads{2, all.fields};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("q", &noHeads, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("the fields type_id, hidden_size and num_heads are required"));
}

nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(QkvToContextCreator, RunsWhoseShapesDisagreeAreRefused)
{
    initPlugins();
    QkvFields f{0, 4, 2, 1};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator("CustomQKVToContextPluginDynamic", "4")
                                                    ->createPlugin("q", &f.build(), nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<float> const qkv(2 * 3 * 12, 1.0F);
    std::vector<int32_t> const mask(2, 2);
    std::vector<float> out(2 * 3 * 4, -7.0F);
    // The mask covers 2 batches; the input has 3.
    nvinfer1::PluginTensorDesc const inputs[] = {describe(nvinfer1::Dims{5, {2, 3, 12, 1, 1}}, DataType::kFLOAT),
        describe(nvinfer1::Dims{2, {2, 1}}, DataType::kINT32)};
    nvinfer1::PluginTensorDesc const output = describe(nvinfer1::Dims{5, {2, 3, 4, 1, 1}}, DataType::kFLOAT);
    void const* data[] = {qkv.data(), mask.data()};
    void* outData[] = {out.data()};
    logger().mMessages.clear();
    EXPECT_NE(host->enqueueHost(inputs, &output, data, outData, nullptr), 0);
    EXPECT_TRUE(
        logged("the packed QKV must be [S, B, 12, 1, 1], the mask index kINT32 [B, 1] and the context [S, B, 4, "
               "1, 1], of type_id's type; nothing was computed"));
    EXPECT_EQ(out, std::vector<float>(out.size(), -7.0F));
}

TEST(QkvToContextEngine, SerializesDeserializesAndRunsInFp32AndFp16)
{
    initPlugins();
    std::mt19937_64 rng(12);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        for (int32_t hasMask : {0, 1})
        {
            SCOPED_TRACE(std::string(type == DataType::kHALF ? "FP16" : "FP32") + (hasMask != 0 ? " mask" : ""));
            QkvToContextParams const p{6, 2, 2, 4};
            QkvFields f{type == DataType::kHALF ? 1 : 0, 8, 2, hasMask};
            std::vector<float> const qkv
                = roundedToHalf(randomFloats(rng, static_cast<size_t>(p.outputCount() * 3), -1.5F, 1.5F));
            std::vector<uint16_t> const qkv16 = toHalf(qkv);
            std::vector<int32_t> const mask{4, 6};
            bool const half = type == DataType::kHALF;
            std::vector<std::tuple<char const*, DataType, nvinfer1::Dims>> inputs{
                {"qkv", type, nvinfer1::Dims{5, {6, 2, 24, 1, 1}}}};
            std::vector<void const*> data{half ? static_cast<void const*>(qkv16.data()) : qkv.data()};
            if (hasMask != 0)
            {
                inputs.emplace_back("mask", DataType::kINT32, nvinfer1::Dims{2, {2, 1}});
                data.push_back(mask.data());
            }
            EngineRun const run = runPluginEngine(*creator("CustomQKVToContextPluginDynamic", "4"), f.build(), inputs,
                data, {static_cast<size_t>(p.outputCount()) * (half ? 2 : 4)});
            ASSERT_EQ(run.failure, "");
            std::vector<float> const actual
                = half ? fromHalf(elementsOf<uint16_t>(run.outputs[0])) : elementsOf<float>(run.outputs[0]);
            expectClose(actual, qkvReference(p, qkv, hasMask != 0 ? &mask : nullptr), half ? 2e-3 : 1e-5);
        }
    }
}

} // namespace
} // namespace kiln::plugins
