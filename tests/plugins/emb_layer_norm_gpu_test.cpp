// SPDX-License-Identifier: Apache-2.0
// CustomEmbLayerNormPluginDynamic's CUDA kernels against its host implementation on seeded random ids (some outside
// the tables), masks and tables, FP32 and FP16 output, the mask index included; and the plugin's own enqueue (which
// copies its tables to the device on its first run) against the host (label gpu; skips without a usable GPU).
#include "bert_gpu_support.h"
#include "emb_layer_norm.h"

namespace kiln::plugins
{
namespace
{

using bert_gpu::BertPluginsGpu;
using nvinfer1::DataType;

//! Random ids in [lo, hi], [S, B] of them.
std::vector<int32_t> randomIds(std::mt19937_64& rng, size_t n, int32_t lo, int32_t hi)
{
    std::uniform_int_distribution<int32_t> uniform(lo, hi);
    std::vector<int32_t> ids(n);
    for (int32_t& v : ids)
    {
        v = uniform(rng);
    }
    return ids;
}

TEST_F(BertPluginsGpu, EmbLayerNormMatchesTheHost)
{
    int trial = 0;
    for (int32_t ld : {1, 16, 768})
    {
        for (DataType type : {DataType::kFLOAT, DataType::kHALF})
        {
            SCOPED_TRACE(trial++);
            EmbLayerNormParams const p{
                static_cast<int64_t>(1 + mRng() % 20), static_cast<int64_t>(1 + mRng() % 4), ld, 30, 2, 16};
            auto const cells = static_cast<size_t>(p.seq * p.batch);
            auto const table = [&](int64_t rows) { return randomFloats(static_cast<size_t>(rows * ld), -1.0F, 1.0F); };
            std::vector<float> const word = table(p.wordRows);
            std::vector<float> const token = table(p.tokenRows);
            std::vector<float> const position = table(p.positionRows);
            std::vector<float> const gamma = randomFloats(static_cast<size_t>(ld), 0.5F, 1.5F);
            std::vector<float> const beta = randomFloats(static_cast<size_t>(ld), -0.5F, 0.5F);
            std::vector<int32_t> const ids = randomIds(mRng, cells, -1, 30);
            std::vector<int32_t> const segments = randomIds(mRng, cells, 0, 2);
            std::vector<int32_t> const mask = randomIds(mRng, cells, 0, 1);
            std::vector<uint8_t> expected(cells * static_cast<size_t>(ld) * sizeOf(type));
            std::vector<int32_t> expectedIndex(static_cast<size_t>(p.batch));
            runEmbLayerNormHost(p, type, ids.data(), segments.data(), mask.data(),
                {word.data(), token.data(), position.data(), gamma.data(), beta.data()}, expected.data(),
                expectedIndex.data());
            EmbLayerNormWeights const device{static_cast<float const*>(upload(word)),
                static_cast<float const*>(upload(token)), static_cast<float const*>(upload(position)),
                static_cast<float const*>(upload(gamma)), static_cast<float const*>(upload(beta))};
            void* out = scratch(expected.size());
            void* index = scratch(expectedIndex.size() * sizeof(int32_t));
            ASSERT_EQ(launchEmbLayerNorm(p, type, static_cast<int32_t const*>(upload(ids)),
                          static_cast<int32_t const*>(upload(segments)), static_cast<int32_t const*>(upload(mask)),
                          device, out, static_cast<int32_t*>(index), mStream),
                cudaSuccess);
            compare(type, out, expected, cells * static_cast<size_t>(ld));
            std::vector<uint8_t> const gotIndex = download(index, expectedIndex.size() * sizeof(int32_t));
            std::vector<int32_t> got(expectedIndex.size());
            std::memcpy(got.data(), gotIndex.data(), gotIndex.size());
            EXPECT_EQ(got, expectedIndex);
        }
    }
}

TEST_F(BertPluginsGpu, EmbLayerNormPluginEnqueueUploadsItsTables)
{
    int32_t const ld = 8;
    std::vector<float> const beta = randomFloats(ld, -0.5F, 0.5F);
    std::vector<float> const gamma = randomFloats(ld, 0.5F, 1.5F);
    std::vector<float> const word = randomFloats(10 * ld, -1.0F, 1.0F);
    std::vector<float> const token = randomFloats(2 * ld, -1.0F, 1.0F);
    std::vector<float> const position = randomFloats(6 * ld, -1.0F, 1.0F);
    int32_t const outputFp16 = 0;
    auto weights = [](char const* name, std::vector<float> const& v) {
        return nvinfer1::PluginField{
            name, v.data(), nvinfer1::PluginFieldType::kFLOAT32, static_cast<int32_t>(v.size())};
    };
    nvinfer1::PluginField const fields[]
        = {weights("bert_embeddings_layernorm_beta", beta), weights("bert_embeddings_layernorm_gamma", gamma),
            weights("bert_embeddings_word_embeddings", word), weights("bert_embeddings_token_type_embeddings", token),
            weights("bert_embeddings_position_embeddings", position),
            {"output_fp16", &outputFp16, nvinfer1::PluginFieldType::kINT32, 1}};
    nvinfer1::PluginFieldCollection const fc{6, fields};
    EmbLayerNormCreator creator;
    std::unique_ptr<nvinfer1::IPluginV3> plugin{creator.createPlugin("e", &fc, nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    ASSERT_NE(runtime, nullptr);
    int64_t const seq = 6;
    int64_t const batch = 2;
    std::vector<int32_t> const ids = randomIds(mRng, 12, 0, 9);
    std::vector<int32_t> const segments = randomIds(mRng, 12, 0, 1);
    std::vector<int32_t> const mask{1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    auto describe = [](nvinfer1::Dims const& dims, DataType type) {
        nvinfer1::PluginTensorDesc desc{};
        desc.dims = dims;
        desc.type = type;
        desc.format = nvinfer1::TensorFormat::kLINEAR;
        return desc;
    };
    nvinfer1::PluginTensorDesc const sb = describe(nvinfer1::Dims{2, {seq, batch}}, DataType::kINT32);
    nvinfer1::PluginTensorDesc const inputs[] = {sb, sb, sb};
    nvinfer1::PluginTensorDesc const outputs[] = {describe(nvinfer1::Dims{5, {seq, batch, ld, 1, 1}}, DataType::kFLOAT),
        describe(nvinfer1::Dims{2, {batch, 1}}, DataType::kINT32)};
    std::vector<uint8_t> expected(static_cast<size_t>(seq * batch * ld) * 4);
    std::vector<int32_t> expectedIndex(2);
    runEmbLayerNormHost({seq, batch, ld, 10, 2, 6}, DataType::kFLOAT, ids.data(), segments.data(), mask.data(),
        {word.data(), token.data(), position.data(), gamma.data(), beta.data()}, expected.data(), expectedIndex.data());
    EXPECT_EQ(expectedIndex, (std::vector<int32_t>{3, 2}));
    void const* data[] = {upload(ids), upload(segments), upload(mask)};
    void* out[] = {scratch(expected.size()), scratch(2 * sizeof(int32_t))};
    ASSERT_EQ(runtime->enqueue(inputs, outputs, data, out, nullptr, mStream), 0);
    compare(DataType::kFLOAT, out[0], expected, static_cast<size_t>(seq * batch * ld));
    std::vector<uint8_t> const gotIndex = download(out[1], 2 * sizeof(int32_t));
    std::vector<int32_t> got(2);
    std::memcpy(got.data(), gotIndex.data(), gotIndex.size());
    EXPECT_EQ(got, expectedIndex);
}

} // namespace
} // namespace kiln::plugins
