// SPDX-License-Identifier: Apache-2.0
// A plugin library written for TensorRT alone (third_party/third_party_plugins.cu: its own shared object,
// TensorRT-style assertions on the capability type, a cuBLAS handle and a shared resource made in attachToContext, a V2
// plugin that needs the cuBLAS handle its legacy attachToContext receives), loaded as such libraries are (dlopen, as
// trtexec's
// --staticPlugins and Python's ctypes do, its REGISTER_TENSORRT_PLUGIN registering the creators) and taken through
// build, save, load and enqueue on the CUDA backend, the outputs checked against a host computation. Skipped without a
// usable GPU (label gpu).
#include "support/api_test.h"
#include "support/gpu.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

//! Device memory for count floats, freed with the object.
class DeviceFloats
{
public:
    explicit DeviceFloats(std::size_t count)
        : mCount(count)
    {
        if (cudaMalloc(reinterpret_cast<void**>(&mData), count * sizeof(float)) != cudaSuccess)
        {
            mData = nullptr;
        }
    }
    ~DeviceFloats() { cudaFree(mData); }
    DeviceFloats(DeviceFloats const&) = delete;
    DeviceFloats& operator=(DeviceFloats const&) = delete;
    float* data() const noexcept { return mData; }
    void upload(std::vector<float> const& values) const
    {
        ASSERT_EQ(cudaMemcpy(mData, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    }
    std::vector<float> download() const
    {
        std::vector<float> values(mCount);
        EXPECT_EQ(cudaMemcpy(values.data(), mData, mCount * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        return values;
    }

private:
    float* mData{};
    std::size_t mCount;
};

std::vector<float> randomValues(std::size_t count, uint32_t seed)
{
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    std::vector<float> values(count);
    for (float& value : values)
    {
        value = uniform(generator);
    }
    return values;
}

class ThirdPartyPluginGpuTest : public ApiTest
{
protected:
    void SetUp() override
    {
        if (!gpuUsable())
        {
            GTEST_SKIP() << "no usable GPU";
        }
        ApiTest::SetUp();
        // Kept loaded for the process: its static registrations do not deregister at unload (as with TensorRT).
        static void* const library = dlopen(KILN_THIRD_PARTY_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(library, nullptr) << dlerror();
    }

    //! Builds the network with config, writes the plan to a file, reads it back and deserializes it in a runtime of
    //! its own, as an application that saves its engine does.
    std::unique_ptr<nvinfer1::ICudaEngine> buildSaveLoad(nvinfer1::IBuilderConfig& config, char const* file)
    {
        std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, config)};
        if (plan == nullptr)
        {
            return nullptr;
        }
        std::string const path = ::testing::TempDir() + file;
        {
            std::ofstream out(path, std::ios::binary);
            out.write(static_cast<char const*>(plan->data()), static_cast<std::streamsize>(plan->size()));
        }
        std::ifstream in(path, std::ios::binary);
        std::vector<char> const bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        std::remove(path.c_str());
        mRuntime.reset(nvinfer1::createInferRuntime(mLogger));
        return std::unique_ptr<nvinfer1::ICudaEngine>{mRuntime->deserializeCudaEngine(bytes.data(), bytes.size())};
    }

    std::unique_ptr<nvinfer1::IRuntime> mRuntime;
};

TEST_F(ThirdPartyPluginGpuTest, AV3PluginWithACublasHandleAndASharedResourceRunsUnchanged)
{
    constexpr int32_t kK = 8;
    constexpr int32_t kM = 5;
    auto* creator
        = static_cast<nvinfer1::IPluginCreatorV3One*>(getPluginRegistry()->getCreator("ThirdPartyLinear", "1", ""));
    ASSERT_NE(creator, nullptr) << mLogger.all();
    std::vector<float> const weight = randomValues(kK * kM, 7);
    int32_t const k = kK;
    int32_t const m = kM;
    nvinfer1::PluginField fields[3]
        = {nvinfer1::PluginField("weight", weight.data(), nvinfer1::PluginFieldType::kFLOAT32, kK * kM),
            nvinfer1::PluginField("k", &k, nvinfer1::PluginFieldType::kINT32, 1),
            nvinfer1::PluginField("m", &m, nvinfer1::PluginFieldType::kINT32, 1)};
    nvinfer1::PluginFieldCollection const collection{3, fields};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator->createPlugin("linear", &collection, nvinfer1::TensorRTPhase::kBUILD)};
    ASSERT_NE(plugin, nullptr);

    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{2, {-1, kK}});
    auto* layer = mNetwork->addPluginV3(&x, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, Dims{2, {1, kK}});
    profile->setDimensions("x", OptProfileSelector::kOPT, Dims{2, {4, kK}});
    profile->setDimensions("x", OptProfileSelector::kMAX, Dims{2, {16, kK}});
    config->addOptimizationProfile(profile);

    // Two tactics: the builder times the plugin, on a clone attached as a context's would be.
    auto engine = buildSaveLoad(*config, "third_party_linear.plan");
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    cudaStream_t stream{};
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (int64_t const rows : {5, 16, 1})
    {
        std::vector<float> const input = randomValues(static_cast<std::size_t>(rows * kK), static_cast<uint32_t>(rows));
        DeviceFloats deviceX(input.size());
        DeviceFloats deviceY(static_cast<std::size_t>(rows * kM));
        deviceX.upload(input);
        ASSERT_TRUE(context->setInputShape("x", Dims{2, {rows, kK}}));
        ASSERT_TRUE(context->setTensorAddress("x", deviceX.data()));
        ASSERT_TRUE(context->setTensorAddress("y", deviceY.data()));
        ASSERT_TRUE(context->enqueueV3(stream)) << mLogger.all();
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        std::vector<float> const y = deviceY.download();
        for (int64_t r = 0; r < rows; ++r)
        {
            for (int32_t j = 0; j < kM; ++j)
            {
                double expected = 0.25 * j; // the shared bias
                for (int32_t i = 0; i < kK; ++i)
                {
                    expected += static_cast<double>(input[static_cast<std::size_t>(r * kK + i)])
                        * weight[static_cast<std::size_t>(i * kM + j)];
                }
                EXPECT_NEAR(y[static_cast<std::size_t>(r * kM + j)], expected, 1e-4) << "row " << r << " col " << j;
            }
        }
    }
    context.reset();
    engine.reset();
    cudaStreamDestroy(stream);
    expectNoError();
}

TEST_F(ThirdPartyPluginGpuTest, AV2PluginGetsTheCublasHandleTheTacticSourcesAllow)
{
    auto* creator
        = static_cast<nvinfer1::IPluginCreator*>(getPluginRegistry()->getCreator("ThirdPartyScaleV2", "1", ""));
    ASSERT_NE(creator, nullptr) << mLogger.all();
    float const scale = 1.5F;
    nvinfer1::PluginField field("scale", &scale, nvinfer1::PluginFieldType::kFLOAT32, 1);
    nvinfer1::PluginFieldCollection const collection{1, &field};
    nvinfer1::IPluginV2* plugin = creator->createPlugin("scale", &collection);
    ASSERT_NE(plugin, nullptr);
    nvinfer1::ITensor* x = mNetwork->addInput("x", DataType::kFLOAT, Dims{4, {-1, 3, 4, 4}});
    auto* layer = mNetwork->addPluginV2(&x, 1, *plugin);
    plugin->destroy();
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    auto const makeConfig = [&](bool cublas) {
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, Dims{4, {1, 3, 4, 4}});
        profile->setDimensions("x", OptProfileSelector::kOPT, Dims{4, {2, 3, 4, 4}});
        profile->setDimensions("x", OptProfileSelector::kMAX, Dims{4, {4, 3, 4, 4}});
        config->addOptimizationProfile(profile);
        if (cublas)
        {
            config->setTacticSources(
                config->getTacticSources() | (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kCUBLAS)));
        }
        return config;
    };

    // Without TacticSource::kCUBLAS (TensorRT 10's default) the handle is null; the plugin's timing run fails, naming
    // the plugin.
    auto withoutCublas = makeConfig(false);
    std::unique_ptr<nvinfer1::IHostMemory> refused{mBuilder->buildSerializedNetwork(*mNetwork, *withoutCublas)};
    EXPECT_EQ(refused, nullptr);
    expectError({"ThirdPartyScaleV2", "enqueue() returned status 1"});

    auto withCublas = makeConfig(true);
    auto engine = buildSaveLoad(*withCublas, "third_party_scale.plan");
    ASSERT_NE(engine, nullptr) << mLogger.all();
    EXPECT_NE(engine->getTacticSources() & (1U << static_cast<uint32_t>(nvinfer1::TacticSource::kCUBLAS)), 0U);
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::vector<float> const input = randomValues(3 * 3 * 4 * 4, 11);
    DeviceFloats deviceX(input.size());
    DeviceFloats deviceY(input.size());
    deviceX.upload(input);
    ASSERT_TRUE(context->setInputShape("x", Dims{4, {3, 3, 4, 4}}));
    ASSERT_TRUE(context->setTensorAddress("x", deviceX.data()));
    ASSERT_TRUE(context->setTensorAddress("y", deviceY.data()));
    ASSERT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<float> const y = deviceY.download();
    for (std::size_t i = 0; i < y.size(); ++i)
    {
        EXPECT_FLOAT_EQ(y[i], 1.5F * input[i]) << i;
    }
    context.reset();
    engine.reset();
    expectNoError();
}

} // namespace
} // namespace kiln::test
