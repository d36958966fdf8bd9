// SPDX-License-Identifier: Apache-2.0
// CustomQKVToContextPluginDynamic's CUDA kernel: one thread per element of the context, the arithmetic of
// qkv_to_context_math.h (each thread recomputes the scores of its query and head: simple, not fast).
#include "elements.h"
#include "qkv_to_context.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

template <typename T>
__global__ void qkvToContextKernel(QkvToContextParams params, T const* qkv, int32_t const* mask, T* out)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < params.outputCount())
    {
        storeValue(out + index, qkvToContextValue(params, qkv, mask, index, DeviceLoad{}));
    }
}

} // namespace

cudaError_t launchQkvToContext(QkvToContextParams const& params, nvinfer1::DataType type, void const* qkv,
    int32_t const* mask, void* out, cudaStream_t stream)
{
    constexpr int kThreads = 128;
    auto const blocks = static_cast<unsigned>((params.outputCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        qkvToContextKernel<__half>
            <<<blocks, kThreads, 0, stream>>>(params, static_cast<__half const*>(qkv), mask, static_cast<__half*>(out));
    }
    else
    {
        qkvToContextKernel<float>
            <<<blocks, kThreads, 0, stream>>>(params, static_cast<float const*>(qkv), mask, static_cast<float*>(out));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
