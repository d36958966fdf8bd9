// SPDX-License-Identifier: Apache-2.0
// InstanceNormalization_TRT's CUDA kernel against its host implementation: random shapes (planes shorter and longer
// than a block), FP32 and FP16, with and without the leaky ReLU; and the plugins' enqueue (versions 3 and 1), whose
// scales and bias go through the workspace (label gpu; skips without a GPU).
#include "NvInferPlugin.h"
#include "gpu_compare.h"
#include "instance_norm.h"

#include <memory>

namespace kiln::plugins
{
namespace
{

using nvinfer1::DataType;

class InstanceNormGpu : public test::GpuCompare
{
};

TEST_F(InstanceNormGpu, MatchesTheHost)
{
    for (int trial = 0; trial < 16; ++trial)
    {
        SCOPED_TRACE(trial);
        DataType const type = trial % 2 == 0 ? DataType::kFLOAT : DataType::kHALF;
        NormParams p;
        int64_t const batch = 1 + static_cast<int64_t>(mRng() % 3);
        p.channels = 1 + static_cast<int64_t>(mRng() % 5);
        p.planeSize
            = trial % 4 == 3 ? 1000 + static_cast<int64_t>(mRng() % 3000) : 1 + static_cast<int64_t>(mRng() % 300);
        p.segments = batch * p.channels;
        p.segmentSize = p.planeSize;
        p.epsilon = 1e-5F;
        p.relu = trial % 3 == 0;
        p.alpha = 0.25F;
        size_t const n = static_cast<size_t>(p.count());
        std::vector<uint8_t> const x = random(type, n, -3.F, 5.F);
        std::vector<uint8_t> const scaleBytes = random(DataType::kFLOAT, static_cast<size_t>(p.channels), 0.5F, 2.F);
        std::vector<uint8_t> const biasBytes = random(DataType::kFLOAT, static_cast<size_t>(p.channels), -1.F, 1.F);
        std::vector<uint8_t> expected(n * elementSize(type));
        runNormHost(p, type, x.data(), reinterpret_cast<float const*>(scaleBytes.data()),
            reinterpret_cast<float const*>(biasBytes.data()), expected.data());
        void* y = upload(std::vector<uint8_t>(expected.size()));
        ASSERT_EQ(launchNorm(p, type, upload(x), static_cast<float const*>(upload(scaleBytes)),
                      static_cast<float const*>(upload(biasBytes)), y, mStream),
            cudaSuccess);
        compare(type, y, expected, n, 2e-4, 8e-3);
    }
}

// The plugins' own enqueue (version 3 and the legacy version 1): the scales and the bias go through the workspace
// getWorkspaceSize() asks for.
TEST_F(InstanceNormGpu, ThePluginsEnqueueThroughTheirWorkspace)
{
    ASSERT_TRUE(initLibNvInferPlugins(nullptr, ""));
    std::vector<float> scales{0.5F, 1.5F, -1.0F};
    std::vector<float> bias{0.25F, -0.5F, 1.0F};
    float const epsilon = 1e-4F;
    int32_t const relu = 1;
    float const alpha = 0.1F;
    nvinfer1::PluginField const fields[] = {{"epsilon", &epsilon, nvinfer1::PluginFieldType::kFLOAT32, 1},
        {"scales", scales.data(), nvinfer1::PluginFieldType::kFLOAT32, 3},
        {"bias", bias.data(), nvinfer1::PluginFieldType::kFLOAT32, 3},
        {"relu", &relu, nvinfer1::PluginFieldType::kINT32, 1},
        {"alpha", &alpha, nvinfer1::PluginFieldType::kFLOAT32, 1}};
    nvinfer1::PluginFieldCollection const fc{5, fields};
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = nvinfer1::Dims{4, {2, 3, 9, 11}};
    desc.type = DataType::kFLOAT;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    size_t const n = 2 * 3 * 99;
    std::vector<uint8_t> const x = random(DataType::kFLOAT, n, -2.F, 3.F);
    NormParams p;
    p.epsilon = epsilon;
    p.relu = true;
    p.alpha = alpha;
    p.channels = 3;
    p.planeSize = 99;
    p.segments = 6;
    p.segmentSize = 99;
    std::vector<uint8_t> expected(n * 4);
    runNormHost(p, DataType::kFLOAT, x.data(), scales.data(), bias.data(), expected.data());
    void const* inputs[] = {upload(x)};

    auto* v3 = static_cast<nvinfer1::IPluginCreatorV3One*>(
        getPluginRegistry()->getCreator("InstanceNormalization_TRT", "3", ""));
    ASSERT_NE(v3, nullptr);
    std::unique_ptr<nvinfer1::IPluginV3> plugin{v3->createPlugin("in", &fc, nvinfer1::TensorRTPhase::kRUNTIME)};
    ASSERT_NE(plugin, nullptr);
    auto* build = static_cast<nvinfer1::IPluginV3OneBuild*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD));
    auto* runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    ASSERT_NE(build, nullptr);
    ASSERT_NE(runtime, nullptr);
    nvinfer1::DynamicPluginTensorDesc dynamic{};
    dynamic.desc = desc;
    size_t const workspaceBytes = build->getWorkspaceSize(&dynamic, 1, &dynamic, 1);
    EXPECT_EQ(workspaceBytes, 2 * 3 * sizeof(float));
    void* outputs[] = {upload(std::vector<uint8_t>(n * 4))};
    ASSERT_EQ(
        runtime->enqueue(&desc, &desc, inputs, outputs, upload(std::vector<uint8_t>(workspaceBytes)), mStream), 0);
    compare(DataType::kFLOAT, outputs[0], expected, n, 2e-4);

    KILN_IGNORE_DEPRECATED_BEGIN
    auto* v1
        = static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("InstanceNormalization_TRT", "1", ""));
    ASSERT_NE(v1, nullptr);
    auto* legacy = static_cast<nvinfer1::IPluginV2DynamicExt*>(v1->createPlugin("in", &fc));
    ASSERT_NE(legacy, nullptr);
    size_t const legacyBytes = legacy->getWorkspaceSize(&desc, 1, &desc, 1);
    EXPECT_EQ(legacyBytes, workspaceBytes);
    void* legacyOutputs[] = {upload(std::vector<uint8_t>(n * 4))};
    EXPECT_EQ(
        legacy->enqueue(&desc, &desc, inputs, legacyOutputs, upload(std::vector<uint8_t>(legacyBytes)), mStream), 0);
    compare(DataType::kFLOAT, legacyOutputs[0], expected, n, 2e-4);
    legacy->destroy();
    KILN_IGNORE_DEPRECATED_END
}

} // namespace
} // namespace kiln::plugins
