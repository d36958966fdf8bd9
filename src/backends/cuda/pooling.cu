// SPDX-License-Identifier: Apache-2.0
// CUDA kernel of IPoolingLayer, with the semantics of the host reference (backends/host/pooling.h): kMAX, kAVERAGE
// and kMAX_AVERAGE_BLEND over 2-D and 3-D windows with stride and explicit padding, computed in float and stored
// rounded once. One thread per output element walks the part of its window inside the input; a 2-D window is a 3-D
// one of depth 1. Padding is explicit (the dispatch has resolved paddingMode, which is ignored here as on the host).
// Channels-last tensors (kHWC8, kDHWC8; kHALF and kBF16, a channels-last chain's poolings: builder/layout.h) are
// pooled one 16-byte vector of 8 channels per thread: each window position is one load, the 8 channels pooled side by
// side, and the padded channels (zero) pool to zero, as the host's reformat writes them.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/host/pooling.h"
#include "backends/host/reformat.h"

#include <algorithm>
#include <cstdint>
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

//! The window of one output position: the part inside the input on each axis [lo, hi), the count of its positions
//! inside the input and inside the padded input (those below in + post; none is below -pre).
struct WindowAt
{
    int64_t lo[3];
    int64_t hi[3];
    int64_t inside;
    int64_t insidePadded;
};

//! The window of output position index (an index over planes, then the output's depth, height and width); rest
//! receives the plane.
__device__ __forceinline__ WindowAt windowAt(PoolShape const& s, int64_t index, int64_t& rest)
{
    WindowAt w{};
    w.inside = 1;
    w.insidePadded = 1;
    rest = index;
#pragma unroll
    for (int32_t a = 2; a >= 0; --a)
    {
        int64_t const first = rest % s.out[a] * s.stride[a] - s.pre[a];
        rest /= s.out[a];
        w.lo[a] = first < 0 ? 0 : first;
        w.hi[a] = first + s.size[a] < s.in[a] ? first + s.size[a] : s.in[a];
        w.inside *= w.hi[a] > w.lo[a] ? w.hi[a] - w.lo[a] : 0;
        w.insidePadded *= limit(s.in[a] + s.post[a] - first, 0, s.size[a]);
    }
    return w;
}

//! The running maximum (NaN ignored unless every value is NaN) and sum of a window's values.
struct Accumulator
{
    float maximum{-INFINITY};
    bool allNan{true};
    float sum{};

    __device__ __forceinline__ void add(float value)
    {
        sum += value;
        if (value == value)
        {
            allNan = false;
            maximum = value > maximum ? value : maximum;
        }
    }

    //! The result mix asks of window w.
    __device__ __forceinline__ float result(PoolMix const& mix, WindowAt const& w) const
    {
        float const average = sum / static_cast<float>(mix.excludePadding ? w.inside : w.insidePadded);
        float const best = allNan ? NAN : maximum;
        if (!mix.usesMax)
        {
            return average;
        }
        return mix.usesAverage ? (1.F - mix.blend) * best + mix.blend * average : best;
    }
};

//! Planar (kLINEAR) pooling: one thread per output element.
template <DataType T>
__global__ void pool(
    Storage<T> const* in, Storage<T>* out, PoolShape const s, PoolMix const mix, float inScale, float outScale)
{
    int64_t const outVolume = s.out[0] * s.out[1] * s.out[2];
    int64_t const inVolume = s.in[0] * s.in[1] * s.in[2];
    int64_t const total = s.planes * outVolume;
    for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < total; o += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t plane = 0;
        WindowAt const w = windowAt(s, o, plane);
        Storage<T> const* values = in + plane * inVolume;
        Accumulator acc;
        for (int64_t z = w.lo[0]; z < w.hi[0]; ++z)
        {
            for (int64_t y = w.lo[1]; y < w.hi[1]; ++y)
            {
                int64_t const row = (z * s.in[1] + y) * s.in[2];
                for (int64_t x = w.lo[2]; x < w.hi[2]; ++x)
                {
                    acc.add(loadFloat<T>(values, row + x, inScale));
                }
            }
        }
        storeFloat<T>(out, o, acc.result(mix, w), outScale);
    }
}

//! Scalars of a 16-bit type in one 16-byte vector: the channels a thread of the channels-last kernel pools.
constexpr int32_t kLanes = 8;

