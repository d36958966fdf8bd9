// SPDX-License-Identifier: Apache-2.0
// DummyPlugin's CUDA kernel: one thread per element. The float vector travels in the kernel's parameters, so the
// plugin needs no device memory of its own. __fmul_rn and __fadd_rn round each step as the host code does.
#include "dummy_kernel.h"

namespace
{

constexpr int64_t kMaxWidth = 64;

struct Vector
{
    float values[kMaxWidth];
};

__global__ void dummyKernel(float const* x, float* y, Vector v, int64_t count, int64_t width, float s, float a, float b)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < count)
    {
        float const inner = __fadd_rn(__fmul_rn(x[index], v.values[index % width]), s);
        y[index] = __fadd_rn(__fmul_rn(b, inner), a);
    }
}

} // namespace

cudaError_t launchDummy(float const* x, float* y, float const* v, int64_t rows, int64_t width, int32_t s, int32_t a,
    float b, cudaStream_t stream)
{
    if (width > kMaxWidth)
    {
        return cudaErrorInvalidValue;
    }
    Vector vector{};
    for (int64_t i = 0; i < width; ++i)
    {
        vector.values[i] = v[i];
    }
    int64_t const count = rows * width;
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
    if (blocks > 0)
    {
        dummyKernel<<<blocks, kThreads, 0, stream>>>(
            x, y, vector, count, width, static_cast<float>(s), static_cast<float>(a), b);
    }
    return cudaGetLastError();
}
