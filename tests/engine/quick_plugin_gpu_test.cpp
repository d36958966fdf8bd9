// SPDX-License-Identifier: Apache-2.0
// An AOT Quick plugin (IPluginV3QuickAOTBuild, include/kiln/plugin_quick.h) on the GPU (label gpu; skipped without
// one): NVRTC compiles add_k(x, n, y) to PTX, the plugin hands it with its symbolic launch parameters to the builder
// through getLaunchParams() and getKernel(), and the engine (CUDA backend, serialized and loaded in a fresh runtime
// with no creator registered) launches it for several shapes; the result is compared with the sum on the host.
#include "support/api_test.h"
#include "support/gpu.h"
#include "support/nvrtc_ptx.h"
#include "support/quick_plugins.h"

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

constexpr char const* kAddSource = R"(
extern "C" __global__ void add_k(float const* x, int n, float* y)
{
    int const i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
    {
        y[i] = x[i] + 2.5f;
    }
}
)";

class QuickPluginGpuTest : public ApiTest
{
protected:
    void SetUp() override
    {
        if (!gpuUsable())
        {
            GTEST_SKIP() << "no usable GPU";
        }
        setenv("KILN_BACKEND", "cuda", 1);
        ApiTest::SetUp();
    }
};

TEST_F(QuickPluginGpuTest, TheEngineLaunchesTheQuickAotKernelAndMatchesTheHost)
{
    std::string const ptx = compilePtx(kAddSource, "add_k.cu");
    ASSERT_FALSE(ptx.empty());
    auto log = std::make_shared<QuickLog>();
    nvinfer1::ITensor* x = input("x", dims({-1, 16}));
    std::vector<uint8_t> plan;
    {
        QuickAotPlugin plugin(ptx, log);
        nvinfer1::ITensor* inputs[] = {x};
        auto* layer = mNetwork->addPluginV3(inputs, 1, nullptr, 0, plugin);
        ASSERT_NE(layer, nullptr) << mLogger.all();
        layer->getOutput(0)->setName("y");
        mNetwork->markOutput(*layer->getOutput(0));
        std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
        auto* profile = mBuilder->createOptimizationProfile();
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, dims({1, 16}));
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, dims({64, 16}));
        profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, dims({500, 16}));
        config->addOptimizationProfile(profile);
        std::unique_ptr<nvinfer1::IHostMemory> built{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
        ASSERT_NE(built, nullptr) << mLogger.all();
        auto const* bytes = static_cast<uint8_t const*>(built->data());
        plan.assign(bytes, bytes + built->size());
    }
    EXPECT_EQ(log->runtimeAsks, 0);

    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();
    std::mt19937 random(11);
    std::uniform_real_distribution<float> values(-4.F, 4.F);
    for (int64_t rows : {int64_t{1}, int64_t{33}, int64_t{500}})
    {
        std::vector<float> host(static_cast<std::size_t>(rows * 16));
        for (float& v : host)
        {
            v = values(random);
        }
        std::size_t const bytes = host.size() * sizeof(float);
        void* dx = nullptr;
        void* dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, bytes), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, bytes), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dx, host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_TRUE(context->setInputShape("x", dims({rows, 16})));
        ASSERT_TRUE(context->setTensorAddress("x", dx));
        ASSERT_TRUE(context->setTensorAddress("y", dy));
        EXPECT_TRUE(context->enqueueV3(nullptr)) << mLogger.all();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        std::vector<float> result(host.size());
        ASSERT_EQ(cudaMemcpy(result.data(), dy, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        for (std::size_t i = 0; i < host.size(); ++i)
        {
            ASSERT_FLOAT_EQ(result[i], host[i] + 2.5F) << "rows " << rows << " element " << i;
        }
        cudaFree(dx);
        cudaFree(dy);
    }
}

} // namespace
} // namespace kiln::test
