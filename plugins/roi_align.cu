// SPDX-License-Identifier: Apache-2.0
// ROIAlign_TRT's CUDA kernel: one thread per output element, the arithmetic of roi_align_math.h.
#include "roi_align.h"

#include "elements.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

template <typename T>
__global__ void roiAlignKernel(RoiAlignParams params, T const* x, T const* rois, int32_t const* batchIndices, T* y)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < params.outputCount())
    {
        storeValue(y + index, roiAlignValue(params, x, rois, batchIndices, index, DeviceLoad{}));
    }
}

} // namespace

cudaError_t launchRoiAlign(RoiAlignParams const& params, nvinfer1::DataType type, void const* x, void const* rois,
    int32_t const* batchIndices, void* y, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((params.outputCount() + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (type == nvinfer1::DataType::kHALF)
    {
        roiAlignKernel<__half><<<blocks, kThreads, 0, stream>>>(params, static_cast<__half const*>(x),
            static_cast<__half const*>(rois), batchIndices, static_cast<__half*>(y));
    }
    else
    {
        roiAlignKernel<float><<<blocks, kThreads, 0, stream>>>(params, static_cast<float const*>(x),
            static_cast<float const*>(rois), batchIndices, static_cast<float*>(y));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
