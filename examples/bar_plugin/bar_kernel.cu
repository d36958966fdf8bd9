// SPDX-License-Identifier: Apache-2.0
// BarPlugin's CUDA kernels: mark the selected pixels (one thread each), compact their positions and count them (one
// thread: simple rather than fast), then gather (one thread per element of the upper-bound output; those past the
// count return).
#include "bar_kernel.h"

#include <cuda_fp16.h>

namespace
{

constexpr int64_t kChannels = 3;
constexpr int kThreads = 256;

__device__ float toFloat(float value)
{
    return value;
}
__device__ float toFloat(__half value)
{
    return __half2float(value);
}
template <typename T>
__device__ T fromFloat(float value);
template <>
__device__ float fromFloat<float>(float value)
{
    return value;
}
template <>
__device__ __half fromFloat<__half>(float value)
{
    return __float2half_rn(value);
}

template <typename T>
__global__ void markKernel(T const* x, int32_t* flags, int64_t planes, int64_t pixels)
{
    int64_t const pixel = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (pixel >= pixels)
    {
        return;
    }
    float sum = 0.0F;
    for (int64_t plane = 0; plane < planes; ++plane)
    {
        sum += toFloat(x[plane * pixels + pixel]);
    }
    flags[pixel] = sum > 0.0F ? 1 : 0;
}

//! Turns the flags into the list of selected pixels, in place (the k-th selected pixel is at or after index k).
__global__ void compactKernel(int32_t* positions, int32_t* count, int64_t pixels)
{
    int32_t selected = 0;
    for (int64_t pixel = 0; pixel < pixels; ++pixel)
    {
        if (positions[pixel] != 0)
        {
            positions[selected++] = static_cast<int32_t>(pixel);
        }
    }
    *count = selected;
}

template <typename T>
__global__ void gatherKernel(
    T const* x, T* y, int32_t const* positions, int32_t const* count, int64_t repeats, int64_t n, int64_t pixels)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    int64_t const k = *count;
    int64_t const j = index % pixels;
    int64_t const row = index / pixels; // (r * 3 + c) * n + i
    if (row >= repeats * kChannels * n || j >= k)
    {
        return;
    }
    int64_t const i = row % n;
    int64_t const c = row / n % kChannels;
    int64_t const r = row / (n * kChannels);
    float const value = static_cast<float>(r + 1) * toFloat(x[(i * kChannels + c) * pixels + positions[j]]);
    y[row * k + j] = fromFloat<T>(value);
}

template <typename T>
cudaError_t launch(void const* x, void* y, int32_t* count, int32_t* positions, int64_t n, int64_t pixels,
    int64_t repeats, cudaStream_t stream)
{
    auto const* in = static_cast<T const*>(x);
    auto const markBlocks = static_cast<unsigned>((pixels + kThreads - 1) / kThreads);
    markKernel<T><<<markBlocks, kThreads, 0, stream>>>(in, positions, n * kChannels, pixels);
    compactKernel<<<1, 1, 0, stream>>>(positions, count, pixels);
    int64_t const bound = repeats * kChannels * n * pixels;
    auto const gatherBlocks = static_cast<unsigned>((bound + kThreads - 1) / kThreads);
    if (gatherBlocks > 0)
    {
        gatherKernel<T>
            <<<gatherBlocks, kThreads, 0, stream>>>(in, static_cast<T*>(y), positions, count, repeats, n, pixels);
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t launchBar(void const* x, void* y, int32_t* count, int32_t* positions, bool half, int64_t n, int64_t h,
    int64_t w, int64_t repeats, cudaStream_t stream)
{
    if (h * w == 0)
    {
        return cudaMemsetAsync(count, 0, sizeof(int32_t), stream);
    }
    return half ? launch<__half>(x, y, count, positions, n, h * w, repeats, stream)
                : launch<float>(x, y, count, positions, n, h * w, repeats, stream);
}
