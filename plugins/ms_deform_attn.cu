// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT's CUDA kernel: one thread per output element, the arithmetic of
// ms_deform_attn_math.h.
#include "elements.h"
#include "ms_deform_attn.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

template <typename T>
__global__ void msDeformAttnKernel(MsDeformAttnParams p, T const* value, int32_t const* shapes, int32_t const* starts,
    T const* locations, T const* weights, T* y)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < p.outputCount())
    {
        storeValue(y + index, msDeformAttnValue(p, value, shapes, starts, locations, weights, index, DeviceLoad{}));
    }
}

} // namespace

cudaError_t launchMsDeformAttn(MsDeformAttnParams const& params, nvinfer1::DataType type, void const* value,
    int32_t const* shapes, int32_t const* starts, void const* locations, void const* weights, void* y,
    cudaStream_t stream)
{
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((params.outputCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        msDeformAttnKernel<__half><<<blocks, kThreads, 0, stream>>>(params, static_cast<__half const*>(value), shapes,
            starts, static_cast<__half const*>(locations), static_cast<__half const*>(weights),
            static_cast<__half*>(y));
    }
    else
    {
        msDeformAttnKernel<float><<<blocks, kThreads, 0, stream>>>(params, static_cast<float const*>(value), shapes,
            starts, static_cast<float const*>(locations), static_cast<float const*>(weights), static_cast<float*>(y));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
