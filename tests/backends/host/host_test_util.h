// SPDX-License-Identifier: Apache-2.0
// What the host reference kernels' tests share: tensors filled and read back through float_convert directly (not
// through the host's own loads and stores), random shapes and values from a seeded std::mt19937, expectations rounded
// to the output type, and a per-type tolerance: exact for integers and bool, one unit in the last place of the output
// type for floating types (at the expectation's magnitude), one quantization step for kINT8.
#pragma once

#include "backends/host/tensor_view.h"
#include "core/data_type.h"
#include "core/float_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kiln::host::test
{

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

//! Every type a host kernel might be asked about, supported or not.
inline std::vector<DataType> allTypes()
{
    std::vector<DataType> types;
    for (DataTypeInfo const& info : kDataTypes)
    {
        types.push_back(info.type);
    }
    return types;
}

//! The value of element i of a buffer of type, decoded with float_convert (kINT8 and kFP8 dequantized with scale).
inline double decode(DataType type, std::byte const* data, int64_t i, float scale)
{
    auto const at = [&](auto sample) {
        decltype(sample) value{};
        std::memcpy(&value, data + i * static_cast<int64_t>(sizeof value), sizeof value);
        return value;
    };
    switch (type)
    {
    case DataType::kFLOAT: return at(float{});
    case DataType::kHALF: return halfToFloat(at(uint16_t{}));
    case DataType::kBF16: return bf16ToFloat(at(uint16_t{}));
    // Dequantization is defined in float (TensorRT's DequantizeLayer): q * scale rounded to float.
    case DataType::kINT8: return dequantizeInt8(at(int8_t{}), scale);
    case DataType::kFP8: return dequantizeFp8(at(uint8_t{}), scale);
    case DataType::kINT32: return at(int32_t{});
    case DataType::kINT64: return static_cast<double>(at(int64_t{}));
    case DataType::kUINT8: return at(uint8_t{});
    case DataType::kBOOL: return at(uint8_t{}) != 0 ? 1.0 : 0.0;
    default: return kNan;
    }
}

//! Element i of an integer or bool buffer, exactly.
inline int64_t decodeInteger(DataType type, std::byte const* data, int64_t i)
{
    switch (type)
    {
    case DataType::kINT32:
    {
        int32_t v = 0;
        std::memcpy(&v, data + i * 4, 4);
        return v;
    }
    case DataType::kINT64:
    {
        int64_t v = 0;
        std::memcpy(&v, data + i * 8, 8);
        return v;
    }
    case DataType::kUINT8: return static_cast<uint8_t>(data[i]);
    case DataType::kBOOL: return data[i] != std::byte{0} ? 1 : 0;
    default: return 0;
    }
}

//! Writes v into element i: floating types through float (float_convert's conversions), kINT8 and kFP8 quantized
//! with scale, integers as given (callers pass values in range).
inline void encode(DataType type, std::byte* data, int64_t i, double v, float scale)
{
    auto const put
        = [&](auto value) { std::memcpy(data + i * static_cast<int64_t>(sizeof value), &value, sizeof value); };
    auto const f = static_cast<float>(v);
    switch (type)
    {
    case DataType::kFLOAT: put(f); return;
    case DataType::kHALF: put(floatToHalf(f)); return;
    case DataType::kBF16: put(floatToBf16(f)); return;
    case DataType::kINT8: put(quantizeInt8(f, scale)); return;
    case DataType::kFP8: put(quantizeFp8(f, scale)); return;
    case DataType::kINT32: put(static_cast<int32_t>(v)); return;
    case DataType::kINT64: put(static_cast<int64_t>(v)); return;
    case DataType::kUINT8: put(static_cast<uint8_t>(v)); return;
    case DataType::kBOOL: put(static_cast<uint8_t>(v != 0.0 ? 1 : 0)); return;
    default: return;
    }
}

//! Writes integer v into element i of an integer or bool buffer (kINT32 keeps the low bits).
inline void encodeInteger(DataType type, std::byte* data, int64_t i, int64_t v)
{
    switch (type)
    {
    case DataType::kINT32:
    {
        auto const w = static_cast<int32_t>(static_cast<uint32_t>(v));
        std::memcpy(data + i * 4, &w, 4);
        return;
    }
    case DataType::kINT64: std::memcpy(data + i * 8, &v, 8); return;
    case DataType::kUINT8: data[i] = static_cast<std::byte>(v); return;
    case DataType::kBOOL: data[i] = std::byte{static_cast<uint8_t>(v != 0 ? 1 : 0)}; return;
    default: return;
    }
}

//! v rounded to type by the test's own path (encode, then decode).
inline double roundTo(DataType type, double v, float scale)
{
    std::byte scratch[8]{};
    encode(type, scratch, 0, v, scale);
    return decode(type, scratch, 0, scale);
}

//! One unit in the last place of type at the magnitude of v (subnormal spacing below the normal range); one
//! quantization step for kINT8; 0 for integer types.
inline double ulp(DataType type, double v, float scale)
{
    auto const spacing = [&](int32_t mantissaBits, int32_t minExponent, double x) {
        int32_t const e = x == 0.0 || !std::isfinite(x) ? minExponent : std::max(std::ilogb(x), minExponent);
        return std::ldexp(1.0, e - mantissaBits);
    };
    switch (type)
    {
    case DataType::kFLOAT: return spacing(23, -126, v);
    case DataType::kHALF: return spacing(10, -14, v);
    case DataType::kBF16: return spacing(7, -126, v);
    case DataType::kFP8: return scale * spacing(3, -6, v / scale);
    case DataType::kINT8: return scale;
    default: return 0.0;
    }
}

//! Whether actual matches the exact result expected once rounded to type: NaN with NaN, infinities exactly, other
//! values within one ulp of the rounded expectation (exactly for integer and bool types).
inline bool matches(DataType type, double expected, double actual, float scale)
{
    double const rounded = roundTo(type, expected, scale);
    if (std::isnan(rounded) || std::isnan(actual))
    {
        return std::isnan(rounded) && std::isnan(actual);
    }
    if (std::isinf(rounded) || std::isinf(actual))
    {
        return rounded == actual;
    }
    return std::fabs(actual - rounded) <= ulp(type, rounded, scale);
}

//! A random shape of rank 0..5, at most about maxCount elements, sometimes with an extent of 0.
inline Dims randomShape(std::mt19937& rng, int64_t maxCount = 256)
{
    Dims dims{static_cast<int32_t>(rng() % 6), {}};
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        int64_t extent = 1 + static_cast<int64_t>(rng() % 5);
        if (rng() % 40 == 0)
        {
            extent = 0;
        }
        if (count * extent > maxCount)
        {
            extent = 1;
        }
        dims.d[i] = extent;
        count *= std::max<int64_t>(extent, 1);
    }
    return dims;
}

