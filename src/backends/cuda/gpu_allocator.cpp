// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/gpu_allocator.h"

#include <cuda_runtime_api.h>

namespace kiln::cuda
{

void* DefaultGpuAllocator::allocateAsync(
    uint64_t size, uint64_t alignment, nvinfer1::AllocatorFlags /*flags*/, cudaStream_t stream) noexcept
{
    bool const powerOfTwo = alignment != 0 && (alignment & (alignment - 1)) == 0;
    if (size == 0 || !powerOfTwo || alignment > kMaxAlignment)
    {
        return nullptr;
    }
    void* memory = nullptr;
    if (cudaMallocAsync(&memory, static_cast<std::size_t>(size), stream) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError()); // Leave no sticky error for the caller's next CUDA call.
        return nullptr;
    }
    return memory;
}

bool DefaultGpuAllocator::deallocateAsync(void* memory, cudaStream_t stream) noexcept
{
    if (memory == nullptr)
    {
        return true;
    }
    if (cudaFreeAsync(memory, stream) != cudaSuccess)
    {
        static_cast<void>(cudaGetLastError());
        return false;
    }
    return true;
}

nvinfer1::IGpuAllocator& defaultGpuAllocator() noexcept
{
    static DefaultGpuAllocator allocator;
    return allocator;
}

} // namespace kiln::cuda
