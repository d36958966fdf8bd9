// SPDX-License-Identifier: Apache-2.0
// DisentangledAttention_TRT's CUDA kernel: one thread per output element, the arithmetic of
// disentangled_attention_math.h.
#include "disentangled_attention.h"
#include "elements.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

template <typename T>
__global__ void disentangledAttentionKernel(
    DisentangledAttentionParams params, T const* c2c, T const* c2p, T const* p2c, T* out)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < params.outputCount())
    {
        storeValue(out + index, disentangledAttentionValue(params, c2c, c2p, p2c, index, DeviceLoad{}));
    }
}

} // namespace

cudaError_t launchDisentangledAttention(DisentangledAttentionParams const& params, nvinfer1::DataType type,
    void const* c2c, void const* c2p, void const* p2c, void* out, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((params.outputCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        disentangledAttentionKernel<__half><<<blocks, kThreads, 0, stream>>>(params, static_cast<__half const*>(c2c),
            static_cast<__half const*>(c2p), static_cast<__half const*>(p2c), static_cast<__half*>(out));
    }
    else
    {
        disentangledAttentionKernel<float><<<blocks, kThreads, 0, stream>>>(params, static_cast<float const*>(c2c),
            static_cast<float const*>(c2p), static_cast<float const*>(p2c), static_cast<float*>(out));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
