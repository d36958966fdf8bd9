// SPDX-License-Identifier: Apache-2.0
// ResizeNearest_TRT's CUDA kernel against its host implementation, bit for bit (label gpu; skips without a usable
// GPU), for integer, fractional and shrinking scales.
#include "resize_nearest.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kiln::plugins
{
namespace
{

TEST(ResizeNearestGpu, MatchesTheHost)
{
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
    {
        static_cast<void>(cudaGetLastError());
        GTEST_SKIP() << "no usable GPU";
    }
    std::mt19937_64 rng(20261130);
    std::uniform_real_distribution<float> values(-1.0F, 1.0F);
    for (float scale : {2.0F, 1.7F, 0.3F})
    {
        SCOPED_TRACE(scale);
        ResizeNearestParams p;
        p.scale = scale;
        p.planes = 12;
        p.height = 37;
        p.width = 41;
        p.outHeight = resizeNearestExtent(p.height, scale);
        p.outWidth = resizeNearestExtent(p.width, scale);
        std::vector<float> x(static_cast<size_t>(p.planes * p.height * p.width));
        for (float& v : x)
        {
            v = values(rng);
        }
        std::vector<float> host(static_cast<size_t>(p.outputCount()));
        runResizeNearestHost(p, x.data(), host.data());
        void* dx = nullptr;
        void* dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, x.size() * 4), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, host.size() * 4), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(launchResizeNearest(p, static_cast<float const*>(dx), static_cast<float*>(dy), nullptr), cudaSuccess);
        std::vector<float> device(host.size());
        ASSERT_EQ(cudaMemcpy(device.data(), dy, device.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(device, host);
        EXPECT_EQ(cudaFree(dx), cudaSuccess);
        EXPECT_EQ(cudaFree(dy), cudaSuccess);
    }
}

} // namespace
} // namespace kiln::plugins
