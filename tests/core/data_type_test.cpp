// SPDX-License-Identifier: Apache-2.0
// The DataType table: names, sizes and kinds of every type, checked against expectations written out here from
// TensorRT's documentation; storage sizes of packed types; lookup by name; values outside the enum.
#include "core/data_type.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace kiln
{
namespace
{

struct Expected
{
    DataType type;
    std::string name;
    std::string shortName;
    int32_t bits;
    bool isFloat;
    bool isInteger;
    bool isQuantized;
};

// Written out by hand, not generated from KILN_DATA_TYPES, so that a wrong table row fails here.
Expected const kExpected[] = {
    {DataType::kFLOAT, "kFLOAT", "float32", 32, true, false, false},
    {DataType::kHALF, "kHALF", "float16", 16, true, false, false},
    {DataType::kINT8, "kINT8", "int8", 8, false, true, true},
    {DataType::kINT32, "kINT32", "int32", 32, false, true, false},
    {DataType::kBOOL, "kBOOL", "bool", 8, false, false, false},
    {DataType::kUINT8, "kUINT8", "uint8", 8, false, true, false},
    {DataType::kFP8, "kFP8", "fp8e4m3", 8, true, false, true},
    {DataType::kBF16, "kBF16", "bfloat16", 16, true, false, false},
    {DataType::kINT64, "kINT64", "int64", 64, false, true, false},
    {DataType::kINT4, "kINT4", "int4", 4, false, true, true},
    {DataType::kFP4, "kFP4", "fp4e2m1", 4, true, false, true},
    {DataType::kE8M0, "kE8M0", "e8m0", 8, true, false, false},
};

static_assert(dataTypeBits(DataType::kINT4) == 4, "the table is usable at compile time");
static_assert(storageBytes(DataType::kFP4, 3) == 2);
static_assert(
    storageBytes(DataType::kINT64, std::numeric_limits<int64_t>::max()) == std::numeric_limits<int64_t>::max());
static_assert(storageBytes(DataType::kINT64, std::numeric_limits<int64_t>::max() / 8)
    == std::numeric_limits<int64_t>::max() / 8 * 8);
static_assert(
    storageBytes(DataType::kINT4, std::numeric_limits<int64_t>::max()) == std::numeric_limits<int64_t>::max() / 2 + 1);

TEST(DataTypeTest, EveryTypeHasItsNamesSizeAndKind)
{
    ASSERT_EQ(std::size(kExpected), static_cast<size_t>(nvinfer1::EnumMax<DataType>()));
    ASSERT_EQ(kDataTypes.size(), std::size(kExpected));
    for (auto const& e : kExpected)
    {
        SCOPED_TRACE(e.name);
        EXPECT_TRUE(isKnownDataType(e.type));
        EXPECT_EQ(dataTypeName(e.type), e.name);
        EXPECT_EQ(dataTypeShortName(e.type), e.shortName);
        EXPECT_EQ(dataTypeBits(e.type), e.bits);
        EXPECT_EQ(isFloatType(e.type), e.isFloat);
        EXPECT_EQ(isIntegerType(e.type), e.isInteger);
        EXPECT_EQ(isQuantizedType(e.type), e.isQuantized);
        EXPECT_EQ(storageBytes(e.type, 1), e.bits == 4 ? 1 : e.bits / 8);
    }
}

TEST(DataTypeTest, PackedTypesStoreTwoElementsPerByteRoundedUp)
{
    for (auto type : {DataType::kINT4, DataType::kFP4})
    {
        SCOPED_TRACE(dataTypeName(type));
        EXPECT_EQ(storageBytes(type, 0), 0);
        EXPECT_EQ(storageBytes(type, 1), 1);
        EXPECT_EQ(storageBytes(type, 2), 1);
        EXPECT_EQ(storageBytes(type, 3), 2);
        EXPECT_EQ(storageBytes(type, 7), 4);
        EXPECT_EQ(storageBytes(type, 1001), 501);
    }
}

TEST(DataTypeTest, StorageBytesIsCeilingOfBitsOverEightForEveryTypeAndCount)
{
    for (auto const& e : kExpected)
    {
        for (int64_t count = 0; count < 100; ++count)
        {
            EXPECT_EQ(storageBytes(e.type, count), (count * e.bits + 7) / 8) << e.name << " x " << count;
        }
    }
}

TEST(DataTypeTest, StorageBytesOfHugeCountsDoesNotOverflow)
{
    int64_t const big = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(storageBytes(DataType::kINT4, big), int64_t{1} << 62);
    EXPECT_EQ(storageBytes(DataType::kUINT8, big), big);
    EXPECT_EQ(storageBytes(DataType::kINT64, int64_t{1} << 59), int64_t{1} << 62);
}

TEST(DataTypeTest, NegativeCountsTakeNoStorage)
{
    EXPECT_EQ(storageBytes(DataType::kFLOAT, -1), 0);
    EXPECT_EQ(storageBytes(DataType::kINT4, -3), 0);
}

TEST(DataTypeTest, BothNamesOfEveryTypeLeadBackToIt)
{
    for (auto const& e : kExpected)
    {
        EXPECT_EQ(dataTypeFromName(e.name), e.type) << e.name;
        EXPECT_EQ(dataTypeFromName(e.shortName), e.type) << e.shortName;
        EXPECT_EQ(dataTypeFromName(dataTypeName(e.type)), e.type);
    }
}

TEST(DataTypeTest, UnknownNamesFindNothing)
{
    for (char const* name : {"", "kfloat", "KFLOAT", "FLOAT", "float", "fp8", "kFLOAT ", "unknown", "int4\n"})
    {
        EXPECT_FALSE(dataTypeFromName(name).has_value()) << '"' << name << '"';
    }
}

TEST(DataTypeTest, ValuesOutsideTheEnumAreUnknownNotACrash)
{
    for (int32_t raw : {-1, 12, 99, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()})
    {
        auto const type = static_cast<DataType>(raw);
        SCOPED_TRACE(raw);
        EXPECT_FALSE(isKnownDataType(type));
        EXPECT_STREQ(dataTypeName(type), "unknown");
        EXPECT_STREQ(dataTypeShortName(type), "unknown");
        EXPECT_EQ(dataTypeBits(type), 0);
        EXPECT_EQ(storageBytes(type, 10), 0);
        EXPECT_FALSE(isFloatType(type));
        EXPECT_FALSE(isIntegerType(type));
        EXPECT_FALSE(isQuantizedType(type));
    }
}

} // namespace
} // namespace kiln
