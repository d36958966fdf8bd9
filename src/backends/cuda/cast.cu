// SPDX-License-Identifier: Apache-2.0
// CUDA ICastLayer (and identity between tensors of different types or scales): out = in converted, every pair
// backends/host/cast.h's castSupported allows, through elements.cuh's loads and stores (the host's rounding rules):
// a floating or scaled input is read as a float (dequantized), an integer or bool one as an int64_t, and stored rounded
// once to the output type (quantized with its scale). One kernel per supported (input, output) pair.
#include "backends/cuda/elements.cuh"
#include "backends/cuda/kernels.h"
#include "backends/cuda/pointwise.cuh"
#include "backends/host/cast.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace kiln::cuda
{
namespace
{

//! Whether the host casts From to To: kUINT8 pairs only with kFLOAT, kHALF and itself (host/cast.cpp's table).
template <DataType From, DataType To>
inline constexpr bool kCastable = (From != DataType::kUINT8 && To != DataType::kUINT8)
    || ((From == DataType::kUINT8 || From == DataType::kFLOAT || From == DataType::kHALF)
        && (To == DataType::kUINT8 || To == DataType::kFLOAT || To == DataType::kHALF));

template <DataType From, DataType To>
__global__ void castKernel(Storage<From> const* in, Storage<To>* out, int64_t count, float inScale, float outScale)
{
    for (int64_t i = pointwise::firstIndex(); i < count; i += pointwise::gridStride())
    {
        if constexpr (kIsFloating<From>)
        {
            storeFloat<To>(out, i, loadFloat<From>(in, i, inScale), outScale);
        }
        else
        {
            storeInteger<To>(out, i, loadInteger<From>(in, i), outScale);
        }
    }
}

//! Whether castWideKernel takes the pair: the float and 16-bit floating types, whose eight elements fill one or two
//! 16-byte vectors.
template <DataType From, DataType To>
inline constexpr bool kWideCast = (From == DataType::kFLOAT || From == DataType::kHALF || From == DataType::kBF16)
    && (To == DataType::kFLOAT || To == DataType::kHALF || To == DataType::kBF16);

//! castKernel eight elements at a time, in 16-byte loads and stores (count a multiple of eight, both tensors 16-byte
//! aligned): the scalar kernel's 2-byte accesses left a half-to-float cast of BERT-base's output ([32, 128, 768]) at
//! 8.3 us under ncu on an H200, against the about 5 us its 19 MB take at memory bandwidth.
template <DataType From, DataType To>
__global__ void castWideKernel(uint4 const* in, uint4* out, int64_t groups, float inScale, float outScale)
{
    constexpr int32_t kElements = 8;
    constexpr int32_t kIn = kElements * static_cast<int32_t>(sizeof(Storage<From>)) / 16; // uint4s a group reads
    constexpr int32_t kOut = kElements * static_cast<int32_t>(sizeof(Storage<To>)) / 16;  // and writes
    for (int64_t g = pointwise::firstIndex(); g < groups; g += pointwise::gridStride())
    {
        uint4 loaded[kIn];
#pragma unroll
        for (int32_t v = 0; v < kIn; ++v)
        {
            loaded[v] = in[g * kIn + v];
        }
        Storage<From> values[kElements];
        memcpy(values, loaded, sizeof(values));
        Storage<To> results[kElements];
#pragma unroll
        for (int32_t e = 0; e < kElements; ++e)
        {
            storeFloat<To>(results, e, loadFloat<From>(values, e, inScale), outScale);
        }
        uint4 stored[kOut];
        memcpy(stored, results, sizeof(results));
#pragma unroll
        for (int32_t v = 0; v < kOut; ++v)
        {
            out[g * kOut + v] = stored[v];
        }
    }
}

Error invalid(DataType from, DataType to, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
        std::string("cast from ") + dataTypeName(from) + " to " + dataTypeName(to) + ": " + what};
}

} // namespace

Status runCast(DeviceTensor const& in, DeviceTensor const& out, Launch const& launch)
{
    Expected<host::TensorDesc> const desc = host::inferCast(host::CastParams{out.type}, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (!host::sameShape(out.dims, in.dims))
    {
        return invalid(in.type, out.type,
            "the output has shape " + host::shapeString(out.dims) + " but the input has shape "
                + host::shapeString(in.dims));
    }
    if (std::optional<Error> const error = pointwise::checkTensors({{&in, "input"}, {&out, "output"}}))
    {
        return invalid(in.type, out.type, error->message);
    }
    int64_t const count = host::elementCount(in.dims);
    if (count == 0)
    {
        return host::Done{};
    }
    bool ran = false;
    dispatchType(in.type, [&]<DataType From>() {
        dispatchType(out.type, [&]<DataType To>() {
            auto const aligned = [](void const* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
            if constexpr (kWideCast<From, To>)
            {
                if (count % 8 == 0 && aligned(in.data) && aligned(out.data))
                {
                    int64_t const groups = count / 8;
                    castWideKernel<From, To><<<pointwise::grid(groups), pointwise::kBlock, 0, launch.stream>>>(
                        static_cast<uint4 const*>(in.data), static_cast<uint4*>(out.data), groups, in.scale, out.scale);
                    ran = true;
                    return;
                }
            }
            if constexpr (kCastable<From, To>)
            {
                castKernel<From, To><<<pointwise::grid(count), pointwise::kBlock, 0, launch.stream>>>(
                    static_cast<Storage<From> const*>(in.data), static_cast<Storage<To>*>(out.data), count, in.scale,
                    out.scale);
                ran = true;
            }
        });
    });
    if (!ran)
    {
        return pointwise::noKernel(std::string("cast from ") + dataTypeName(in.type) + " to " + dataTypeName(out.type));
    }
    return pointwise::launched("the cast kernel");
}

} // namespace kiln::cuda
