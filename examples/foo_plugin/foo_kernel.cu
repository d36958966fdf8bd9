// SPDX-License-Identifier: Apache-2.0
// FooPlugin's two custom tactics as CUDA kernels, and the device copy of the shared weights W. __fmul_rn and
// __fadd_rn keep the multiply and the add rounded separately, as the host code computes them.
#include "foo_kernel.h"

namespace
{

constexpr int kThreads = 256;

__device__ float foo(float x, float w, float scale)
{
    return __fadd_rn(__fmul_rn(scale, x), w);
}

//! Tactic 1: one thread per element.
__global__ void fooElementwise(float const* x, float* y, float const* w, float scale, int64_t count, int64_t width)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < count)
    {
        y[index] = foo(x[index], w[index % width], scale);
    }
}

//! Tactic 2: one thread per four consecutive elements.
__global__ void fooFourPerThread(float const* x, float* y, float const* w, float scale, int64_t count, int64_t width)
{
    int64_t const first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4;
    for (int64_t index = first; index < first + 4 && index < count; ++index)
    {
        y[index] = foo(x[index], w[index % width], scale);
    }
}

} // namespace

cudaError_t launchFoo(float const* x, float* y, float const* w, float scale, int64_t rows, int64_t width,
    int32_t tactic, cudaStream_t stream)
{
    int64_t const count = rows * width;
    int64_t const threads = tactic == 2 ? (count + 3) / 4 : count;
    auto const blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
    if (blocks == 0)
    {
        return cudaSuccess;
    }
    if (tactic == 2)
    {
        fooFourPerThread<<<blocks, kThreads, 0, stream>>>(x, y, w, scale, count, width);
    }
    else
    {
        fooElementwise<<<blocks, kThreads, 0, stream>>>(x, y, w, scale, count, width);
    }
    return cudaGetLastError();
}

float* uploadWeights(float const* host, int64_t count)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    {
        cudaGetLastError(); // clear the error: no GPU is not a failure here
        return nullptr;
    }
    float* device = nullptr;
    size_t const bytes = static_cast<size_t>(count) * sizeof(float);
    if (cudaMalloc(&device, bytes) != cudaSuccess)
    {
        return nullptr;
    }
    if (cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    {
        cudaFree(device);
        return nullptr;
    }
    return device;
}

bool freeWeights(float* device)
{
    return cudaFree(device) == cudaSuccess;
}
