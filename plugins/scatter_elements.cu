// SPDX-License-Identifier: Apache-2.0
// ScatterElements's CUDA kernel: data is copied into Y, then one thread per update element combines it into its
// target with a compare-and-swap loop over the element's bits (scatter_elements_math.h's combination, in float for
// kHALF), so that every type and reduction goes through one path.
#include "scatter_elements.h"

#include <cuda_fp16.h>

#include <cstring>

namespace kiln::plugins
{

namespace
{

template <typename Bits, typename T, typename Combine>
__device__ void casLoop(T* address, Combine combine)
{
    static_assert(sizeof(Bits) == sizeof(T));
    auto* word = reinterpret_cast<Bits*>(address);
    Bits old = *word;
    Bits assumed{};
    do
    {
        assumed = old;
        T current;
        memcpy(&current, &assumed, sizeof(T));
        T const next = combine(current);
        Bits bits{};
        memcpy(&bits, &next, sizeof(T));
        old = atomicCAS(word, assumed, bits);
    } while (old != assumed);
}

template <typename T>
__device__ void combineAt(T* address, T update, ScatterReduction reduction)
{
    if (reduction == ScatterReduction::kNONE)
    {
        *address = update;
        return;
    }
    if constexpr (std::is_same_v<T, __half>)
    {
        casLoop<unsigned short>(address, [=](__half current) {
            return __float2half(scatterCombine(reduction, __half2float(current), __half2float(update)));
        });
    }
    else if constexpr (sizeof(T) == 4)
    {
        casLoop<unsigned int>(address, [=](T current) { return scatterCombine(reduction, current, update); });
    }
    else
    {
        casLoop<unsigned long long>(address, [=](T current) { return scatterCombine(reduction, current, update); });
    }
}

template <typename T>
__global__ void scatterKernel(ScatterParams p, int64_t const* indices, T const* updates, T* y)
{
    int64_t const e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (e < p.updatesCount())
    {
        int64_t const target = scatterTarget(p, e, indices[e]);
        if (target >= 0)
        {
            combineAt(y + target, updates[e], p.reduction);
        }
    }
}

template <typename T>
cudaError_t launch(
    ScatterParams const& p, void const* data, int64_t const* indices, void const* updates, void* y, cudaStream_t stream)
{
    cudaError_t const copied
        = cudaMemcpyAsync(y, data, static_cast<size_t>(p.dataCount()) * sizeof(T), cudaMemcpyDeviceToDevice, stream);
    if (copied != cudaSuccess)
    {
        return copied;
    }
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((p.updatesCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    scatterKernel<T><<<blocks, kThreads, 0, stream>>>(p, indices, static_cast<T const*>(updates), static_cast<T*>(y));
    return cudaGetLastError();
}

} // namespace

cudaError_t launchScatterElements(ScatterParams const& params, nvinfer1::DataType type, void const* data,
    int64_t const* indices, void const* updates, void* y, cudaStream_t stream)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF: return launch<__half>(params, data, indices, updates, y, stream);
    case nvinfer1::DataType::kINT32: return launch<int32_t>(params, data, indices, updates, y, stream);
    case nvinfer1::DataType::kINT64: return launch<int64_t>(params, data, indices, updates, y, stream);
    default: return launch<float>(params, data, indices, updates, y, stream);
    }
}

} // namespace kiln::plugins
