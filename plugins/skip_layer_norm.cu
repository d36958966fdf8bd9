// SPDX-License-Identifier: Apache-2.0
// CustomSkipLayerNormPluginDynamic's CUDA kernel: one thread per row of ld elements, the arithmetic of
// skip_layer_norm_math.h.
#include "bert_common.h"
#include "elements.h"
#include "skip_layer_norm.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

struct DeviceStore
{
    __device__ void operator()(float* out, float v) const noexcept { storeValue(out, v); }
    __device__ void operator()(__half* out, float v) const noexcept { storeValue(out, v); }
};

template <typename T>
__global__ void skipLayerNormKernel(SkipLayerNormParams params, T const* input, T const* skip, float const* gamma,
    float const* beta, float const* bias, T* out)
{
    int64_t const row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row < params.rows)
    {
        skipLayerNormRow(
            params, input, skip, gamma, beta, bias, out, row, kBertLayerNormEpsilon, DeviceLoad{}, DeviceStore{});
    }
}

} // namespace

cudaError_t launchSkipLayerNorm(SkipLayerNormParams const& params, nvinfer1::DataType type, void const* input,
    void const* skip, float const* gamma, float const* beta, float const* bias, void* out, cudaStream_t stream)
{
    constexpr int kThreads = 128;
    auto const blocks = static_cast<unsigned>((params.rows + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        skipLayerNormKernel<__half><<<blocks, kThreads, 0, stream>>>(params, static_cast<__half const*>(input),
            static_cast<__half const*>(skip), gamma, beta, bias, static_cast<__half*>(out));
    }
    else
    {
        skipLayerNormKernel<float><<<blocks, kThreads, 0, stream>>>(params, static_cast<float const*>(input),
            static_cast<float const*>(skip), gamma, beta, bias, static_cast<float*>(out));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
