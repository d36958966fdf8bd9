// SPDX-License-Identifier: Apache-2.0
// kiln's default GPU allocator, for engines and contexts whose application sets none (IRuntime::setGpuAllocator,
// IExecutionContext::setTemporaryStorageAllocator): stream-ordered, from the current device's default memory pool
// (cudaMallocAsync / cudaFreeAsync), so allocating and freeing never synchronise the host with the GPU. Built only
// with the CUDA toolkit (KILN_WITH_CUDA); the host backend needs no GPU memory.
//
//     nvinfer1::IGpuAllocator& allocator = defaultGpuAllocator();
//     void* block = allocator.allocateAsync(bytes, 256, 0, stream);   // nullptr when it cannot
//     allocator.deallocateAsync(block, stream);
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>

namespace kiln::cuda
{

//! The largest alignment allocateAsync() gives: what cudaMallocAsync guarantees.
inline constexpr uint64_t kMaxAlignment = 256;

//! Stream-ordered allocations from the current device's default memory pool. Thread-safe; stateless.
class DefaultGpuAllocator final : public nvinfer1::IGpuAsyncAllocator
{
public:
    //! size bytes usable on stream, aligned to alignment (a power of two up to kMaxAlignment); nullptr for size 0,
    //! for another alignment, or when the device has no memory for it.
    void* allocateAsync(
        uint64_t size, uint64_t alignment, nvinfer1::AllocatorFlags flags, cudaStream_t stream) noexcept override;

    //! Frees memory once the work queued on stream before this call is done; true on success (also for nullptr).
    bool deallocateAsync(void* memory, cudaStream_t stream) noexcept override;
};

//! The process's default allocator.
nvinfer1::IGpuAllocator& defaultGpuAllocator() noexcept;

} // namespace kiln::cuda
