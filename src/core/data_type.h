// SPDX-License-Identifier: Apache-2.0
// Facts about each nvinfer1::DataType, from one table: names, element size in bits, kind of number.
//
//     using nvinfer1::DataType;
//     dataTypeName(DataType::kHALF);          // "kHALF"
//     dataTypeShortName(DataType::kHALF);     // "float16"
//     storageBytes(DataType::kINT4, 5);       // 3: two elements per byte, rounded up
//     dataTypeFromName("bfloat16");           // DataType::kBF16
//
// Values outside the enum (a corrupt plan, a cast from an int) are answered, never trusted: name "unknown",
// 0 bits, no kind.
#pragma once

#include "NvInferRuntime.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace kiln
{

using nvinfer1::DataType;

// X(enumerator, short name, bits, floating point, integer, quantized with a scale)
// Quantized types hold x / scale; the scale travels separately (TensorRT's Q/DQ layers). kE8M0 is itself a
// scale type (a power of two), so it counts as floating point but not as quantized. kBOOL is neither kind.
#define KILN_DATA_TYPES(X)                                                                                             \
    X(kFLOAT, "float32", 32, true, false, false)                                                                       \
    X(kHALF, "float16", 16, true, false, false)                                                                        \
    X(kINT8, "int8", 8, false, true, true)                                                                             \
    X(kINT32, "int32", 32, false, true, false)                                                                         \
    X(kBOOL, "bool", 8, false, false, false)                                                                           \
    X(kUINT8, "uint8", 8, false, true, false)                                                                          \
    X(kFP8, "fp8e4m3", 8, true, false, true)                                                                           \
    X(kBF16, "bfloat16", 16, true, false, false)                                                                       \
    X(kINT64, "int64", 64, false, true, false)                                                                         \
    X(kINT4, "int4", 4, false, true, true)                                                                             \
    X(kFP4, "fp4e2m1", 4, true, false, true)                                                                           \
    X(kE8M0, "e8m0", 8, true, false, false)

//! One row of the table.
struct DataTypeInfo
{
    DataType type;
    char const* name;      //!< The enumerator's name, "kFLOAT".
    char const* shortName; //!< The element type's common name, "float32".
    int32_t bits;          //!< Bits per element; 4 for the packed types.
    bool isFloat;
    bool isInteger;
    bool isQuantized;
};

#define KILN_DATA_TYPE_ROW(e, shortName, bits, isFloat, isInteger, isQuantized)                                        \
    DataTypeInfo{DataType::e, #e, shortName, bits, isFloat, isInteger, isQuantized},
inline constexpr std::array kDataTypes{KILN_DATA_TYPES(KILN_DATA_TYPE_ROW)};
#undef KILN_DATA_TYPE_ROW

static_assert(kDataTypes.size() == static_cast<size_t>(nvinfer1::EnumMax<DataType>()),
    "KILN_DATA_TYPES needs one row for every nvinfer1::DataType");

//! Whether row i describes DataType i, for every row.
constexpr bool dataTypeRowsInEnumOrder() noexcept
{
    for (size_t i = 0; i < kDataTypes.size(); ++i)
    {
        if (static_cast<size_t>(kDataTypes[i].type) != i)
        {
            return false;
        }
    }
    return true;
}
static_assert(dataTypeRowsInEnumOrder(), "KILN_DATA_TYPES rows must follow the enum's order");

//! Whether type is one of the enum's values.
constexpr bool isKnownDataType(DataType type) noexcept
{
    auto const index = static_cast<int32_t>(type);
    return index >= 0 && index < static_cast<int32_t>(kDataTypes.size());
}

//! What a value outside the enum reports: no name, no size, no kind.
inline constexpr DataTypeInfo kUnknownDataType{DataType{-1}, "unknown", "unknown", 0, false, false, false};

//! The row of type, or kUnknownDataType for a value outside the enum.
constexpr DataTypeInfo const& dataTypeInfo(DataType type) noexcept
{
    return isKnownDataType(type) ? kDataTypes[static_cast<size_t>(type)] : kUnknownDataType;
}

//! The enumerator's name ("kHALF"), or "unknown".
constexpr char const* dataTypeName(DataType type) noexcept
{
    return dataTypeInfo(type).name;
}

//! The common name ("float16"), or "unknown".
constexpr char const* dataTypeShortName(DataType type) noexcept
{
    return dataTypeInfo(type).shortName;
}

//! Bits per element (4 for kINT4 and kFP4), or 0 for a value outside the enum.
constexpr int32_t dataTypeBits(DataType type) noexcept
{
    return dataTypeInfo(type).bits;
}

//! Bytes that count elements occupy, packed types rounded up to whole bytes; 0 for count <= 0 or an unknown type;
//! INT64_MAX when the answer does not fit.
constexpr int64_t storageBytes(DataType type, int64_t count) noexcept
{
    int64_t const bits = dataTypeBits(type);
    if (count <= 0 || bits == 0)
    {
        return 0;
    }
    // Split count so that count * bits cannot overflow; an answer that does not fit saturates.
    int64_t const whole = count / 8;
    int64_t const rest = (count % 8 * bits + 7) / 8;
    if (whole > (std::numeric_limits<int64_t>::max() - rest) / bits)
    {
        return std::numeric_limits<int64_t>::max();
    }
    return whole * bits + rest;
}

//! Whether elements are floating point (kFLOAT, kHALF, kBF16, kFP8, kFP4, kE8M0).
constexpr bool isFloatType(DataType type) noexcept
{
    return dataTypeInfo(type).isFloat;
}

//! Whether elements are integers (kINT8, kINT32, kUINT8, kINT64, kINT4; not kBOOL).
constexpr bool isIntegerType(DataType type) noexcept
{
    return dataTypeInfo(type).isInteger;
}

//! Whether elements hold values divided by a separate scale (kINT8, kFP8, kINT4, kFP4).
constexpr bool isQuantizedType(DataType type) noexcept
{
    return dataTypeInfo(type).isQuantized;
}

//! The type named name, either form ("kHALF" or "float16", exact case), or nullopt.
std::optional<DataType> dataTypeFromName(std::string_view name) noexcept;

} // namespace kiln
