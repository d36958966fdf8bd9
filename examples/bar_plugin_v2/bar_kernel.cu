// SPDX-License-Identifier: Apache-2.0
// BarPlugin's CUDA kernel: one thread per byte of Y0; the threads of the first bytes0 bytes also write Y1. Rows of the
// first dimension are contiguous in the linear format, so concatenating along it is a byte copy of each input in turn.
#include "bar_kernel.h"

namespace
{

__global__ void barKernel(unsigned char const* x0, int64_t bytes0, unsigned char const* x1, int64_t bytes1,
    unsigned char* y0, unsigned char* y1)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index < bytes0)
    {
        y0[index] = x0[index];
        y1[index] = x0[index];
    }
    else if (index < bytes0 + bytes1)
    {
        y0[index] = x1[index - bytes0];
    }
}

} // namespace

cudaError_t launchBar(
    void const* x0, int64_t bytes0, void const* x1, int64_t bytes1, void* y0, void* y1, cudaStream_t stream)
{
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((bytes0 + bytes1 + kThreads - 1) / kThreads);
    if (blocks > 0)
    {
        barKernel<<<blocks, kThreads, 0, stream>>>(static_cast<unsigned char const*>(x0), bytes0,
            static_cast<unsigned char const*>(x1), bytes1, static_cast<unsigned char*>(y0),
            static_cast<unsigned char*>(y1));
    }
    return cudaGetLastError();
}
