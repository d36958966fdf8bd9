// SPDX-License-Identifier: Apache-2.0
// CustomEmbLayerNormPluginDynamic's CUDA kernels: one thread per embedding row, one per batch for the mask index, the
// arithmetic of emb_layer_norm_math.h.
#include "bert_common.h"
#include "elements.h"
#include "emb_layer_norm.h"

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
__global__ void embLayerNormKernel(
    EmbLayerNormParams params, int32_t const* ids, int32_t const* segments, EmbLayerNormWeights weights, T* out)
{
    int64_t const row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row < params.seq * params.batch)
    {
        embLayerNormRow(params, ids, segments, weights, out, row, kBertLayerNormEpsilon, DeviceStore{});
    }
}

__global__ void embMaskIndexKernel(EmbLayerNormParams params, int32_t const* mask, int32_t* maskIndex)
{
    int64_t const b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b < params.batch)
    {
        maskIndex[b] = embMaskIndex(params, mask, b);
    }
}

} // namespace

cudaError_t launchEmbLayerNorm(EmbLayerNormParams const& params, nvinfer1::DataType type, int32_t const* ids,
    int32_t const* segments, int32_t const* mask, EmbLayerNormWeights const& weights, void* out, int32_t* maskIndex,
    cudaStream_t stream)
{
    constexpr int kThreads = 128;
    auto const rowBlocks = static_cast<unsigned>((params.seq * params.batch + kThreads - 1) / kThreads);
    if (rowBlocks != 0)
    {
        if (type == nvinfer1::DataType::kHALF)
        {
            embLayerNormKernel<__half>
                <<<rowBlocks, kThreads, 0, stream>>>(params, ids, segments, weights, static_cast<__half*>(out));
        }
        else
        {
            embLayerNormKernel<float>
                <<<rowBlocks, kThreads, 0, stream>>>(params, ids, segments, weights, static_cast<float*>(out));
        }
    }
    auto const batchBlocks = static_cast<unsigned>((params.batch + kThreads - 1) / kThreads);
    if (batchBlocks != 0)
    {
        embMaskIndexKernel<<<batchBlocks, kThreads, 0, stream>>>(params, mask, maskIndex);
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
