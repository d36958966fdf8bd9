// SPDX-License-Identifier: Apache-2.0
// ResizeNearest_TRT's CUDA kernel: one thread per output element, the arithmetic of resize_nearest_math.h.
#include "resize_nearest.h"

namespace kiln::plugins
{

namespace
{

__global__ void resizeNearestKernel(ResizeNearestParams params, float const* x, float* y)
{
    int64_t const count = params.outputCount();
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        y[i] = x[resizeNearestInputIndex(params, i)];
    }
}

} // namespace

cudaError_t launchResizeNearest(ResizeNearestParams const& params, float const* x, float* y, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    int64_t const blocks = (params.outputCount() + kThreads - 1) / kThreads;
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    resizeNearestKernel<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), kThreads, 0, stream>>>(params, x, y);
    return cudaGetLastError();
}

} // namespace kiln::plugins
