// SPDX-License-Identifier: Apache-2.0
// The host cast kernel: the table of conversions against the rules spelled out here, every supported pair on random
// shapes and values (special values included) against conversions computed here, the edges of each rule (truncation,
// saturation, NaN, wrap-around, bool, single rounding, quantization), and every refusal with its message.
#include "backends/host/cast.h"

#include "host_test_util.h"

namespace kiln::host::test
{
namespace
{

TypeSet const kFreelyCastable = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
    DataType::kFP8, DataType::kINT32, DataType::kINT64, DataType::kBOOL});

//! The rule, spelled out: the freely castable types cast among each other; kUINT8 only to and from kFLOAT and kHALF
//! (and itself); kINT4, kFP4, kE8M0 and values outside the enum not at all.
bool expectedSupported(DataType from, DataType to)
{
    TypeSet const uint8Partners = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kUINT8});
    if (from == DataType::kUINT8 || to == DataType::kUINT8)
    {
        return contains(uint8Partners, from) && contains(uint8Partners, to);
    }
    return contains(kFreelyCastable, from) && contains(kFreelyCastable, to);
}

TEST(HostCast, RulesTableHasARowPerTypeInOrder)
{
    ASSERT_EQ(castRules().size(), static_cast<std::size_t>(nvinfer1::EnumMax<DataType>()));
    for (std::size_t i = 0; i < castRules().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(castRules()[i].from), i);
    }
}

TEST(HostCast, SupportMatrix)
{
    std::vector<DataType> types = allTypes();
    types.push_back(DataType{77});
    for (DataType const from : types)
    {
        for (DataType const to : types)
        {
            EXPECT_EQ(castSupported(from, to), expectedSupported(from, to))
                << dataTypeName(from) << " -> " << dataTypeName(to);
            auto const desc = inferCast({to}, {from, Dims{2, {3, 1}}});
            if (expectedSupported(from, to))
            {
                ASSERT_TRUE(desc.ok()) << desc.error().message;
                EXPECT_EQ(desc.value().type, to);
                EXPECT_TRUE(sameShape(desc.value().dims, Dims{2, {3, 1}}));
            }
            else
            {
                expectError(desc,
                    {std::string("cast from ") + dataTypeName(from) + " to " + dataTypeName(to) + ": not supported"});
            }
        }
    }
    expectError(inferCast({DataType::kINT32}, {DataType::kUINT8, Dims{1, {2}}}),
        {"cast from kUINT8 to kINT32: not supported (kUINT8 casts to kFLOAT, kHALF, kUINT8)"});
    expectError(inferCast({DataType::kFLOAT}, {DataType::kINT4, Dims{1, {2}}}),
        {"cast from kINT4 to kFLOAT: not supported (kINT4 casts to nothing)"});
}

//! The test's own conversion of a floating value to an integer type: NaN to 0, truncation, saturation.
int64_t toInteger(double v, DataType type)
{
    if (std::isnan(v))
    {
        return 0;
    }
    double const low = type == DataType::kUINT8 ? 0.0 : (type == DataType::kINT32 ? -2147483648.0 : -0x1p63);
    double const high = type == DataType::kUINT8 ? 255.0 : (type == DataType::kINT32 ? 2147483647.0 : 0x1p63);
    double const t = std::trunc(v);
    if (t <= low)
    {
        return static_cast<int64_t>(low);
    }
    if (t >= high)
    {
        return type == DataType::kINT64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(high);
    }
    return static_cast<int64_t>(t);
}

class HostCastRandom : public ::testing::TestWithParam<DataType>
{
};

