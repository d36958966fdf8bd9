// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of IPoolingLayer, with the semantics of the host reference (backends/host/pooling.h): kMAX, kAVERAGE
// and kMAX_AVERAGE_BLEND over 2-D and 3-D windows with stride and explicit padding, computed in float and stored
// rounded once. One thread per output element walks the part of its window inside the input; a 2-D window is a 3-D
// one of depth 1. Padding is explicit (the dispatch has resolved paddingMode, which is ignored here as on the host).
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/pooling.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace kiln::cuda
{

namespace
{

constexpr int64_t kMaxBlocks = 65535;
constexpr uint32_t kThreads = 256;

//! The pooling of planes independent [depth, height, width] volumes; 2-D windows have depth 1.
struct PoolShape
{
    int64_t planes{};
    int64_t in[3]{1, 1, 1};
    int64_t out[3]{1, 1, 1};
    int64_t size[3]{1, 1, 1};
    int64_t stride[3]{1, 1, 1};
    int64_t pre[3]{};
    int64_t post[3]{};
};

//! What the result weighs: maximum and average weights (kMAX: 1, 0; kAVERAGE: 0, 1; blend: 1 - f, f).
struct PoolMix
{
    bool usesMax{};
    bool usesAverage{};
    float blend{};
    bool excludePadding{};
};

template <DataType T>
inline constexpr bool kPools
    = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16 || T == DataType::kINT8;

//! value limited to [lo, hi] (by value: std::clamp's references would put the temporaries in local memory).
__device__ __forceinline__ int64_t limit(int64_t value, int64_t lo, int64_t hi)
{
    return value < lo ? lo : (value > hi ? hi : value);
}

template <DataType T>
__global__ void pool(
    Storage<T> const* in, Storage<T>* out, PoolShape const s, PoolMix const mix, float inScale, float outScale)
{
    int64_t const outVolume = s.out[0] * s.out[1] * s.out[2];
    int64_t const inVolume = s.in[0] * s.in[1] * s.in[2];
    int64_t const total = s.planes * outVolume;
    for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < total; o += int64_t{gridDim.x} * blockDim.x)
    {
        // The window's first position on each axis, the part inside the input [lo, hi), and the count of its positions
        // inside the padded input (those below in + post; none is below -pre).
        int64_t lo[3];
        int64_t hi[3];
        int64_t inside = 1;
        int64_t insidePadded = 1;
        int64_t rest = o;
#pragma unroll
        for (int32_t a = 2; a >= 0; --a)
        {
            int64_t const first = rest % s.out[a] * s.stride[a] - s.pre[a];
            rest /= s.out[a];
            lo[a] = first < 0 ? 0 : first;
            hi[a] = first + s.size[a] < s.in[a] ? first + s.size[a] : s.in[a];
            inside *= hi[a] > lo[a] ? hi[a] - lo[a] : 0;
            insidePadded *= limit(s.in[a] + s.post[a] - first, 0, s.size[a]);
        }
        Storage<T> const* plane = in + rest * inVolume;
        float maximum = -INFINITY;
        bool allNan = true;
        float sum = 0.F;
        for (int64_t z = lo[0]; z < hi[0]; ++z)
        {
            for (int64_t y = lo[1]; y < hi[1]; ++y)
            {
                int64_t const row = (z * s.in[1] + y) * s.in[2];
                for (int64_t x = lo[2]; x < hi[2]; ++x)
                {
                    float const value = loadFloat<T>(plane, row + x, inScale);
                    sum += value;
                    if (value == value)
                    {
                        allNan = false;
                        maximum = value > maximum ? value : maximum;
                    }
                }
            }
        }
        float const average = sum / static_cast<float>(mix.excludePadding ? inside : insidePadded);
        float const best = allNan ? NAN : maximum;
        float result = average;
        if (mix.usesMax)
        {
            result = mix.usesAverage ? (1.F - mix.blend) * best + mix.blend * average : best;
        }
        storeFloat<T>(out, o, result, outScale);
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pooling: " + message};
}

} // namespace

Status runPooling(PoolingParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferPooling(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = host::outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = host::checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    Expected<host::Window> const window
        = host::makeWindow("pooling", params.windowSize, params.stride, Dims{}, params.prePadding, params.postPadding);
    if (!window)
    {
        return window.error(); // inferPooling has made the same window: not reached.
    }
    host::Window const& w = window.value();
    PoolShape shape;
    shape.planes = 1;
    int32_t const first = in.dims.nbDims - w.nbSpatial;
    for (int32_t i = 0; i < first; ++i)
    {
        shape.planes *= in.dims.d[i];
    }
    for (int32_t i = 0; i < w.nbSpatial; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        int32_t const at = 3 - w.nbSpatial + i;
        shape.in[at] = in.dims.d[first + i];
        shape.out[at] = out.dims.d[first + i];
        shape.size[at] = w.size[a];
        shape.stride[at] = w.stride[a];
        shape.pre[at] = w.pre[a];
        shape.post[at] = w.post[a];
    }
    int64_t const total = host::elementCount(out.dims);
    if (total == 0)
    {
        return host::Done{};
    }
    host::PoolingTypeInfo const& info = *host::findPoolingType(params.type);
    PoolMix const mix{info.usesMax, info.usesAverage, params.blendFactor, params.averageCountExcludesPadding};
    int64_t const blocks = std::min(kMaxBlocks, (total + kThreads - 1) / kThreads);
    dispatchType(in.type, [&]<DataType T>() {
        if constexpr (kPools<T>)
        {
            pool<T>
                <<<static_cast<uint32_t>(blocks), kThreads, 0, launch.stream>>>(static_cast<Storage<T> const*>(in.data),
                    static_cast<Storage<T>*>(out.data), shape, mix, in.scale, out.scale);
        }
    });
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the pooling kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
