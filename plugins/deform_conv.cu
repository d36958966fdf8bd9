// SPDX-License-Identifier: Apache-2.0
// ModulatedDeformConv2d's CUDA kernel: one thread per output element, summing over its group's input channels and the
// kernel taps with bilinear sampling (deform_conv_math.h).
#include "deform_conv.h"

#include "elements.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

template <typename T>
__global__ void deformConvKernel(
    DeformConvParams params, T const* x, T const* offset, T const* mask, T const* weight, T const* bias, T* y)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < params.outputCount())
    {
        storeValue(y + index, deformConvValue(params, x, offset, mask, weight, bias, index, DeviceLoad{}));
    }
}

template <typename T>
void launch(DeformConvParams const& params, unsigned blocks, unsigned threads, void const* x, void const* offset,
    void const* mask, void const* weight, void const* bias, void* y, cudaStream_t stream)
{
    deformConvKernel<T><<<blocks, threads, 0, stream>>>(params, static_cast<T const*>(x), static_cast<T const*>(offset),
        static_cast<T const*>(mask), static_cast<T const*>(weight), static_cast<T const*>(bias), static_cast<T*>(y));
}

} // namespace

cudaError_t launchDeformConv(DeformConvParams const& params, nvinfer1::DataType type, void const* x, void const* offset,
    void const* mask, void const* weight, void const* bias, void* y, cudaStream_t stream)
{
    constexpr unsigned kThreads = 256;
    auto const blocks = static_cast<unsigned>((params.outputCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        launch<__half>(params, blocks, kThreads, x, offset, mask, weight, bias, y, stream);
    }
    else
    {
        launch<float>(params, blocks, kThreads, x, offset, mask, weight, bias, y, stream);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
