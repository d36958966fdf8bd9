// SPDX-License-Identifier: Apache-2.0
// PadPlugin's CUDA kernel: one thread per output element.
#include "pad_kernel.h"

namespace
{

__global__ void padKernel(float const* x, float* y, int64_t planes, int64_t height, int64_t width, int64_t side)
{
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index >= planes * side * side)
    {
        return;
    }
    int64_t const column = index % side;
    int64_t const row = index / side % side;
    int64_t const plane = index / (side * side);
    bool const inside = row < height && column < width;
    y[index] = inside ? x[(plane * height + row) * width + column] : 0.0F;
}

} // namespace

cudaError_t launchPad(
    float const* x, float* y, int64_t planes, int64_t height, int64_t width, int64_t side, cudaStream_t stream)
{
    int64_t const count = planes * side * side;
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
    if (blocks > 0)
    {
        padKernel<<<blocks, kThreads, 0, stream>>>(x, y, planes, height, width, side);
    }
    return cudaGetLastError();
}
