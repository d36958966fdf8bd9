// SPDX-License-Identifier: Apache-2.0
// DisentangledAttention_TRT "2" on the host: the relative-position index against values worked by hand from TensorRT's
// log-bucket definition; the host implementation against a direct reference written here (c2c plus the c2p and p2c
// gathers, times factor), FP32 and FP16, spans smaller and larger than the sequence; the creator's declared fields and
// every refusal with its message; a run whose shapes disagree; and engines built, serialized, deserialized and run on
// the host backend.
#include "bert_test_support.h"
#include "disentangled_attention.h"
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

TEST(DisentangledAttentionHost, RelativeIndexFollowsTheLogBuckets)
{
    // span 8 (mid 4), S 64: distances up to 4 are kept; farther ones take
    // mid + ceil((log d - log 4) * 3 / (log 63 - log 4)), held to [0, 15] after adding span.
    EXPECT_EQ(disentangledIndex(0, 8, 64), 8);
    EXPECT_EQ(disentangledIndex(2, 8, 64), 10);
    EXPECT_EQ(disentangledIndex(-4, 8, 64), 4);
    EXPECT_EQ(disentangledIndex(5, 8, 64), 13);  // ceil(0.243) = 1: bucket 5
    EXPECT_EQ(disentangledIndex(-5, 8, 64), 3);  // bucket -5
    EXPECT_EQ(disentangledIndex(20, 8, 64), 14); // ceil(1.75) = 2: bucket 6
    EXPECT_EQ(disentangledIndex(63, 8, 64), 15); // ceil(3 * (1 - 1e-7)) = 3: bucket 7
    EXPECT_EQ(disentangledIndex(-63, 8, 64), 1); // bucket -7
    // span 1 (mid 0): every nonzero distance lies at an end, with no undefined conversion.
    EXPECT_EQ(disentangledIndex(0, 1, 16), 1);
    EXPECT_EQ(disentangledIndex(3, 1, 16), 1);
    EXPECT_EQ(disentangledIndex(-3, 1, 16), 0);
}

//! The relative index, written from TensorRT's definition with its float arithmetic.
int64_t referenceIndex(int64_t delta, int32_t span, int64_t seq)
{
    int64_t const mid = span / 2;
    int64_t bucket = delta;
    if (mid == 0 && delta != 0)
    {
        // log(mid) is -inf and the bucket not a number: kiln holds it to the ends (TensorRT leaves it undefined).
        return delta > 0 ? 2 * span - 1 : 0;
    }
    if (std::llabs(delta) > mid)
    {
        float const a = std::log(static_cast<float>(mid));
        float const b = static_cast<float>(mid - 1) / (std::log(static_cast<float>(seq - 1)) - a) * (1.0F - 1e-7F);
        float const c = std::ceil((std::log(static_cast<float>(std::llabs(delta))) - a) * b) + static_cast<float>(mid);
        bucket = delta < 0 ? -static_cast<int64_t>(c) : static_cast<int64_t>(c);
    }
    return std::clamp<int64_t>(bucket + span, 0, 2 * span - 1);
}

std::vector<float> disentangledReference(int64_t groups, int64_t seq, int32_t span, float factor,
    std::vector<float> const& c2c, std::vector<float> const& c2p, std::vector<float> const& p2c)
{
    std::vector<float> out(c2c.size());
    int64_t const width = 2 * span;
    for (int64_t i = 0; i < groups; ++i)
    {
        for (int64_t j = 0; j < seq; ++j)
        {
            for (int64_t k = 0; k < seq; ++k)
            {
                int64_t const column = referenceIndex(j - k, span, seq);
                double const sum = static_cast<double>(c2c[(i * seq + j) * seq + k])
                    + c2p[(i * seq + j) * width + column] + p2c[(i * seq + k) * width + column];
                out[(i * seq + j) * seq + k] = static_cast<float>(sum * factor);
            }
        }
    }
    return out;
}

