// SPDX-License-Identifier: Apache-2.0
// PoolPlugin's CUDA kernel: one thread per output element; quantized inputs are dequantized with the input scale,
// pooled in float, and the result quantized with the output scale. __fmul_rn and __fdiv_rn keep each operation
// rounded on its own (no fused multiply-add), as the host code computes it.
#include "pool_kernel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace
{

__device__ float load(float const* x, int64_t i, float)
{
    return x[i];
}
__device__ float load(__half const* x, int64_t i, float)
{
    return __half2float(x[i]);
}
__device__ float load(__nv_bfloat16 const* x, int64_t i, float)
{
    return __bfloat162float(x[i]);
}
__device__ float load(__nv_fp8_e4m3 const* x, int64_t i, float scale)
{
    return __fmul_rn(static_cast<float>(x[i]), scale);
}
__device__ float load(int8_t const* x, int64_t i, float scale)
{
    return __fmul_rn(static_cast<float>(x[i]), scale);
}

__device__ void store(float* y, int64_t i, float value, float)
{
    y[i] = value;
}
__device__ void store(__half* y, int64_t i, float value, float)
{
    y[i] = __float2half_rn(value);
}
__device__ void store(__nv_bfloat16* y, int64_t i, float value, float)
{
    y[i] = __float2bfloat16_rn(value);
}
__device__ void store(__nv_fp8_e4m3* y, int64_t i, float value, float scale)
{
    y[i] = __nv_fp8_e4m3(__fdiv_rn(value, scale)); // saturates to +-448
}
__device__ void store(int8_t* y, int64_t i, float value, float scale)
{
    y[i] = static_cast<int8_t>(min(max(__float2int_rn(__fdiv_rn(value, scale)), -128), 127));
}

template <typename T>
__global__ void poolKernel(T const* x, T* y, PoolShape shape)
{
    int64_t const outHeight = shape.height / shape.windowHeight;
    int64_t const outWidth = shape.width / shape.windowWidth;
    int64_t const index = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (index >= shape.planes * outHeight * outWidth)
    {
        return;
    }
    int64_t const q = index % outWidth;
    int64_t const p = index / outWidth % outHeight;
    int64_t const plane = index / (outWidth * outHeight);
    float result = shape.average ? 0.0F : -INFINITY;
    for (int64_t i = 0; i < shape.windowHeight; ++i)
    {
        for (int64_t j = 0; j < shape.windowWidth; ++j)
        {
            int64_t const row = p * shape.windowHeight + i;
            int64_t const column = q * shape.windowWidth + j;
            float const value = load(x, (plane * shape.height + row) * shape.width + column, shape.inScale);
            result = shape.average ? result + value : fmaxf(result, value);
        }
    }
    if (shape.average)
    {
        result = __fdiv_rn(result, static_cast<float>(shape.windowHeight * shape.windowWidth));
    }
    store(y, index, result, shape.outScale);
}

template <typename T>
cudaError_t launch(void const* x, void* y, PoolShape const& shape, cudaStream_t stream)
{
    int64_t const count = shape.planes * (shape.height / shape.windowHeight) * (shape.width / shape.windowWidth);
    constexpr int kThreads = 256;
    auto const blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
    if (blocks > 0)
    {
        poolKernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<T const*>(x), static_cast<T*>(y), shape);
    }
    return cudaGetLastError();
}

} // namespace

cudaError_t launchPool(void const* x, void* y, PoolElement type, PoolShape const& shape, cudaStream_t stream)
{
    switch (type)
    {
    case PoolElement::kFLOAT: return launch<float>(x, y, shape, stream);
    case PoolElement::kHALF: return launch<__half>(x, y, shape, stream);
    case PoolElement::kBF16: return launch<__nv_bfloat16>(x, y, shape, stream);
    case PoolElement::kFP8: return launch<__nv_fp8_e4m3>(x, y, shape, stream);
    case PoolElement::kINT8: return launch<int8_t>(x, y, shape, stream);
    }
    return cudaErrorInvalidValue;
}
