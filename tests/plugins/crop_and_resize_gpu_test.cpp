// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic's CUDA kernel against its host implementation, bit for bit (label gpu; skips without a usable
// GPU), on seeded random feature maps and boxes, several crop sizes.
#include "crop_and_resize.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace kiln::plugins
{
namespace
{

TEST(CropAndResizeGpu, MatchesTheHost)
{
    int count = 0;
    cudaError_t const status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0)
    {
        static_cast<void>(cudaGetLastError());
        GTEST_SKIP() << "no usable GPU";
    }
    std::mt19937_64 rng(20261130);
    std::uniform_real_distribution<float> values(-2.0F, 2.0F);
    std::uniform_real_distribution<float> corners(-0.3F, 1.3F);
    for (auto const& [cropH, cropW] : {std::pair{7, 7}, std::pair{1, 3}, std::pair{14, 1}})
    {
        SCOPED_TRACE(std::to_string(cropH) + "x" + std::to_string(cropW));
        CropAndResizeParams p;
        p.cropHeight = cropH;
        p.cropWidth = cropW;
        p.batch = 3;
        p.channels = 16;
        p.height = 33;
        p.width = 29;
        p.boxes = 10;
        std::vector<float> x(static_cast<size_t>(p.batch * p.channels * p.height * p.width));
        std::vector<float> rois(static_cast<size_t>(p.batch * p.boxes * 4));
        for (float& v : x)
        {
            v = values(rng);
        }
        for (float& v : rois)
        {
            v = corners(rng);
        }
        std::vector<float> host(static_cast<size_t>(p.outputCount()));
        runCropAndResizeHost(p, x.data(), rois.data(), host.data());
        void* dx = nullptr;
        void* dr = nullptr;
        void* dy = nullptr;
        ASSERT_EQ(cudaMalloc(&dx, x.size() * 4), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dr, rois.size() * 4), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&dy, host.size() * 4), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(dr, rois.data(), rois.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(launchCropAndResize(p, static_cast<float const*>(dx), static_cast<float const*>(dr),
                      static_cast<float*>(dy), nullptr),
            cudaSuccess);
        std::vector<float> device(host.size());
        ASSERT_EQ(cudaMemcpy(device.data(), dy, device.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
        EXPECT_EQ(device, host);
        EXPECT_EQ(cudaFree(dx), cudaSuccess);
        EXPECT_EQ(cudaFree(dr), cudaSuccess);
        EXPECT_EQ(cudaFree(dy), cudaSuccess);
    }
}

} // namespace
} // namespace kiln::plugins
