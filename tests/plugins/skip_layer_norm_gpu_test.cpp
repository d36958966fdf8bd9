// SPDX-License-Identifier: Apache-2.0
// CustomSkipLayerNormPluginDynamic's CUDA kernel against its host implementation on seeded random shapes and values,
// FP32 and FP16, with and without bias; and the plugin's own enqueue (which copies its weights to the device on its
// first run) against the host (label gpu; skips without a usable GPU).
#include "bert_gpu_support.h"
#include "skip_layer_norm.h"

namespace kiln::plugins
{
namespace
{

using bert_gpu::BertPluginsGpu;
using nvinfer1::DataType;

TEST_F(BertPluginsGpu, SkipLayerNormMatchesTheHost)
{
    int trial = 0;
    for (int32_t ld : {1, 7, 64, 768})
    {
        for (bool withBias : {false, true})
        {
            for (DataType type : {DataType::kFLOAT, DataType::kHALF})
            {
                SCOPED_TRACE(trial++);
                SkipLayerNormParams const p{static_cast<int64_t>(1 + mRng() % 40), ld};
                auto const n = static_cast<size_t>(p.rows * ld);
                auto const input = random(type, n, -3.0F, 3.0F);
                auto const skip = random(type, n, -1.0F, 1.0F);
                auto const gamma = randomFloats(static_cast<size_t>(ld), 0.5F, 1.5F);
                auto const beta = randomFloats(static_cast<size_t>(ld), -0.5F, 0.5F);
                auto const bias = randomFloats(static_cast<size_t>(ld), -1.0F, 1.0F);
                std::vector<uint8_t> expected(n * sizeOf(type));
                runSkipLayerNormHost(p, type, input.data(), skip.data(), gamma.data(), beta.data(),
                    withBias ? bias.data() : nullptr, expected.data());
                void* out = scratch(expected.size());
                ASSERT_EQ(launchSkipLayerNorm(p, type, upload(input), upload(skip),
                              static_cast<float const*>(upload(gamma)), static_cast<float const*>(upload(beta)),
                              withBias ? static_cast<float const*>(upload(bias)) : nullptr, out, mStream),
                    cudaSuccess);
                compare(type, out, expected, n);
            }
        }
    }
}

TEST_F(BertPluginsGpu, SkipLayerNormPluginEnqueueUploadsItsWeights)
{
    for (DataType type : {DataType::kFLOAT, DataType::kHALF})
    {
        int32_t typeId = type == DataType::kHALF ? 1 : 0;
        int32_t ld = 32;
        auto const gamma = randomFloats(32, 0.5F, 1.5F);
        auto const beta = randomFloats(32, -0.5F, 0.5F);
        auto const bias = randomFloats(32, -1.0F, 1.0F);
        nvinfer1::PluginField const fields[] = {{"type_id", &typeId, nvinfer1::PluginFieldType::kINT32, 1},
            {"ld", &ld, nvinfer1::PluginFieldType::kINT32, 1},
            {"beta", beta.data(), nvinfer1::PluginFieldType::kFLOAT32, 32},
            {"gamma", gamma.data(), nvinfer1::PluginFieldType::kFLOAT32, 32},
            {"bias", bias.data(), nvinfer1::PluginFieldType::kFLOAT32, 32}};
        nvinfer1::PluginFieldCollection const fc{5, fields};
        SkipLayerNormCreator creator;
        std::unique_ptr<nvinfer1::IPluginV3> plugin{creator.createPlugin("s", &fc, nvinfer1::TensorRTPhase::kRUNTIME)};
        ASSERT_NE(plugin, nullptr);
        auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
            plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
        ASSERT_NE(runtime, nullptr);
        nvinfer1::PluginTensorDesc desc{};
        desc.dims = nvinfer1::Dims{5, {5, 3, 32, 1, 1}};
        desc.type = type;
        desc.format = nvinfer1::TensorFormat::kLINEAR;
        nvinfer1::PluginTensorDesc const inputs[] = {desc, desc};
        size_t const n = 5 * 3 * 32;
        auto const input = random(type, n, -2.0F, 2.0F);
        auto const skip = random(type, n, -2.0F, 2.0F);
        std::vector<uint8_t> expected(n * sizeOf(type));
        runSkipLayerNormHost(
            {15, 32}, type, input.data(), skip.data(), gamma.data(), beta.data(), bias.data(), expected.data());
        void const* data[] = {upload(input), upload(skip)};
        void* out[] = {scratch(expected.size())};
        for (int run = 0; run < 2; ++run) // the second run reuses the device weights
        {
            ASSERT_EQ(runtime->enqueue(inputs, &desc, data, out, nullptr, mStream), 0);
            compare(type, out[0], expected, n);
        }
    }
}

} // namespace
} // namespace kiln::plugins
