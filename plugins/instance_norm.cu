// SPDX-License-Identifier: Apache-2.0
// The CUDA kernel of InstanceNormalization_TRT and GroupNormalizationPlugin: one block per segment
// (instance_norm_math.h); the block sums the segment, then its squared deviations, in shared memory, then writes it.
#include "elements.h"
#include "instance_norm.h"

#include <cuda_fp16.h>

namespace kiln::plugins
{

namespace
{

constexpr int kThreads = 256;

//! The sum of value over the block's threads, returned to every thread.
__device__ float blockSum(float value, float* shared)
{
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2)
    {
        if (static_cast<int>(threadIdx.x) < stride)
        {
            shared[threadIdx.x] += shared[threadIdx.x + stride];
        }
        __syncthreads();
    }
    float const total = shared[0];
    __syncthreads();
    return total;
}

template <typename T>
__global__ void normKernel(NormParams p, T const* x, float const* scale, float const* bias, T* y)
{
    __shared__ float shared[kThreads];
    DeviceLoad const load;
    int64_t const first = static_cast<int64_t>(blockIdx.x) * p.segmentSize;
    int64_t const last = first + p.segmentSize;
    float sum = 0.0F;
    for (int64_t i = first + threadIdx.x; i < last; i += kThreads)
    {
        sum += load(x[i]);
    }
    float const mean = blockSum(sum, shared) / static_cast<float>(p.segmentSize);
    float squares = 0.0F;
    for (int64_t i = first + threadIdx.x; i < last; i += kThreads)
    {
        float const d = load(x[i]) - mean;
        squares += d * d;
    }
    float const variance = blockSum(squares, shared) / static_cast<float>(p.segmentSize);
    float const invStd = inverseDeviation(variance, p.epsilon);
    for (int64_t i = first + threadIdx.x; i < last; i += kThreads)
    {
        int64_t const c = p.channelOf(i);
        storeValue(y + i, normalizedValue(load(x[i]), mean, invStd, scale[c], bias[c], p.relu, p.alpha));
    }
}

} // namespace

cudaError_t launchNorm(NormParams const& params, nvinfer1::DataType type, void const* x, float const* scale,
    float const* bias, void* y, cudaStream_t stream)
{
    if (params.count() == 0)
    {
        return cudaSuccess;
    }
    auto const blocks = static_cast<unsigned>(params.segments);
    if (type == nvinfer1::DataType::kHALF)
    {
        normKernel<__half><<<blocks, kThreads, 0, stream>>>(
            params, static_cast<__half const*>(x), scale, bias, static_cast<__half*>(y));
    }
    else
    {
        normKernel<float><<<blocks, kThreads, 0, stream>>>(
            params, static_cast<float const*>(x), scale, bias, static_cast<float*>(y));
    }
    return cudaGetLastError();
}

} // namespace kiln::plugins
