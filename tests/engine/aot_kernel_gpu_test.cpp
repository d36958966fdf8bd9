// SPDX-License-Identifier: Apache-2.0
// An ahead-of-time (AOT) kernel on the GPU (label gpu; skipped without one): NVRTC compiles a small kernel to PTX, a
// V3 plugin with kiln's AOT build capability hands it to the builder, and the engine (built for the CUDA backend,
// serialized and loaded in a fresh runtime with no creator registered) launches it for several shapes; the result is
// compared with the same computation on the host.
#include "support/aot_plugin.h"
#include "support/api_test.h"
#include "support/gpu.h"
#include "support/nvrtc_ptx.h"

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

// y[i] = x[i] * 2 + (i % cols), for i < n; the block stages its x values through dynamic shared memory (cols * 4 bytes
// are given; the kernel uses at most blockDim.x of them), so that the shared memory launch value matters.
constexpr char const* kKernelSource = R"(
extern "C" __global__ void scale_rows(float const* x, int n, int cols, float* y)
{
    extern __shared__ float staged[];
    int const i = blockIdx.x * blockDim.x + threadIdx.x;
    int const slot = threadIdx.x % cols;
    if (i < n)
    {
        staged[slot] = x[i];
    }
    __syncthreads();
    if (i < n)
    {
        y[i] = x[i] * 2.0f + (float)(i % cols);
    }
}
)";

class AotKernelGpuTest : public ApiTest
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

TEST_F(AotKernelGpuTest, TheEngineLaunchesTheKernelAndMatchesTheHost)
{
    std::string const ptx = compilePtx(kKernelSource, "scale_rows.cu");
    ASSERT_FALSE(ptx.empty());
    constexpr int64_t kCols = 8;
    nvinfer1::ITensor* x = input("x", dims({-1, kCols}));
    AotScalePlugin plugin(AotBehaviour{.ptx = ptx});
    nvinfer1::ITensor* inputs[] = {x};
    auto* layer = mNetwork->addPluginV3(inputs, 1, nullptr, 0, plugin);
    ASSERT_NE(layer, nullptr) << mLogger.all();
    layer->getOutput(0)->setName("y");
    mNetwork->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{mBuilder->createBuilderConfig()};
    auto* profile = mBuilder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, dims({1, kCols}));
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, dims({64, kCols}));
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, dims({1000, kCols}));
    config->addOptimizationProfile(profile);
    std::unique_ptr<nvinfer1::IHostMemory> plan{mBuilder->buildSerializedNetwork(*mNetwork, *config)};
    ASSERT_NE(plan, nullptr) << mLogger.all();

    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(mLogger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    ASSERT_NE(engine, nullptr) << mLogger.all();
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    ASSERT_NE(context, nullptr) << mLogger.all();

    std::mt19937 random(7);
    std::uniform_real_distribution<float> values(-4.F, 4.F);
    for (int64_t rows : {int64_t{1}, int64_t{17}, int64_t{1000}})
    {
        int64_t const n = rows * kCols;
        std::vector<float> host(static_cast<std::size_t>(n));
        for (float& v : host)
        {
            v = values(random);
        }
        void* dx = nullptr;
        void* dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, host.size() * sizeof(float)), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, host.size() * sizeof(float)), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dx, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_TRUE(context->setInputShape("x", dims({rows, kCols})));
        ASSERT_TRUE(context->setTensorAddress("x", dx));
        ASSERT_TRUE(context->setTensorAddress("y", dy));
        cudaStream_t stream{};
        ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
        EXPECT_TRUE(context->enqueueV3(stream)) << mLogger.all();
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        cudaStreamDestroy(stream);
        std::vector<float> result(host.size());
        ASSERT_EQ(cudaMemcpy(result.data(), dy, result.size() * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
        for (int64_t i = 0; i < n; ++i)
        {
            float const expected = host[static_cast<std::size_t>(i)] * 2.F + static_cast<float>(i % kCols);
            ASSERT_FLOAT_EQ(result[static_cast<std::size_t>(i)], expected) << "rows " << rows << " element " << i;
        }
        cudaFree(dx);
        cudaFree(dy);
    }
}

} // namespace
} // namespace kiln::test
