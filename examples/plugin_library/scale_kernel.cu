// SPDX-License-Identifier: Apache-2.0
// ScalePlugin's CUDA kernel: one thread per element. __fmul_rn rounds the product as the host code does, so both
// backends give the same bytes.
#include "scale_kernel.h"

namespace
{

__global__ void scaleKernel(float const* x, float* y, int64_t count, float scale)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < count)
    {
        y[index] = __fmul_rn(scale, x[index]);
    }
}

} // namespace

cudaError_t launchScale(float const* x, float* y, int64_t count, float scale, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
    if (blocks > 0)
    {
        scaleKernel<<<blocks, kThreads, 0, stream>>>(x, y, count, scale);
    }
    return cudaGetLastError();
}
