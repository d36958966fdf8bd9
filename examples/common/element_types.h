// SPDX-License-Identifier: Apache-2.0
// Host conversions between float and the narrow element types of TensorRT tensors, bit-exact with the CUDA
// intrinsics the examples' kernels use (__float2half_rn, __float2bfloat16_rn, __nv_fp8_e4m3 with saturation,
// __float2int_rn): round to nearest even, FP8 E4M3 saturating at +-448, INT8 clamped to [-128, 127].
//
//     uint16_t h = example::floatToHalf(0.1F);       // 0x2E66
//     float back = example::halfToFloat(h);          // 0.0999755859375
//     int8_t q = example::quantizeInt8(0.5F, 0.01F); // 50
//     float v = example::loadElement(buffer, nvinfer1::DataType::kINT8, i, scale); // buffer[i] * scale
#pragma once

#include "NvInferRuntime.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace example
{

//! The FP16 bits nearest to value (ties to even); out-of-range values become infinities.
inline uint16_t floatToHalf(float value)
{
    uint32_t const bits = std::bit_cast<uint32_t>(value);
    uint32_t const sign = (bits >> 16) & 0x8000U;
    uint32_t const magnitude = bits & 0x7FFFFFFFU;
    if (magnitude > 0x7F800000U)
    {
        return static_cast<uint16_t>(sign | 0x7E00U); // NaN
    }
    if (magnitude >= 0x477FF000U) // 65520 and above round to infinity
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (magnitude < 0x38800000U) // below 2^-14: a subnormal half, a multiple of 2^-24
    {
        auto const units = static_cast<uint32_t>(std::nearbyint(std::fabs(value) * 16777216.0F));
        return static_cast<uint16_t>(sign | units);
    }
    uint32_t const rounded = magnitude + 0xFFFU + ((magnitude >> 13) & 1U);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000U) >> 13));
}

//! The value of FP16 bits.
inline float halfToFloat(uint16_t half)
{
    uint32_t const sign = (half & 0x8000U) << 16;
    uint32_t const exponent = (half >> 10) & 0x1FU;
    uint32_t const mantissa = half & 0x3FFU;
    if (exponent == 0)
    {
        float const magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    uint32_t const biased = exponent == 31 ? 0xFFU : exponent + 112U;
    return std::bit_cast<float>(sign | (biased << 23) | (mantissa << 13));
}

//! The BF16 bits nearest to value (ties to even).
inline uint16_t floatToBf16(float value)
{
    uint32_t const bits = std::bit_cast<uint32_t>(value);
    if (std::isnan(value))
    {
        return static_cast<uint16_t>((bits >> 16) | 0x40U);
    }
    return static_cast<uint16_t>((bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16);
}

//! The value of BF16 bits.
inline float bf16ToFloat(uint16_t bf16)
{
    return std::bit_cast<float>(static_cast<uint32_t>(bf16) << 16);
}

//! The FP8 E4M3 bits nearest to value (ties to even), saturated to +-448.
inline uint8_t floatToFp8(float value)
{
    uint32_t const sign = std::signbit(value) ? 0x80U : 0U;
    float const magnitude = std::fabs(value);
    if (std::isnan(value))
    {
        return static_cast<uint8_t>(sign | 0x7FU);
    }
    if (magnitude >= 448.0F)
    {
        return static_cast<uint8_t>(sign | 0x7EU);
    }
    int exponent = 0;
    std::frexp(magnitude, &exponent);                // magnitude = f * 2^exponent, f in [0.5, 1)
    int const unbiased = std::max(exponent - 1, -6); // subnormals share the exponent of the smallest normal
    float const step = std::ldexp(1.0F, unbiased - 3);
    auto units = static_cast<uint32_t>(std::nearbyint(magnitude / step)); // 0..16 steps of 2^(e-3)
    if (units == 0)
    {
        return static_cast<uint8_t>(sign);
    }
    int biased = unbiased + 7;
    if (units < 8) // subnormal (biased exponent 0)
    {
        return static_cast<uint8_t>(sign | units);
    }
    if (units == 16) // rounded up into the next binade
    {
        units = 8;
        ++biased;
    }
    return static_cast<uint8_t>(sign | (static_cast<uint32_t>(biased) << 3) | (units - 8));
}

//! The value of FP8 E4M3 bits.
inline float fp8ToFloat(uint8_t fp8)
{
    int const exponent = (fp8 >> 3) & 0xF;
    int const mantissa = fp8 & 0x7;
    float magnitude = 0.0F;
    if (exponent == 15 && mantissa == 7)
    {
        magnitude = std::nanf("");
    }
    else if (exponent == 0)
    {
        magnitude = std::ldexp(static_cast<float>(mantissa), -9);
    }
    else
    {
        magnitude = std::ldexp(static_cast<float>(8 + mantissa), exponent - 10);
    }
    return (fp8 & 0x80) != 0 ? -magnitude : magnitude;
}

//! value / scale rounded to the nearest integer (ties to even) and clamped to [-128, 127].
inline int8_t quantizeInt8(float value, float scale)
{
    float const units = std::nearbyint(value / scale);
    return static_cast<int8_t>(std::clamp(units, -128.0F, 127.0F));
}

//! The size in bytes of one element of the types these helpers handle (kFLOAT, kHALF, kBF16, kFP8, kINT8, kINT32).
inline int64_t elementSize(nvinfer1::DataType type)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF:
    case nvinfer1::DataType::kBF16: return 2;
    case nvinfer1::DataType::kFP8:
    case nvinfer1::DataType::kINT8: return 1;
    default: return 4;
    }
}

//! Element i of a kFLOAT, kHALF, kBF16, kFP8 or kINT8 buffer as a real value: quantized types are multiplied by scale.
inline float loadElement(void const* data, nvinfer1::DataType type, int64_t i, float scale = 1.0F)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF: return halfToFloat(static_cast<uint16_t const*>(data)[i]);
    case nvinfer1::DataType::kBF16: return bf16ToFloat(static_cast<uint16_t const*>(data)[i]);
    case nvinfer1::DataType::kFP8: return fp8ToFloat(static_cast<uint8_t const*>(data)[i]) * scale;
    case nvinfer1::DataType::kINT8: return static_cast<float>(static_cast<int8_t const*>(data)[i]) * scale;
    default: return static_cast<float const*>(data)[i];
    }
}

//! Stores value at element i of such a buffer: quantized types store value / scale, rounded and saturated.
inline void storeElement(void* data, nvinfer1::DataType type, int64_t i, float value, float scale = 1.0F)
{
    switch (type)
    {
    case nvinfer1::DataType::kHALF: static_cast<uint16_t*>(data)[i] = floatToHalf(value); break;
    case nvinfer1::DataType::kBF16: static_cast<uint16_t*>(data)[i] = floatToBf16(value); break;
    case nvinfer1::DataType::kFP8: static_cast<uint8_t*>(data)[i] = floatToFp8(value / scale); break;
    case nvinfer1::DataType::kINT8: static_cast<int8_t*>(data)[i] = quantizeInt8(value, scale); break;
    default: static_cast<float*>(data)[i] = value; break;
    }
}

} // namespace example
