// SPDX-License-Identifier: Apache-2.0
// kiln's default GPU allocator (backends/cuda/gpu_allocator.h) on a real device: stream-ordered allocations that hold
// data, its alignment, and the requests it refuses. Skipped without a usable GPU.
#include "backends/cuda/gpu_allocator.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace kiln::cuda
{
namespace
{

class GpuAllocator : public ::testing::Test
{
protected:
    void SetUp() override
    {
        int count = 0;
        cudaError_t const status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess || count == 0)
        {
            static_cast<void>(cudaGetLastError());
            GTEST_SKIP() << "no usable GPU: " << (status != cudaSuccess ? cudaGetErrorString(status) : "no devices");
        }
        ASSERT_EQ(cudaStreamCreate(&mStream), cudaSuccess);
    }
    void TearDown() override
    {
        if (mStream != nullptr)
        {
            EXPECT_EQ(cudaStreamDestroy(mStream), cudaSuccess);
        }
    }

    cudaStream_t mStream{};
};

TEST_F(GpuAllocator, HoldsDataInStreamOrder)
{
    auto& allocator = static_cast<nvinfer1::IGpuAsyncAllocator&>(defaultGpuAllocator());
    std::vector<int32_t> values(1 << 18);
    std::iota(values.begin(), values.end(), -7);
    std::size_t const bytes = values.size() * sizeof(int32_t);
    void* block = allocator.allocateAsync(bytes, kMaxAlignment, 0, mStream);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % kMaxAlignment, 0U);
    std::vector<int32_t> back(values.size(), 0);
    ASSERT_EQ(cudaMemcpyAsync(block, values.data(), bytes, cudaMemcpyHostToDevice, mStream), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(back.data(), block, bytes, cudaMemcpyDeviceToHost, mStream), cudaSuccess);
    EXPECT_TRUE(allocator.deallocateAsync(block, mStream));
    ASSERT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
    EXPECT_EQ(back, values);
}

TEST_F(GpuAllocator, RefusesWhatItCannotGive)
{
    auto& allocator = static_cast<nvinfer1::IGpuAsyncAllocator&>(defaultGpuAllocator());
    EXPECT_EQ(allocator.allocateAsync(0, 256, 0, mStream), nullptr); // nothing to give
    EXPECT_EQ(allocator.allocateAsync(64, 3, 0, mStream), nullptr);  // not a power of two
    EXPECT_EQ(allocator.allocateAsync(64, 0, 0, mStream), nullptr);
    EXPECT_EQ(allocator.allocateAsync(64, 4096, 0, mStream), nullptr);                // beyond what the pool aligns to
    EXPECT_EQ(allocator.allocateAsync(uint64_t{1} << 62U, 256, 0, mStream), nullptr); // more than any device has
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);                                       // and no error left behind
    EXPECT_TRUE(allocator.deallocateAsync(nullptr, mStream));
    EXPECT_EQ(cudaStreamSynchronize(mStream), cudaSuccess);
}

TEST_F(GpuAllocator, TheDeprecatedEntryPointsAreTheStreamOrderedOnesOnStreamZero)
{
    nvinfer1::IGpuAllocator& allocator = defaultGpuAllocator();
    void* block = allocator.allocate(1024, 256, 0);
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(allocator.deallocate(block));
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

} // namespace
} // namespace kiln::cuda