TEST(DisentangledAttentionHost, MatchesTheDirectReference)
{
    std::mt19937_64 rng(20261133);
    struct Case
    {
        int32_t span;
        int64_t seq;
    };
    for (Case const c : {Case{4, 9}, Case{8, 5}, Case{6, 24}, Case{1, 4}})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            SCOPED_TRACE("span " + std::to_string(c.span) + " S " + std::to_string(c.seq)
                + (type == DataType::kHALF ? " FP16" : " FP32"));
            DisentangledAttentionParams const p{c.span, 0.125F, 3, c.seq};
            auto const n = static_cast<size_t>(p.outputCount());
            auto const m = static_cast<size_t>(p.groups * p.seq * 2 * p.span);
            std::vector<float> const c2c = roundedToHalf(randomFloats(rng, n, -2.0F, 2.0F));
            std::vector<float> const c2p = roundedToHalf(randomFloats(rng, m, -2.0F, 2.0F));
            std::vector<float> const p2c = roundedToHalf(randomFloats(rng, m, -2.0F, 2.0F));
            std::vector<float> actual;
            if (type == DataType::kHALF)
            {
                std::vector<uint16_t> const a = toHalf(c2c);
                std::vector<uint16_t> const b = toHalf(c2p);
                std::vector<uint16_t> const d = toHalf(p2c);
                std::vector<uint16_t> out(n, 0x7E00);
                runDisentangledAttentionHost(p, type, a.data(), b.data(), d.data(), out.data());
                actual = fromHalf(out);
            }
            else
            {
                actual.assign(n, -7.0F);
                runDisentangledAttentionHost(p, type, c2c.data(), c2p.data(), p2c.data(), actual.data());
            }
            expectClose(actual, disentangledReference(p.groups, p.seq, p.span, p.factor, c2c, c2p, p2c),
                type == DataType::kHALF ? 1e-3 : 1e-6);
        }
    }
}

struct DisentangledFields
{
    DisentangledFields(int32_t s, float f)
        : span(s)
        , factor(f)
    {
    }

    int32_t span{};
    float factor{};
    std::vector<PluginField> list;
    PluginFieldCollection collection{};

    PluginFieldCollection const& build()
    {
        list = {{"span", &span, PluginFieldType::kINT32, 1}, {"factor", &factor, PluginFieldType::kFLOAT32, 1}};
        collection = {static_cast<int32_t>(list.size()), list.data()};
        return collection;
    }
};

TEST(DisentangledAttentionCreator, DeclaresTensorRTsFieldsAndRefusesBadOnes)
{
    initPlugins();
    nvinfer1::IPluginCreatorV3One* c = creator("DisentangledAttention_TRT", "2");
    ASSERT_NE(c, nullptr);
    PluginFieldCollection const* declared = c->getFieldNames();
    ASSERT_EQ(declared->nbFields, 2);
    EXPECT_STREQ(declared->fields[0].name, "span");
    EXPECT_EQ(declared->fields[0].type, PluginFieldType::kINT32);
    EXPECT_STREQ(declared->fields[1].name, "factor");
    EXPECT_EQ(declared->fields[1].type, PluginFieldType::kFLOAT32);

    auto refused = [&](DisentangledFields f, std::string const& fragment) {
        logger().mMessages.clear();
        std::unique_ptr<nvinfer1::IPluginV3> plugin{c->createPlugin("d", &f.build(), nvinfer1::TensorRTPhase::kBUILD)};
        EXPECT_EQ(plugin, nullptr) << fragment;
        EXPECT_TRUE(logged("DisentangledAttention_TRT version \"2\" namespace \"\" plugin: " + fragment));
    };
    refused(DisentangledFields{0, 0.1F}, "span is 0; it must be positive");
    refused(DisentangledFields{4, 1.0F}, "factor is 1.000000; it must be in (0, 1)");
    refused(DisentangledFields{4, -0.5F}, "factor is -0.500000; it must be in (0, 1)");
    DisentangledFields onlySpan{4, 0.1F};
    PluginFieldCollection const& all = onlySpan.build();
    PluginFieldCollection const half{1, all.fields};
    logger().mMessages.clear();
    EXPECT_EQ(c->createPlugin("d", &half, nvinfer1::TensorRTPhase::kBUILD), nullptr);
    EXPECT_TRUE(logged("the fields span and factor are required"));
}

