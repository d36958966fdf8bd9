// SPDX-License-Identifier: Apache-2.0
// CropAndResizeDynamic's CUDA kernel: one thread per output element, the arithmetic of crop_and_resize_math.h.
#include "crop_and_resize.h"

#include "elements.h"

namespace kiln::plugins
{

namespace
{

__global__ void cropAndResizeKernel(CropAndResizeParams params, float const* x, float const* rois, float* y)
{
    int64_t const count = params.outputCount();
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        y[i] = cropAndResizeValue(params, x, rois, i, DeviceLoad{});
    }
}

} // namespace

cudaError_t launchCropAndResize(
    CropAndResizeParams const& params, float const* x, float const* rois, float* y, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    int64_t const blocks = (params.outputCount() + kThreads - 1) / kThreads;
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    cropAndResizeKernel<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), kThreads, 0, stream>>>(
        params, x, rois, y);
    return cudaGetLastError();
}

} // namespace kiln::plugins
