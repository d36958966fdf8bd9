// SPDX-License-Identifier: Apache-2.0
#include "values.h"

#include "logger.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace kiln_tool
{
namespace
{

using nvinfer1::DataType;

template <typename T>
T load(void const* data, int64_t index)
{
    T value{};
    std::memcpy(&value, static_cast<std::byte const*>(data) + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
}

template <typename T>
void store(void* data, int64_t index, T value)
{
    std::memcpy(static_cast<std::byte*>(data) + index * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
}

//! IEEE half bits to float.
float fromHalf(uint16_t bits)
{
    uint32_t const sign = static_cast<uint32_t>(bits & 0x8000U) << 16;
    uint32_t const exponent = (bits >> 10) & 0x1FU;
    uint32_t const mantissa = bits & 0x3FFU;
    if (exponent == 0)
    {
        float const magnitude = std::ldexp(static_cast<float>(mantissa), -24); // subnormal
        return sign != 0 ? -magnitude : magnitude;
    }
    uint32_t const out = exponent == 0x1F ? sign | 0x7F800000U | (mantissa << 13)
                                          : sign | ((exponent + 112U) << 23) | (mantissa << 13);
    return std::bit_cast<float>(out);
}

//! float to IEEE half bits, rounding to nearest even (values here are small: no overflow handling beyond infinity).
uint16_t toHalf(float value)
{
    uint32_t const bits = std::bit_cast<uint32_t>(value);
    uint32_t const sign = (bits >> 16) & 0x8000U;
    float const magnitude = std::fabs(value);
    if (magnitude < std::ldexp(1.0F, -14)) // subnormal half: multiples of 2^-24
    {
        return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(magnitude * 16777216.0F)));
    }
    uint32_t const absolute = bits & 0x7FFFFFFFU;
    uint32_t const rounded = absolute + 0xFFFU + ((absolute >> 13) & 1U); // round to nearest even at bit 13
    uint32_t half = (((rounded >> 23) - 112U) << 10) | ((rounded >> 13) & 0x3FFU);
    if ((rounded >> 23) >= 143U)
    {
        half = 0x7C00U; // infinity
    }
    return static_cast<uint16_t>(sign | half);
}

float fromBf16(uint16_t bits)
{
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t toBf16(float value)
{
    uint32_t const bits = std::bit_cast<uint32_t>(value);
    return static_cast<uint16_t>((bits + 0x7FFFU + ((bits >> 16) & 1U)) >> 16);
}

//! FP8 E4M3 (bias 7, no infinities, 0x7F and 0xFF are NaN) to float.
float fromFp8(uint8_t bits)
{
    int const exponent = (bits >> 3) & 0xF;
    int const mantissa = bits & 0x7;
    float magnitude = 0.0F;
    if ((bits & 0x7F) == 0x7F)
    {
        magnitude = std::nanf("");
    }
    else if (exponent == 0)
    {
        magnitude = std::ldexp(static_cast<float>(mantissa), -9);
    }
    else
    {
        magnitude = std::ldexp(1.0F + static_cast<float>(mantissa) / 8.0F, exponent - 7);
    }
    return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

[[noreturn]] void unsupported(DataType type, char const* what)
{
    throw Failure(std::string("the tool cannot ") + what + " tensors of type " + std::string(typeName(type)) + " yet");
}

} // namespace

std::string_view typeName(DataType type) noexcept
{
    switch (type)
    {
    case DataType::kFLOAT: return "FP32";
    case DataType::kHALF: return "FP16";
    case DataType::kINT8: return "INT8";
    case DataType::kINT32: return "INT32";
    case DataType::kBOOL: return "BOOL";
    case DataType::kUINT8: return "UINT8";
    case DataType::kFP8: return "FP8";
    case DataType::kBF16: return "BF16";
    case DataType::kINT64: return "INT64";
    case DataType::kINT4: return "INT4";
    case DataType::kFP4: return "FP4";
    case DataType::kE8M0: return "E8M0";
    }
    return "unknown type";
}

std::size_t byteCount(DataType type, int64_t count) noexcept
{
    auto const n = static_cast<std::size_t>(count);
    switch (type)
    {
    case DataType::kINT4:
    case DataType::kFP4: return (n + 1) / 2;
    case DataType::kHALF:
    case DataType::kBF16: return 2 * n;
    case DataType::kFLOAT:
    case DataType::kINT32: return 4 * n;
    case DataType::kINT64: return 8 * n;
    case DataType::kINT8:
    case DataType::kBOOL:
    case DataType::kUINT8:
    case DataType::kFP8:
    case DataType::kE8M0: return n;
    }
    return n;
}

void fillRandom(void* data, DataType type, int64_t count, uint32_t seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> real(-1.0F, 1.0F);
    std::uniform_int_distribution<int32_t> integer(-128, 127);
    std::uniform_int_distribution<int32_t> byte(0, 255);
    switch (type)
    {
    case DataType::kFLOAT:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, real(random));
        }
        return;
    case DataType::kHALF:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, toHalf(real(random)));
        }
        return;
    case DataType::kBF16:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, toBf16(real(random)));
        }
        return;
    case DataType::kINT32:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, integer(random));
        }
        return;
    case DataType::kINT64:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<int64_t>(integer(random)));
        }
        return;
    case DataType::kINT8:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<int8_t>(integer(random)));
        }
        return;
    case DataType::kUINT8:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<uint8_t>(byte(random)));
        }
        return;
    case DataType::kBOOL:
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<uint8_t>(byte(random) & 1));
        }
        return;
    case DataType::kFP8: // magnitudes below 2 (exponent field below 8), either sign
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<uint8_t>(byte(random) & 0xBF));
        }
        return;
    case DataType::kINT4:
    case DataType::kFP4: // every bit pattern is a finite value
        for (std::size_t i = 0; i < byteCount(type, count); ++i)
        {
            store(data, static_cast<int64_t>(i), static_cast<uint8_t>(byte(random)));
        }
        return;
    case DataType::kE8M0: // scales from 2^-15 to 2^16
        for (int64_t i = 0; i < count; ++i)
        {
            store(data, i, static_cast<uint8_t>(112 + (byte(random) & 31)));
        }
        return;
    }
    unsupported(type, "fill");
}

double readValue(void const* data, DataType type, int64_t index)
{
    switch (type)
    {
    case DataType::kFLOAT: return load<float>(data, index);
    case DataType::kHALF: return fromHalf(load<uint16_t>(data, index));
    case DataType::kBF16: return fromBf16(load<uint16_t>(data, index));
    case DataType::kFP8: return fromFp8(load<uint8_t>(data, index));
    case DataType::kINT32: return load<int32_t>(data, index);
    case DataType::kINT64: return static_cast<double>(load<int64_t>(data, index));
    case DataType::kINT8: return load<int8_t>(data, index);
    case DataType::kUINT8:
    case DataType::kBOOL: return load<uint8_t>(data, index);
    case DataType::kINT4:
    case DataType::kFP4:
    case DataType::kE8M0: break;
    }
    unsupported(type, "read the values of");
}

} // namespace kiln_tool