nvinfer1::PluginTensorDesc describe(nvinfer1::Dims const& dims, DataType type = DataType::kFLOAT)
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    return desc;
}

TEST(DisentangledAttentionCreator, RunsWhoseShapesDisagreeAreRefused)
{
    initPlugins();
    DisentangledFields f{4, 0.2F};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator("DisentangledAttention_TRT", "2")->createPlugin("d", &f.build(), nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* host = static_cast<kiln::IPluginV3OneHost*>(plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST));
    ASSERT_NE(host, nullptr);
    std::vector<float> const in(2 * 5 * 8, 1.0F);
    std::vector<float> out(2 * 5 * 5, -7.0F);
    // c2p has 6 columns; span 4 needs 8.
    nvinfer1::PluginTensorDesc const inputs[] = {describe(nvinfer1::Dims{3, {2, 5, 5}}),
        describe(nvinfer1::Dims{3, {2, 5, 6}}), describe(nvinfer1::Dims{3, {2, 5, 8}})};
    nvinfer1::PluginTensorDesc const output = describe(nvinfer1::Dims{3, {2, 5, 5}});
    void const* data[] = {in.data(), in.data(), in.data()};
    void* outData[] = {out.data()};
    logger().mMessages.clear();
    EXPECT_NE(host->enqueueHost(inputs, &output, data, outData, nullptr), 0);
    EXPECT_TRUE(logged("c2c and the output must be [BN, S, S], c2p and p2c [BN, S, 8], all of one type"));
    EXPECT_EQ(out, std::vector<float>(out.size(), -7.0F));
}

TEST(DisentangledAttentionEngine, SerializesDeserializesAndRunsInFp32AndFp16)
{
    initPlugins();
    std::mt19937_64 rng(13);
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        SCOPED_TRACE(type == DataType::kHALF ? "FP16" : "FP32");
        bool const half = type == DataType::kHALF;
        DisentangledFields f{4, 0.25F};
        int64_t const groups = 2;
        int64_t const seq = 7;
        std::vector<float> const c2c = roundedToHalf(randomFloats(rng, groups * seq * seq, -1.0F, 1.0F));
        std::vector<float> const c2p = roundedToHalf(randomFloats(rng, groups * seq * 8, -1.0F, 1.0F));
        std::vector<float> const p2c = roundedToHalf(randomFloats(rng, groups * seq * 8, -1.0F, 1.0F));
        std::vector<uint16_t> const a = toHalf(c2c);
        std::vector<uint16_t> const b = toHalf(c2p);
        std::vector<uint16_t> const d = toHalf(p2c);
        EngineRun const run = runPluginEngine(*creator("DisentangledAttention_TRT", "2"), f.build(),
            {{"c2c", type, nvinfer1::Dims{3, {groups, seq, seq}}}, {"c2p", type, nvinfer1::Dims{3, {groups, seq, 8}}},
                {"p2c", type, nvinfer1::Dims{3, {groups, seq, 8}}}},
            {half ? static_cast<void const*>(a.data()) : c2c.data(),
                half ? static_cast<void const*>(b.data()) : c2p.data(),
                half ? static_cast<void const*>(d.data()) : p2c.data()},
            {static_cast<size_t>(groups * seq * seq) * (half ? 2 : 4)});
        ASSERT_EQ(run.failure, "");
        std::vector<float> const actual
            = half ? fromHalf(elementsOf<uint16_t>(run.outputs[0])) : elementsOf<float>(run.outputs[0]);
        expectClose(actual, disentangledReference(groups, seq, 4, 0.25F, c2c, c2p, p2c), half ? 1e-3 : 1e-6);
    }
}

} // namespace
} // namespace kiln::plugins
