// SPDX-License-Identifier: Apache-2.0
// How kiln's CUDA kernels read and write elements: the device counterpart of the host backend's loadFloat,
// loadInteger, storeFloat and storeInteger (backends/host/tensor_view.h), with the same rounding and saturation rules,
// computing in float (and int64_t for integers) where the host computes in double.
//
//     template <DataType T>
//     __global__ void scale(Storage<T> const* in, Storage<T>* out, int64_t n, float inScale, float outScale) {
//         int64_t const i = ...;
//         storeFloat<T>(out, i, 2.F * loadFloat<T>(in, i, inScale), outScale);
//     }
//     dispatchType(tensor.type, [&]<DataType T>() { scale<T><<<...>>>(...); });   // from a .cu file
//
// kINT8 and kFP8 are scaled: a load dequantizes (q * scale), a store quantizes (round-half-even(x / scale) saturated to
// [-128, 127] for kINT8; E4M3 to nearest even saturated at ±448 for kFP8). Stores into kINT32, kINT64 and kUINT8
// truncate toward zero and saturate, NaN gives 0; kBOOL stores value != 0.
#pragma once

#include "NvInferRuntime.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <limits>

namespace kiln::cuda
{

using nvinfer1::DataType;

//! The storage type of a DataType's element.
template <DataType T>
struct StorageOf;
template <>
struct StorageOf<DataType::kFLOAT>
{
    using type = float;
};
template <>
struct StorageOf<DataType::kHALF>
{
    using type = __half;
};
template <>
struct StorageOf<DataType::kBF16>
{
    using type = __nv_bfloat16;
};
template <>
struct StorageOf<DataType::kINT8>
{
    using type = int8_t;
};
template <>
struct StorageOf<DataType::kFP8>
{
    using type = __nv_fp8_e4m3;
};
template <>
struct StorageOf<DataType::kINT32>
{
    using type = int32_t;
};
template <>
struct StorageOf<DataType::kINT64>
{
    using type = int64_t;
};
template <>
struct StorageOf<DataType::kUINT8>
{
    using type = uint8_t;
};
template <>
struct StorageOf<DataType::kBOOL>
{
    using type = bool;
};

template <DataType T>
using Storage = typename StorageOf<T>::type;

//! Whether T is computed as a floating value (float on the device): the floating and the scaled types.
template <DataType T>
inline constexpr bool kIsFloating = T == DataType::kFLOAT || T == DataType::kHALF || T == DataType::kBF16
    || T == DataType::kINT8 || T == DataType::kFP8;

//! Whether T is stored quantized by a scale.
template <DataType T>
inline constexpr bool kIsScaled = T == DataType::kINT8 || T == DataType::kFP8;

//! Element i of p as a float; dequantized with scale for kINT8 and kFP8.
template <DataType T>
__device__ __forceinline__ float loadFloat(Storage<T> const* p, int64_t i, float scale = 1.F)
{
    if constexpr (T == DataType::kFLOAT)
    {
        return p[i];
    }
    else if constexpr (T == DataType::kHALF)
    {
        return __half2float(p[i]);
    }
    else if constexpr (T == DataType::kBF16)
    {
        return __bfloat162float(p[i]);
    }
    else if constexpr (T == DataType::kINT8)
    {
        return static_cast<float>(p[i]) * scale;
    }
    else if constexpr (T == DataType::kFP8)
    {
        return static_cast<float>(p[i]) * scale;
    }
    else if constexpr (T == DataType::kBOOL)
    {
        return reinterpret_cast<uint8_t const*>(p)[i] != 0 ? 1.F : 0.F;
    }
    else
    {
        return static_cast<float>(p[i]);
    }
}

//! A float converted to an integer type's range: truncated toward zero, saturated, NaN gives 0.
template <typename I>
__device__ __forceinline__ I saturatingTruncate(float value)
{
    if (value != value)
    {
        return 0;
    }
    constexpr I lowest = std::numeric_limits<I>::min();
    constexpr I highest = std::numeric_limits<I>::max();
    double const v = static_cast<double>(value);
    if (v <= static_cast<double>(lowest))
    {
        return lowest;
    }
    // highest may round up to a power of two as a double: anything at or beyond it saturates.
    if (v >= static_cast<double>(highest))
    {
        return highest;
    }
    return static_cast<I>(v);
}

//! Writes value into element i of p, rounded once to T (quantized with scale for kINT8 and kFP8).
template <DataType T>
__device__ __forceinline__ void storeFloat(Storage<T>* p, int64_t i, float value, float scale = 1.F)
{
    if constexpr (T == DataType::kFLOAT)
    {
        p[i] = value;
    }
    else if constexpr (T == DataType::kHALF)
    {
        p[i] = __float2half_rn(value);
    }
    else if constexpr (T == DataType::kBF16)
    {
        p[i] = __float2bfloat16_rn(value);
    }
    else if constexpr (T == DataType::kINT8)
    {
        float const q = rintf(value / scale);
        p[i] = static_cast<int8_t>(q != q ? 0.F : fminf(fmaxf(q, -128.F), 127.F));
    }
    else if constexpr (T == DataType::kFP8)
    {
        p[i] = __nv_fp8_e4m3(value / scale); // Rounds to nearest even and saturates (__NV_SATFINITE).
    }
    else if constexpr (T == DataType::kBOOL)
    {
        reinterpret_cast<uint8_t*>(p)[i] = value != 0.F ? 1 : 0;
    }
    else
    {
        p[i] = saturatingTruncate<Storage<T>>(value);
    }
}

//! Element i of p as an int64_t: exact for the integer types and kBOOL; floating values truncated toward zero and
//! saturated (NaN gives 0).
template <DataType T>
__device__ __forceinline__ int64_t loadInteger(Storage<T> const* p, int64_t i, float scale = 1.F)
{
    if constexpr (kIsFloating<T>)
    {
        return saturatingTruncate<int64_t>(loadFloat<T>(p, i, scale));
    }
    else if constexpr (T == DataType::kBOOL)
    {
        return reinterpret_cast<uint8_t const*>(p)[i] != 0 ? 1 : 0;
    }
    else
    {
        return static_cast<int64_t>(p[i]);
    }
}

//! Writes value into element i of p: kINT64 as is, kINT32 and kUINT8 keep the low bits, kBOOL value != 0, floating
//! types rounded to T.
template <DataType T>
__device__ __forceinline__ void storeInteger(Storage<T>* p, int64_t i, int64_t value, float scale = 1.F)
{
    if constexpr (kIsFloating<T>)
    {
        storeFloat<T>(p, i, static_cast<float>(value), scale);
    }
    else if constexpr (T == DataType::kBOOL)
    {
        reinterpret_cast<uint8_t*>(p)[i] = value != 0 ? 1 : 0;
    }
    else
    {
        p[i] = static_cast<Storage<T>>(static_cast<uint64_t>(value));
    }
}

//! Calls body.template operator()<T>() for the runtime type; false for a type the CUDA kernels do not take (kINT4,
//! kFP4, kE8M0).
template <typename Body>
bool dispatchType(DataType type, Body&& body)
{
    switch (type)
    {
    case DataType::kFLOAT: body.template operator()<DataType::kFLOAT>(); return true;
    case DataType::kHALF: body.template operator()<DataType::kHALF>(); return true;
    case DataType::kBF16: body.template operator()<DataType::kBF16>(); return true;
    case DataType::kINT8: body.template operator()<DataType::kINT8>(); return true;
    case DataType::kFP8: body.template operator()<DataType::kFP8>(); return true;
    case DataType::kINT32: body.template operator()<DataType::kINT32>(); return true;
    case DataType::kINT64: body.template operator()<DataType::kINT64>(); return true;
    case DataType::kUINT8: body.template operator()<DataType::kUINT8>(); return true;
    case DataType::kBOOL: body.template operator()<DataType::kBOOL>(); return true;
    default: return false;
    }
}

} // namespace kiln::cuda