//! shape with some extents replaced by 1 (each with probability 1/3): an input that broadcasts to shape.
inline Dims broadcastInput(std::mt19937& rng, Dims const& shape)
{
    Dims dims = shape;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (rng() % 3 == 0)
        {
            dims.d[i] = 1;
        }
    }
    return dims;
}

//! The linear index in an input of shape `in` read for output element `index` of shape `out` (computed from the
//! coordinates, independently of BroadcastMap).
inline int64_t broadcastSource(Dims const& out, Dims const& in, int64_t index)
{
    std::vector<int64_t> coordinate(static_cast<std::size_t>(out.nbDims));
    for (int32_t i = out.nbDims - 1; i >= 0; --i)
    {
        coordinate[static_cast<std::size_t>(i)] = index % out.d[i];
        index /= out.d[i];
    }
    int64_t source = 0;
    for (int32_t i = 0; i < out.nbDims; ++i)
    {
        source = source * in.d[i] + (in.d[i] == 1 ? 0 : coordinate[static_cast<std::size_t>(i)]);
    }
    return source;
}

//! A random scale for a scaled type.
inline float randomScale(std::mt19937& rng)
{
    static constexpr float kScales[] = {0.0625F, 0.125F, 0.3F, 1.0F, 2.5F};
    return kScales[rng() % 5];
}

//! Fills a floating buffer: mostly uniform in [low, high], sometimes a special value (±0, ±inf, NaN, ±1, a
//! subnormal of the type) when specials is set. kINT8 and kFP8 get random codes.
inline void fillFloating(std::mt19937& rng, HostBuffer& buffer, double low, double high, bool specials = true)
{
    HostTensor const& t = buffer.tensor();
    std::uniform_real_distribution<double> uniform(low, high);
    int64_t const count = elementCount(t);
    for (int64_t i = 0; i < count; ++i)
    {
        auto* const data = static_cast<std::byte*>(t.data);
        if (t.type == DataType::kINT8)
        {
            data[i] = static_cast<std::byte>(rng() % 256);
            continue;
        }
        if (t.type == DataType::kFP8)
        {
            data[i] = static_cast<std::byte>(rng() % 256);
            if (!specials && (data[i] == std::byte{0x7F} || data[i] == std::byte{0xFF}))
            {
                data[i] = std::byte{0x38}; // 1.0 instead of NaN
            }
            continue;
        }
        double v = uniform(rng);
        if (specials && rng() % 12 == 0)
        {
            double const subnormal = t.type == DataType::kHALF ? std::ldexp(3.0, -24) : std::ldexp(3.0, -140);
            double const choices[] = {0.0, -0.0, kInf, -kInf, kNan, 1.0, -1.0, subnormal, -subnormal};
            v = choices[rng() % 9];
        }
        encode(t.type, data, i, v, t.scale);
    }
}

//! Fills an integer buffer with mostly small values and sometimes the type's extremes.
inline void fillInteger(std::mt19937& rng, HostBuffer& buffer, int64_t smallLow = -20, int64_t smallHigh = 20)
{
    HostTensor const& t = buffer.tensor();
    int64_t const count = elementCount(t);
    auto* const data = static_cast<std::byte*>(t.data);
    std::uniform_int_distribution<int64_t> small(smallLow, smallHigh);
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t v = small(rng);
        if (t.type == DataType::kBOOL)
        {
            v = static_cast<int64_t>(rng() % 2);
        }
        else if (rng() % 6 == 0)
        {
            bool const wide = t.type == DataType::kINT64;
            int64_t const extremes[]
                = {wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min(),
                    wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max(),
                    static_cast<int64_t>(rng()) - (int64_t{1} << 31), wide ? static_cast<int64_t>(rng()) << 31 : -1};
            v = extremes[rng() % 4];
        }
        encodeInteger(t.type, data, i, v);
    }
}

//! Expects status to be an error whose message holds every fragment.
template <typename T>
void expectError(Expected<T> const& status, std::vector<std::string> const& fragments)
{
    ASSERT_FALSE(status.ok()) << "expected an error holding \"" << fragments.front() << "\"";
    for (std::string const& fragment : fragments)
    {
        EXPECT_NE(status.error().message.find(fragment), std::string::npos)
            << "message \"" << status.error().message << "\" lacks \"" << fragment << "\"";
    }
}

//! The bytes of a buffer, for reading.
inline std::byte const* bytesOf(HostBuffer const& buffer)
{
    return static_cast<std::byte const*>(buffer.tensor().data);
}

} // namespace kiln::host::test