//! Every supported conversion from the parameter type, on random shapes and values.
TEST_P(HostCastRandom, MatchesTheRules)
{
    DataType const from = GetParam();
    for (DataType const to : allTypes())
    {
        if (!castSupported(from, to))
        {
            continue;
        }
        for (uint32_t trial = 0; trial < 8; ++trial)
        {
            std::mt19937 rng(20000U + 1000U * static_cast<uint32_t>(from) + 37U * static_cast<uint32_t>(to) + trial);
            Dims const dims = randomShape(rng);
            HostBuffer in(from, dims, contains(kScaledTypes, from) ? randomScale(rng) : 1.0F);
            HostBuffer out(to, dims, contains(kScaledTypes, to) ? randomScale(rng) : 1.0F);
            SCOPED_TRACE(std::string(dataTypeName(from)) + " -> " + dataTypeName(to) + " trial " + std::to_string(trial)
                + ": " + shapeString(dims));
            bool const floatingSource = numberKind(from) == NumberKind::kFLOATING;
            if (floatingSource)
            {
                double const range = from == DataType::kHALF ? 60000.0 : 3.0e9;
                fillFloating(rng, in, trial % 2 == 0 ? -300.0 : -range, trial % 2 == 0 ? 300.0 : range);
            }
            else if (from == DataType::kUINT8)
            {
                for (int64_t i = 0; i < elementCount(dims); ++i)
                {
                    encodeInteger(from, static_cast<std::byte*>(in.tensor().data), i, rng() % 256);
                }
            }
            else
            {
                fillInteger(rng, in, -300, 300);
            }
            Status const status = runCast({to}, in.tensor(), out.tensor());
            ASSERT_TRUE(status.ok()) << status.error().message;
            for (int64_t i = 0; i < elementCount(dims); ++i)
            {
                double const x = floatingSource ? decode(from, bytesOf(in), i, in.tensor().scale)
                                                : static_cast<double>(decodeInteger(from, bytesOf(in), i));
                int64_t const xi = floatingSource ? 0 : decodeInteger(from, bytesOf(in), i);
                if (numberKind(to) == NumberKind::kFLOATING)
                {
                    double const actual = decode(to, bytesOf(out), i, out.tensor().scale);
                    EXPECT_TRUE(matches(to, x, actual, out.tensor().scale))
                        << "element " << i << ": " << x << " gave " << actual;
                }
                else
                {
                    int64_t const actual = decodeInteger(to, bytesOf(out), i);
                    int64_t expected = 0;
                    if (to == DataType::kBOOL)
                    {
                        expected = floatingSource ? (x != 0.0 ? 1 : 0) : (xi != 0 ? 1 : 0);
                    }
                    else if (floatingSource)
                    {
                        expected = toInteger(x, to);
                    }
                    else
                    {
                        expected = to == DataType::kINT32 ? static_cast<int32_t>(static_cast<uint32_t>(xi)) : xi;
                    }
                    EXPECT_EQ(actual, expected) << "element " << i << ": " << x;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EverySourceType, HostCastRandom,
    ::testing::Values(DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8,
        DataType::kINT32, DataType::kINT64, DataType::kBOOL, DataType::kUINT8),
    [](::testing::TestParamInfo<DataType> const& param) { return std::string(dataTypeName(param.param)).substr(1); });

//! Casts floating values to `to` (from kFLOAT unless given) and reads the results back as doubles.
std::vector<double> castValues(
    std::vector<double> const& x, DataType to, DataType from = DataType::kFLOAT, float outScale = 1.0F)
{
    Dims const shape{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in(from, shape), out(to, shape, outScale);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        encode(from, static_cast<std::byte*>(in.tensor().data), static_cast<int64_t>(i), x[i], 1.0F);
    }
    Status const status = runCast({to}, in.tensor(), out.tensor());
    EXPECT_TRUE(status.ok()) << status.error().message;
    std::vector<double> result;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        result.push_back(decode(to, bytesOf(out), static_cast<int64_t>(i), outScale));
    }
    return result;
}

//! Casts int64_t values to `to` and reads the results back (integers exactly, floating types as doubles).
std::vector<double> castIntegers(std::vector<int64_t> const& x, DataType to, DataType from = DataType::kINT64)
{
    Dims const shape{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in(from, shape), out(to, shape);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        encodeInteger(from, static_cast<std::byte*>(in.tensor().data), static_cast<int64_t>(i), x[i]);
    }
    Status const status = runCast({to}, in.tensor(), out.tensor());
    EXPECT_TRUE(status.ok()) << status.error().message;
    std::vector<double> result;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        result.push_back(numberKind(to) == NumberKind::kFLOATING
                ? decode(to, bytesOf(out), static_cast<int64_t>(i), 1.0F)
                : static_cast<double>(decodeInteger(to, bytesOf(out), static_cast<int64_t>(i))));
    }
    return result;
}

TEST(HostCast, FloatingToIntegerTruncatesAndSaturates)
{
    EXPECT_EQ(castValues({1.2, 4.5, 5.6, 7.8, 8.9, -2.7, -0.5, 2.5}, DataType::kINT32),
        (std::vector<double>{1, 4, 5, 7, 8, -2, 0, 2}));
    EXPECT_EQ(castValues({kNan, kInf, -kInf, 3.0e9, -3.0e9, 2147483520.0}, DataType::kINT32),
        (std::vector<double>{0, 2147483647.0, -2147483648.0, 2147483647.0, -2147483648.0, 2147483520.0}));
    std::vector<double> const wide = castValues({kNan, kInf, -kInf, 1.0e19, -1.0e19, -0x1p63}, DataType::kINT64);
    EXPECT_EQ(wide[0], 0.0);
    EXPECT_EQ(wide[1], 0x1p63) << "INT64_MAX reads back as 2^63 in double";
    EXPECT_EQ(wide[2], -0x1p63);
    EXPECT_EQ(wide[5], -0x1p63);
    EXPECT_EQ(castValues({-1.5, 0.9, 255.9, 300.0, kNan, kInf}, DataType::kUINT8),
        (std::vector<double>{0, 0, 255, 255, 0, 255}));
    EXPECT_EQ(castValues({65504.0, -2.5}, DataType::kINT32, DataType::kHALF), (std::vector<double>{65504, -2}));
    EXPECT_EQ(castValues({250.75}, DataType::kUINT8, DataType::kHALF), (std::vector<double>{250}));
}

TEST(HostCast, BoolConversions)
{
    EXPECT_EQ(castValues({0.0, -0.0, kNan, 0.1, -kInf, std::ldexp(1.0, -149)}, DataType::kBOOL),
        (std::vector<double>{0, 0, 1, 1, 1, 1}));
    EXPECT_EQ(castIntegers({0, 2, -1, std::numeric_limits<int64_t>::min()}, DataType::kBOOL),
        (std::vector<double>{0, 1, 1, 1}));
    for (DataType const to : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8,
             DataType::kINT32, DataType::kINT64})
    {
        EXPECT_EQ(castIntegers({0, 1}, to, DataType::kBOOL), (std::vector<double>{0, 1})) << dataTypeName(to);
    }
    // An INT8 value is nonzero after dequantization: 1 step at any scale is true.
    EXPECT_EQ(castValues({0.0, 1.0, -128.0}, DataType::kBOOL, DataType::kINT8), (std::vector<double>{0, 1, 1}));
}

TEST(HostCast, IntegerNarrowingWraps)
{
    EXPECT_EQ(castIntegers({(int64_t{1} << 32) + 5, int64_t{1} << 31, -(int64_t{1} << 31) - 1, -7}, DataType::kINT32),
        (std::vector<double>{5, -2147483648.0, 2147483647.0, -7}));
    EXPECT_EQ(castIntegers({-2147483648LL, 2147483647LL}, DataType::kINT64, DataType::kINT32),
        (std::vector<double>{-2147483648.0, 2147483647.0}));
}

TEST(HostCast, IntegerToFloatingRoundsOnce)
{
    // 2^24 + 1 ties to even 2^24; 2^24 + 3 ties to even 2^24 + 4.
    EXPECT_EQ(castIntegers({(1 << 24) + 1, (1 << 24) + 3}, DataType::kFLOAT, DataType::kINT32),
        (std::vector<double>{16777216.0, 16777220.0}));
    // 2^60 + 2^36 + 1 is just above a float midpoint; through a double (2^60 + 2^36, a tie) it would go down.
    EXPECT_EQ(castIntegers({(int64_t{1} << 60) + (int64_t{1} << 36) + 1}, DataType::kFLOAT).front(), 0x1p60 + 0x1p37);
    EXPECT_EQ(castIntegers({(int64_t{1} << 60) + (int64_t{1} << 36)}, DataType::kFLOAT).front(), 0x1p60);
    EXPECT_EQ(castIntegers({std::numeric_limits<int64_t>::min()}, DataType::kFLOAT).front(), -0x1p63);
    EXPECT_EQ(castIntegers({65519, 65520, -65520}, DataType::kHALF), (std::vector<double>{65504.0, kInf, -kInf}));
    EXPECT_EQ(castIntegers({257, 255}, DataType::kBF16), (std::vector<double>{256.0, 255.0}));
    EXPECT_EQ(castIntegers({300, -300, 5}, DataType::kINT8, DataType::kINT32), (std::vector<double>{127, -128, 5}));
    EXPECT_EQ(castIntegers({1000, 17}, DataType::kFP8, DataType::kINT32), (std::vector<double>{448, 16}))
        << "17 ties to 16";
    EXPECT_EQ(castIntegers({200, 255}, DataType::kHALF, DataType::kUINT8), (std::vector<double>{200, 255}));
}

TEST(HostCast, FloatingToFloatingRoundsToNearestEven)
{
    EXPECT_EQ(castValues({70000.0}, DataType::kHALF).front(), kInf);
    std::vector<double> const half
        = castValues({65519.0, -65520.0, std::ldexp(1.0, -25), std::ldexp(3.0, -26), 1.0 + 0x1p-11}, DataType::kHALF);
    EXPECT_EQ(half, (std::vector<double>{65504.0, -kInf, 0.0, std::ldexp(1.0, -24), 1.0}));
    EXPECT_TRUE(std::isnan(castValues({kNan}, DataType::kBF16).front()));
    EXPECT_EQ(castValues({1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, 3.0e38}, DataType::kBF16),
        (std::vector<double>{1.0, 1.0 + 0x1p-6, static_cast<double>(bf16ToFloat(floatToBf16(3.0e38F)))}));
    EXPECT_EQ(castValues({1000.0, -1000.0, 17.0, 0.0}, DataType::kFP8), (std::vector<double>{448, -448, 16, 0}));
    EXPECT_TRUE(std::isnan(castValues({kNan}, DataType::kFP8).front()));
    EXPECT_EQ(castValues({65504.0}, DataType::kFLOAT, DataType::kHALF), (std::vector<double>{65504.0}));
    EXPECT_EQ(castValues({448.0}, DataType::kBF16, DataType::kFP8), (std::vector<double>{448.0}));
}

TEST(HostCast, ScaledEnds)
{
    // To INT8 at scale 1: round half to even, saturate.
    EXPECT_EQ(castValues({2.5, 3.5, -2.5, 127.6, -1000.0, kNan}, DataType::kINT8),
        (std::vector<double>{2, 4, -2, 127, -128, 0}));
    // At scale 0.5: 1.25 is 2.5 steps, 2 -> 1.0; 100 saturates to 63.5.
    EXPECT_EQ(castValues({1.25, 100.0}, DataType::kINT8, DataType::kFLOAT, 0.5F), (std::vector<double>{1.0, 63.5}));
    // From INT8 at scale 0.25: dequantized, then truncated to an integer.
    HostBuffer q(DataType::kINT8, Dims{1, {3}}, 0.25F), i32(DataType::kINT32, Dims{1, {3}});
    std::vector<int8_t> const codes{-7, 9, 127};
    std::memcpy(q.tensor().data, codes.data(), 3);
    ASSERT_TRUE(runCast({DataType::kINT32}, q.tensor(), i32.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(i32), 0), -1) << "-1.75 truncates to -1";
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(i32), 1), 2);
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(i32), 2), 31);
    // INT8 to INT8 requantizes between scales.
    HostBuffer requantized(DataType::kINT8, Dims{1, {3}}, 0.5F);
    ASSERT_TRUE(runCast({DataType::kINT8}, q.tensor(), requantized.tensor()).ok());
    EXPECT_EQ(decode(DataType::kINT8, bytesOf(requantized), 0, 0.5F), -2.0) << "-1.75 is -3.5 steps: even -4";
    EXPECT_EQ(decode(DataType::kINT8, bytesOf(requantized), 1, 0.5F), 2.0) << "2.25 is 4.5 steps: even 4";
}