//! Channels-last (kHWC8, kDHWC8) pooling of a 16-bit type: [batch][spatial...][vectors][8], the channels padded to
//! whole vectors. One thread per output position and vector of 8 channels, each window element one 16-byte load.
template <DataType T>
__global__ void poolChannelsLast(uint4 const* in, uint4* out, PoolShape const s, int64_t vectors, PoolMix const mix)
{
    static_assert(sizeof(Storage<T>) * kLanes == sizeof(uint4), "8 lanes of a 16-bit type fill one vector");
    int64_t const outVolume = s.out[0] * s.out[1] * s.out[2];
    int64_t const inVolume = s.in[0] * s.in[1] * s.in[2];
    int64_t const total = s.planes * outVolume * vectors;
    for (int64_t o = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; o < total; o += int64_t{gridDim.x} * blockDim.x)
    {
        int64_t const vector = o % vectors;
        int64_t batch = 0;
        WindowAt const w = windowAt(s, o / vectors, batch);
        uint4 const* values = in + batch * inVolume * vectors + vector;
        Accumulator acc[kLanes];
        for (int64_t z = w.lo[0]; z < w.hi[0]; ++z)
        {
            for (int64_t y = w.lo[1]; y < w.hi[1]; ++y)
            {
                int64_t const row = (z * s.in[1] + y) * s.in[2];
                for (int64_t x = w.lo[2]; x < w.hi[2]; ++x)
                {
                    uint4 const word = values[(row + x) * vectors];
                    auto const* lanes = reinterpret_cast<Storage<T> const*>(&word);
#pragma unroll
                    for (int32_t l = 0; l < kLanes; ++l)
                    {
                        acc[l].add(loadFloat<T>(lanes, l));
                    }
                }
            }
        }
        uint4 word;
        auto* const lanes = reinterpret_cast<Storage<T>*>(&word);
#pragma unroll
        for (int32_t l = 0; l < kLanes; ++l)
        {
            storeFloat<T>(lanes, l, acc[l].result(mix, w));
        }
        out[o] = word;
    }
}

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "pooling: " + message};
}

//! The 16-byte vectors of channels one position of a channels-last pooling holds (its padded channels / 8), or the
//! error that refuses the layout: a format other than the rank's channels-last one (kHWC8 for a 2-D window, kDHWC8
//! for a 3-D one) with the channels just before the window's axes, a type other than kHALF and kBF16, or tensors not
//! aligned to 16 bytes.
Expected<int64_t> channelVectors(
    nvinfer1::TensorFormat format, DeviceTensor const& in, DeviceTensor const& out, int32_t nbSpatial)
{
    using nvinfer1::TensorFormat;
    TensorFormat const natural = nbSpatial == 3 ? TensorFormat::kDHWC8 : TensorFormat::kHWC8;
    if (format != natural || in.dims.nbDims != nbSpatial + 2)
    {
        return invalid(std::string("a ") + std::to_string(nbSpatial) + "-D window over a tensor of rank "
            + std::to_string(in.dims.nbDims) + " runs in kLINEAR or, at rank " + std::to_string(nbSpatial + 2) + ", "
            + host::formatName(natural) + "; not in " + host::formatName(format));
    }
    if (in.type != DataType::kHALF && in.type != DataType::kBF16)
    {
        return invalid(
            std::string(host::formatName(format)) + " holds kHALF and kBF16 tensors, not " + dataTypeName(in.type));
    }
    for (void const* data : {in.data, out.data})
    {
        if (reinterpret_cast<uintptr_t>(data) % sizeof(uint4) != 0)
        {
            return invalid(std::string("a ") + host::formatName(format)
                + " pooling reads and writes 16-byte vectors of channels; its tensors must be aligned to 16 bytes");
        }
    }
    Expected<host::FormatLayout> const layout = host::formatLayout(format, in.type, in.dims);
    if (!layout)
    {
        return layout.error();
    }
    return layout.value().paddedChannels / kLanes;
}

} // namespace

Status runPooling(PoolingParams const& params, DeviceTensor const& in, DeviceTensor const& out, Launch const& launch,
    nvinfer1::TensorFormat format)
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
    if (format != nvinfer1::TensorFormat::kLINEAR)
    {
        Expected<int64_t> const vectors = channelVectors(format, in, out, w.nbSpatial);
        if (!vectors)
        {
            return vectors.error();
        }
        // The planes are the batch; the channels are pooled along the vectors.
        shape.planes /= in.dims.d[first - 1];
        int64_t const threads = total / in.dims.d[first - 1] * vectors.value();
        int64_t const blocks = std::min(kMaxBlocks, (threads + kThreads - 1) / kThreads);
        dispatchType(in.type, [&]<DataType T>() {
            if constexpr (T == DataType::kHALF || T == DataType::kBF16)
            {
                poolChannelsLast<T><<<static_cast<uint32_t>(blocks), kThreads, 0, launch.stream>>>(
                    static_cast<uint4 const*>(in.data), static_cast<uint4*>(out.data), shape, vectors.value(), mix);
            }
        });
    }
    else
    {
        int64_t const blocks = std::min(kMaxBlocks, (total + kThreads - 1) / kThreads);
        dispatchType(in.type, [&]<DataType T>() {
            if constexpr (kPools<T>)
            {
                pool<T><<<static_cast<uint32_t>(blocks), kThreads, 0, launch.stream>>>(
                    static_cast<Storage<T> const*>(in.data), static_cast<Storage<T>*>(out.data), shape, mix, in.scale,
                    out.scale);
            }
        });
    }
    cudaError_t const status = cudaGetLastError();
    if (status != cudaSuccess)
    {
        return cudaFailure(status, "launching the pooling kernel");
    }
    return host::Done{};
}

} // namespace kiln::cuda