TEST(HostCast, Refusals)
{
    Dims const shape{1, {3}};
    HostBuffer in(DataType::kFLOAT, shape), half(DataType::kHALF, shape), longer(DataType::kHALF, Dims{1, {4}});
    expectError(
        runCast({DataType::kHALF}, in.tensor(), in.tensor()), {"cast from kFLOAT to kHALF: the output is kFLOAT"});
    expectError(runCast({DataType::kHALF}, in.tensor(), longer.tensor()),
        {"cast from kFLOAT to kHALF: the output has shape [4] but the input has shape [3]"});
    expectError(runCast({DataType::kHALF}, HostTensor{nullptr, DataType::kFLOAT, shape}, half.tensor()),
        {"cast from kFLOAT to kHALF: input of shape [3] has no data"});
    expectError(runCast({DataType::kINT32}, HostTensor{in.tensor().data, DataType::kUINT8, shape}, in.tensor()),
        {"cast from kUINT8 to kINT32: not supported"});
    expectError(inferCast({DataType::kHALF}, {DataType::kFLOAT, Dims{1, {-2}}}),
        {"cast from kFLOAT to kHALF: input shape [-2] is not a concrete shape"});
    HostBuffer q(DataType::kINT8, shape);
    HostTensor badScale = q.tensor();
    badScale.scale = 0.0F;
    expectError(runCast({DataType::kFLOAT}, badScale, in.tensor()),
        {"cast from kINT8 to kFLOAT: input (kINT8) has scale 0; a quantization scale must be positive and finite"});
}

} // namespace
} // namespace kiln::host::test
