// SPDX-License-Identifier: Apache-2.0
// Bit-exact conversions, each checked against an oracle that shares no code with it: the compiler's _Float16,
// value formulas evaluated in double with std::ldexp, nearest-value searches over every code of a format with
// exact double arithmetic, std::nearbyint, and hand-written tables.
#include "core/float_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

static_assert(floatToHalf(1.0F) == 0x3C00 && halfToFloat(0x3C00) == 1.0F, "conversions are constexpr");
static_assert(floatToFp8e4m3(1000.0F) == 0x7E && fp8e4m3ToFloat(0x7E) == 448.0F);
static_assert(quantizeInt8(2.5F, 1.0F) == 2);

uint32_t bitsOf(float x)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return bits;
}

float floatOf(uint32_t bits)
{
    float x = 0;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

//! x's bits, or "NaN" for any NaN, so that EXPECT_EQ compares NaNs as equal and everything else bit for bit.
[[maybe_unused]] std::string canonical(float x)
{
    return std::isnan(x) ? std::string("NaN") : std::to_string(bitsOf(x));
}

//! The value of a narrow float's magnitude fields by the textbook formula, in double.
double formulaValue(uint32_t exponentField, uint32_t mantissa, int32_t mantissaBits, int32_t bias)
{
    double const fraction = std::ldexp(static_cast<double>(mantissa), -mantissaBits);
    return exponentField == 0 ? std::ldexp(fraction, 1 - bias)
                              : std::ldexp(1.0 + fraction, static_cast<int32_t>(exponentField) - bias);
}

//! The code (sign bit at signBit) of the nearest of values (indexed by magnitude code, ascending), ties to the even
//! code, found by exact comparison in double; magnitudes past the last value go to the last (saturation).
uint32_t nearestCode(float x, std::vector<double> const& values, uint32_t signBit)
{
    uint32_t const sign = std::signbit(x) ? signBit : 0U;
    double const a = std::fabs(static_cast<double>(x));
    if (a >= values.back())
    {
        return sign | static_cast<uint32_t>(values.size() - 1);
    }
    uint32_t best = 0;
    for (uint32_t code = 1; code < values.size(); ++code)
    {
        double const dBest = std::fabs(a - values[best]);
        double const d = std::fabs(a - values[code]);
        if (d < dBest || (d == dBest && code % 2 == 0))
        {
            best = code;
        }
    }
    return sign | best;
}

std::mt19937& rng()
{
    static std::mt19937 generator{20240611U};
    return generator;
}

//! A random float with a uniformly chosen exponent in [lowExponent, highExponent] and random mantissa and sign.
float randomFloat(int32_t lowExponent, int32_t highExponent)
{
    std::uniform_int_distribution<int32_t> exponent(lowExponent, highExponent);
    std::uniform_int_distribution<uint32_t> mantissa(0, (1U << 23) - 1);
    std::bernoulli_distribution negative(0.5);
    float const magnitude = std::ldexp(1.0F + static_cast<float>(mantissa(rng())) / 8388608.0F, exponent(rng()));
    return negative(rng()) ? -magnitude : magnitude;
}

// ---- half ------------------------------------------------------------------------------------------------------

double halfFormula(uint16_t h)
{
    uint32_t const e = (h >> 10) & 0x1FU;
    uint32_t const m = h & 0x3FFU;
    double const sign = (h & 0x8000U) != 0 ? -1.0 : 1.0;
    if (e == 31)
    {
        return m != 0 ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
    }
    return sign * formulaValue(e, m, 10, 15);
}

bool isHalfNan(uint16_t h)
{
    return (h & 0x7C00U) == 0x7C00U && (h & 0x3FFU) != 0;
}

TEST(HalfTest, EveryPatternDecodesAsTheFormulaSays)
{
    for (uint32_t h = 0; h < 65536; ++h)
    {
        float const mine = halfToFloat(static_cast<uint16_t>(h));
        double const expected = halfFormula(static_cast<uint16_t>(h));
        if (std::isnan(expected))
        {
            EXPECT_TRUE(std::isnan(mine)) << std::hex << h;
            continue;
        }
        EXPECT_EQ(static_cast<double>(mine), expected) << std::hex << h;
        EXPECT_EQ(std::signbit(mine), (h & 0x8000U) != 0) << std::hex << h;
    }
}

TEST(HalfTest, EveryPatternDecodesAsTheCompilerDoes)
{
#ifdef __FLT16_MAX__
    for (uint32_t h = 0; h < 65536; ++h)
    {
        auto const bits = static_cast<uint16_t>(h);
        _Float16 value;
        std::memcpy(&value, &bits, sizeof value);
        EXPECT_EQ(canonical(halfToFloat(bits)), canonical(static_cast<float>(value))) << std::hex << h;
    }
#else
    GTEST_SKIP() << "this compiler has no _Float16";
#endif
}

TEST(HalfTest, EveryHalfReencodesToItsOwnBits)
{
    for (uint32_t h = 0; h < 65536; ++h)
    {
        if (!isHalfNan(static_cast<uint16_t>(h)))
        {
            EXPECT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
        }
    }
}

TEST(HalfTest, NaNStaysAQuietNaNWithItsSign)
{
    for (uint32_t h = 0; h < 65536; ++h)
    {
        if (isHalfNan(static_cast<uint16_t>(h)))
        {
            float const f = halfToFloat(static_cast<uint16_t>(h));
            ASSERT_TRUE(std::isnan(f)) << std::hex << h;
            uint16_t const back = floatToHalf(f);
            EXPECT_TRUE(isHalfNan(back)) << std::hex << h;
            EXPECT_NE(back & 0x200U, 0U) << "quiet";
            EXPECT_EQ(back & 0x8000U, h & 0x8000U);
        }
    }
    // NaNs whose payload lies only in the bits that do not fit must not become infinity.
    EXPECT_TRUE(isHalfNan(floatToHalf(floatOf(0x7F800001U))));
    EXPECT_TRUE(isHalfNan(floatToHalf(floatOf(0xFF800001U))));
    EXPECT_EQ(floatToHalf(floatOf(0xFF800001U)) & 0x8000U, 0x8000U);
}

TEST(HalfTest, MidpointsBetweenNeighboursRoundToTheEvenOne)
{
    for (uint32_t h = 0; h < 0x7BFF; ++h)
    {
        double const low = halfFormula(static_cast<uint16_t>(h));
        double const high = halfFormula(static_cast<uint16_t>(h + 1));
        auto const mid = static_cast<float>((low + high) / 2); // 12 significant bits: exact in float
        ASSERT_EQ(static_cast<double>(mid), (low + high) / 2);
        uint32_t const even = h % 2 == 0 ? h : h + 1;
        EXPECT_EQ(floatToHalf(mid), even) << std::hex << h;
        EXPECT_EQ(floatToHalf(-mid), even | 0x8000U) << std::hex << h;
        EXPECT_EQ(floatToHalf(std::nextafter(mid, 0.0F)), h) << std::hex << h;
        EXPECT_EQ(floatToHalf(std::nextafter(mid, kInf)), h + 1) << std::hex << h;
    }
}

TEST(HalfTest, OverflowBecomesInfinityFrom65520)
{
    EXPECT_EQ(floatToHalf(65504.0F), 0x7BFF);
    EXPECT_EQ(floatToHalf(std::nextafter(65520.0F, 0.0F)), 0x7BFF);
    EXPECT_EQ(floatToHalf(65520.0F), 0x7C00);
    EXPECT_EQ(floatToHalf(-65520.0F), 0xFC00);
    EXPECT_EQ(floatToHalf(1e10F), 0x7C00);
    EXPECT_EQ(floatToHalf(std::numeric_limits<float>::max()), 0x7C00);
    EXPECT_EQ(floatToHalf(kInf), 0x7C00);
    EXPECT_EQ(floatToHalf(-kInf), 0xFC00);
}

TEST(HalfTest, SubnormalsAndUnderflow)
{
    EXPECT_EQ(floatToHalf(std::ldexp(1.0F, -24)), 0x0001); // smallest subnormal
    EXPECT_EQ(floatToHalf(std::ldexp(1.0F, -25)), 0x0000); // tie with zero: even
    EXPECT_EQ(floatToHalf(std::nextafter(std::ldexp(1.0F, -25), 1.0F)), 0x0001);
    EXPECT_EQ(floatToHalf(std::ldexp(1.5F, -25)), 0x0001);
    EXPECT_EQ(floatToHalf(std::ldexp(3.0F, -25)), 0x0002); // 1.5 ulp: tie, even is 2
    EXPECT_EQ(floatToHalf(std::ldexp(1.0F, -14)), 0x0400); // smallest normal
    EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
    EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::denorm_min()), 0x8000);
    EXPECT_EQ(floatToHalf(-0.0F), 0x8000);
}

TEST(HalfTest, RandomFloatsEncodeAsTheCompilerDoes)
{
#ifdef __FLT16_MAX__
    auto check = [](float x) {
        _Float16 const h = static_cast<_Float16>(x);
        uint16_t expected = 0;
        std::memcpy(&expected, &h, sizeof expected);
        uint16_t const mine = floatToHalf(x);
        if (isHalfNan(expected))
        {
            EXPECT_TRUE(isHalfNan(mine)) << std::hex << bitsOf(x);
        }
        else
        {
            EXPECT_EQ(mine, expected) << std::hex << bitsOf(x);
        }
    };
    std::uniform_int_distribution<uint32_t> anyBits;
    for (int i = 0; i < 1'000'000; ++i)
    {
        check(floatOf(anyBits(rng())));
        check(randomFloat(-27, 16)); // the half range and a little beyond on both ends
    }
#else
    GTEST_SKIP() << "this compiler has no _Float16";
#endif
}

// ---- bfloat16 --------------------------------------------------------------------------------------------------

//! bfloat16 rounding of a non-NaN x by exact distances in double to the two bfloat16 values around it.
uint16_t bf16Reference(float x)
{
    uint32_t const bits = bitsOf(x);
    uint32_t const sign = bits & 0x80000000U;
    uint32_t const below = (bits & 0x7FFF0000U) >> 16; // magnitude truncated
    if ((bits & 0xFFFFU) == 0 || below == 0x7F80U)
    {
        return static_cast<uint16_t>((sign >> 16) | below); // exact, or infinity
    }
    double const a = std::fabs(static_cast<double>(x));
    double const low = static_cast<double>(floatOf(below << 16));
    // The value one bfloat16 step up; above the largest finite one that is 2^128, which stands for infinity.
    double const high = below + 1 == 0x7F80U ? std::ldexp(1.0, 128) : static_cast<double>(floatOf((below + 1) << 16));
    double const dLow = a - low;
    double const dHigh = high - a;
    bool const up = dHigh < dLow || (dHigh == dLow && below % 2 == 1);
    return static_cast<uint16_t>((sign >> 16) | (up ? below + 1 : below));
}

TEST(Bf16Test, EveryPatternDecodesAsTheTopHalfOfAFloat)
{
    for (uint32_t b = 0; b < 65536; ++b)
    {
        float const mine = bf16ToFloat(static_cast<uint16_t>(b));
        EXPECT_EQ(bitsOf(mine), b << 16) << std::hex << b;
        uint32_t const e = (b >> 7) & 0xFFU;
        if (e != 0xFF)
        {
            double const sign = (b & 0x8000U) != 0 ? -1.0 : 1.0;
            EXPECT_EQ(static_cast<double>(mine), sign * formulaValue(e, b & 0x7FU, 7, 127)) << std::hex << b;
        }
    }
}

TEST(Bf16Test, FloatsRoundToNearestEvenAsExactDistancesSay)
{
    auto check = [](float x) { EXPECT_EQ(floatToBf16(x), bf16Reference(x)) << std::hex << bitsOf(x); };
    std::uniform_int_distribution<uint32_t> anyBits;
    for (int i = 0; i < 1'000'000; ++i)
    {
        float const x = floatOf(anyBits(rng()));
        if (!std::isnan(x))
        {
            check(x);
        }
        check(randomFloat(-140, 127));
    }
    // Every tie: dropped bits exactly 0x8000, on odd and even kept halves, over a sweep of the kept patterns.
    for (uint32_t kept = 0; kept < 0x7F80U; kept += 3)
    {
        check(floatOf((kept << 16) | 0x8000U));
        check(floatOf((kept << 16) | 0x7FFFU));
        check(floatOf((kept << 16) | 0x8001U));
    }
    EXPECT_EQ(floatToBf16(floatOf(0x3F808000U)), 0x3F80);
    EXPECT_EQ(floatToBf16(floatOf(0x3F818000U)), 0x3F82);
}

TEST(Bf16Test, NaNStaysNaNAndNeverRoundsIntoInfinity)
{
    for (uint32_t bits : {0x7F800001U, 0x7F80FFFFU, 0x7FBFFFFFU, 0x7FC00000U, 0xFF800001U, 0xFFFFFFFFU})
    {
        uint16_t const b = floatToBf16(floatOf(bits));
        EXPECT_TRUE(std::isnan(bf16ToFloat(b))) << std::hex << bits;
        EXPECT_EQ(b & 0x8000U, (bits >> 16) & 0x8000U);
    }
}

TEST(Bf16Test, OverflowNearTheLargestValue)
{
    float const largest = bf16ToFloat(0x7F7F);
    float const midpoint = floatOf(0x7F7F8000U); // halfway from the largest to 2^128: odd, so up to infinity
    EXPECT_EQ(floatToBf16(largest), 0x7F7F);
    EXPECT_EQ(floatToBf16(std::nextafter(midpoint, 0.0F)), 0x7F7F);
    EXPECT_EQ(floatToBf16(midpoint), 0x7F80);
    EXPECT_EQ(floatToBf16(-midpoint), 0xFF80);
    EXPECT_EQ(floatToBf16(std::numeric_limits<float>::max()), 0x7F80);
    EXPECT_EQ(floatToBf16(kInf), 0x7F80);
    EXPECT_EQ(floatToBf16(-kInf), 0xFF80);
}

// ---- FP8 E4M3 --------------------------------------------------------------------------------------------------

double e4m3Formula(uint8_t v)
{
    uint32_t const e = (v >> 3) & 0xFU;
    uint32_t const m = v & 0x7U;
    if (e == 15 && m == 7)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return ((v & 0x80U) != 0 ? -1.0 : 1.0) * formulaValue(e, m, 3, 7);
}

//! The finite E4M3 magnitudes by code, 0x00..0x7E.
std::vector<double> e4m3Values()
{
    std::vector<double> values;
    for (uint32_t code = 0; code <= 0x7E; ++code)
    {
        values.push_back(e4m3Formula(static_cast<uint8_t>(code)));
    }
    return values;
}

TEST(Fp8Test, EveryPatternDecodesAsTheFormulaSays)
{
    int nans = 0;
    for (uint32_t v = 0; v < 256; ++v)
    {
        float const mine = fp8e4m3ToFloat(static_cast<uint8_t>(v));
        double const expected = e4m3Formula(static_cast<uint8_t>(v));
        if (std::isnan(expected))
        {
            ++nans;
            EXPECT_TRUE(std::isnan(mine)) << std::hex << v;
            continue;
        }
        EXPECT_FALSE(std::isinf(mine)) << "E4M3 has no infinity";
        EXPECT_EQ(static_cast<double>(mine), expected) << std::hex << v;
        EXPECT_EQ(std::signbit(mine), v >= 0x80) << std::hex << v;
    }
    EXPECT_EQ(nans, 2);
    EXPECT_TRUE(std::isnan(fp8e4m3ToFloat(0x7F)));
    EXPECT_TRUE(std::isnan(fp8e4m3ToFloat(0xFF)));
    EXPECT_EQ(fp8e4m3ToFloat(0x7E), 448.0F);
    EXPECT_EQ(fp8e4m3ToFloat(0xFE), -448.0F);
    EXPECT_EQ(fp8e4m3ToFloat(0x78), 256.0F);
    EXPECT_EQ(fp8e4m3ToFloat(0x08), std::ldexp(1.0F, -6)); // smallest normal
    EXPECT_EQ(fp8e4m3ToFloat(0x01), std::ldexp(1.0F, -9)); // smallest subnormal
}

TEST(Fp8Test, EveryFiniteValueRoundTrips)
{
    for (uint32_t v = 0; v < 256; ++v)
    {
        if ((v & 0x7FU) != 0x7F)
        {
            float const x = fp8e4m3ToFloat(static_cast<uint8_t>(v));
            EXPECT_EQ(floatToFp8e4m3(x), v) << std::hex << v;
            EXPECT_EQ(floatToFp8e4m3NoSat(x), v) << std::hex << v;
        }
    }
}

TEST(Fp8Test, MidpointsRoundToTheEvenCode)
{
    for (uint32_t v = 0; v < 0x7E; ++v)
    {
        double const low = e4m3Formula(static_cast<uint8_t>(v));
        double const high = e4m3Formula(static_cast<uint8_t>(v + 1));
        auto const mid = static_cast<float>((low + high) / 2);
        uint32_t const even = v % 2 == 0 ? v : v + 1;
        EXPECT_EQ(floatToFp8e4m3(mid), even) << std::hex << v;
        EXPECT_EQ(floatToFp8e4m3(-mid), even | 0x80U) << std::hex << v;
        EXPECT_EQ(floatToFp8e4m3(std::nextafter(mid, 0.0F)), v) << std::hex << v;
        EXPECT_EQ(floatToFp8e4m3(std::nextafter(mid, kInf)), v + 1) << std::hex << v;
    }
}

TEST(Fp8Test, SaturatesAt448)
{
    for (float x : {449.0F, 464.0F, 470.0F, 479.0F, 480.0F, 500.0F, 1e9F, std::numeric_limits<float>::max(), kInf})
    {
        EXPECT_EQ(floatToFp8e4m3(x), 0x7E) << x;
        EXPECT_EQ(floatToFp8e4m3(-x), 0xFE) << -x;
    }
    EXPECT_EQ(floatToFp8e4m3(kNan), 0x7F);
    EXPECT_EQ(floatToFp8e4m3(-kNan), 0x7F) << "one canonical NaN, as CUDA gives";
}

TEST(Fp8Test, WithoutSaturationOverflowIsNaN)
{
    EXPECT_EQ(floatToFp8e4m3NoSat(464.0F), 0x7E) << "the tie goes to even 448";
    EXPECT_EQ(floatToFp8e4m3NoSat(std::nextafter(464.0F, kInf)), 0x7F);
    EXPECT_EQ(floatToFp8e4m3NoSat(500.0F), 0x7F);
    EXPECT_EQ(floatToFp8e4m3NoSat(-500.0F), 0xFF);
    EXPECT_EQ(floatToFp8e4m3NoSat(kInf), 0x7F);
    EXPECT_EQ(floatToFp8e4m3NoSat(-kInf), 0xFF);
    EXPECT_EQ(floatToFp8e4m3NoSat(kNan), 0x7F);
}

TEST(Fp8Test, RandomFloatsEncodeToTheNearestValue)
{
    std::vector<double> const values = e4m3Values();
    std::uniform_int_distribution<uint32_t> anyBits;
    for (int i = 0; i < 200'000; ++i)
    {
        for (float x : {randomFloat(-12, 9), floatOf(anyBits(rng()))})
        {
            if (!std::isnan(x))
            {
                EXPECT_EQ(floatToFp8e4m3(x), nearestCode(x, values, 0x80U)) << std::hex << bitsOf(x);
            }
        }
    }
}

// ---- FP4 E2M1 --------------------------------------------------------------------------------------------------

float const kE2M1Values[16] = {0, 0.5F, 1, 1.5F, 2, 3, 4, 6, -0.0F, -0.5F, -1, -1.5F, -2, -3, -4, -6};

TEST(Fp4Test, EveryCodeDecodesToItsValue)
{
    for (uint32_t code = 0; code < 16; ++code)
    {
        EXPECT_EQ(bitsOf(fp4e2m1ToFloat(static_cast<uint8_t>(code))), bitsOf(kE2M1Values[code])) << code;
        EXPECT_EQ(fp4e2m1ToFloat(static_cast<uint8_t>(code | 0xF0U)), kE2M1Values[code]) << "high nibble ignored";
        EXPECT_EQ(floatToFp4e2m1(kE2M1Values[code]), code) << code;
    }
}

TEST(Fp4Test, MidpointsRoundToTheEvenCode)
{
    struct Tie
    {
        float x;
        uint8_t code;
    };
    for (Tie t : {Tie{0.25F, 0}, Tie{0.75F, 2}, Tie{1.25F, 2}, Tie{1.75F, 4}, Tie{2.5F, 4}, Tie{3.5F, 6}, Tie{5.0F, 6}})
    {
        EXPECT_EQ(floatToFp4e2m1(t.x), t.code) << t.x;
        EXPECT_EQ(floatToFp4e2m1(-t.x), t.code | 0x8U) << -t.x;
    }
    std::vector<double> const values(kE2M1Values, kE2M1Values + 8);
    for (uint32_t code = 0; code < 7; ++code)
    {
        auto const mid = static_cast<float>((values[code] + values[code + 1]) / 2);
        EXPECT_EQ(floatToFp4e2m1(std::nextafter(mid, 0.0F)), code) << mid;
        EXPECT_EQ(floatToFp4e2m1(std::nextafter(mid, kInf)), code + 1) << mid;
    }
}

TEST(Fp4Test, SaturatesAtSix)
{
    for (float x : {6.0F, 6.5F, 7.0F, 100.0F, 1e30F, kInf})
    {
        EXPECT_EQ(floatToFp4e2m1(x), 0x7) << x;
        EXPECT_EQ(floatToFp4e2m1(-x), 0xF) << -x;
    }
    EXPECT_EQ(floatToFp4e2m1(kNan), 0x7) << "no NaN in E2M1: +6, as CUDA gives";
    EXPECT_EQ(floatToFp4e2m1(-kNan), 0x7);
    EXPECT_EQ(floatToFp4e2m1(-0.0F), 0x8);
    EXPECT_EQ(floatToFp4e2m1(-0.1F), 0x8);
}

TEST(Fp4Test, RandomFloatsEncodeToTheNearestValue)
{
    std::vector<double> const values(kE2M1Values, kE2M1Values + 8);
    for (int i = 0; i < 200'000; ++i)
    {
        float const x = randomFloat(-4, 3);
        EXPECT_EQ(floatToFp4e2m1(x), nearestCode(x, values, 0x8U)) << x;
    }
}

TEST(Fp4Test, PacksTwoPerByteLowNibbleFirst)
{
    std::vector<float> const values = {1.0F, -6.0F, 0.5F, 7.0F, -0.0F};
    std::vector<uint8_t> packed(3, 0xAA);
    ASSERT_TRUE(packFp4(values, packed));
    EXPECT_EQ(packed, (std::vector<uint8_t>{0xF2, 0x71, 0x08}));
    std::vector<float> back(5);
    ASSERT_TRUE(unpackFp4(packed, back));
    std::vector<float> const expected = {1.0F, -6.0F, 0.5F, 6.0F, -0.0F};
    for (size_t i = 0; i < back.size(); ++i)
    {
        EXPECT_EQ(bitsOf(back[i]), bitsOf(expected[i])) << i;
    }
}

// ---- INT4 packing ----------------------------------------------------------------------------------------------

TEST(Int4Test, PacksSignedValuesTwoPerByteWithAnOddCount)
{
    std::vector<int8_t> const values = {-8, -1, 0, 7, 3, -5, 2};
    std::vector<uint8_t> packed(4, 0xAA);
    ASSERT_TRUE(packInt4(values, packed));
    EXPECT_EQ(packed, (std::vector<uint8_t>{0xF8, 0x70, 0xB3, 0x02})) << "last high nibble left zero";
    std::vector<int8_t> back(values.size());
    ASSERT_TRUE(unpackInt4(packed, back));
    EXPECT_EQ(back, values);
}

TEST(Int4Test, EveryNibbleUnpacksToItsSignedValue)
{
    for (uint32_t n = 0; n < 16; ++n)
    {
        int32_t const expected = n < 8 ? static_cast<int32_t>(n) : static_cast<int32_t>(n) - 16;
        EXPECT_EQ(int4FromNibble(static_cast<uint8_t>(n)), expected) << n;
        EXPECT_EQ(int4ToNibble(expected), n);
        EXPECT_EQ(nibble(packNibbles(static_cast<uint8_t>(n), 0), 0), n);
        EXPECT_EQ(nibble(packNibbles(0, static_cast<uint8_t>(n)), 1), n);
    }
}

TEST(Int4Test, PackingSaturatesToTheInt4Range)
{
    std::vector<int8_t> const values = {-9, 8, 100, -100};
    std::vector<uint8_t> packed(2);
    ASSERT_TRUE(packInt4(values, packed));
    std::vector<int8_t> back(4);
    ASSERT_TRUE(unpackInt4(packed, back));
    EXPECT_EQ(back, (std::vector<int8_t>{-8, 7, 7, -8}));
}

TEST(Int4Test, ShortBuffersAreRefusedUntouched)
{
    std::vector<int8_t> const values = {1, 2, 3};
    std::vector<uint8_t> packed(1, 0xAA);
    EXPECT_FALSE(packInt4(values, packed));
    EXPECT_EQ(packed[0], 0xAA);
    std::vector<int8_t> back(3, 42);
    EXPECT_FALSE(unpackInt4(packed, back));
    EXPECT_EQ(back, (std::vector<int8_t>{42, 42, 42}));
    std::vector<float> floats(3, 1.0F);
    EXPECT_FALSE(packFp4(floats, packed));
    EXPECT_FALSE(unpackFp4(packed, floats));
    EXPECT_TRUE(packInt4({}, {})) << "nothing to pack fits in nothing";
}

TEST(Int4Test, QuantizesWithAScaleAndSaturates)
{
    EXPECT_EQ(quantizeInt4(0.75F, 0.5F), 2); // 1.5: tie to even 2
    EXPECT_EQ(quantizeInt4(1.25F, 0.5F), 2); // 2.5: tie to even 2
    EXPECT_EQ(quantizeInt4(-1.25F, 0.5F), -2);
    EXPECT_EQ(quantizeInt4(3.74F, 0.5F), 7);  // 7.48
    EXPECT_EQ(quantizeInt4(3.75F, 0.5F), 7);  // 7.5 would round to 8: saturated
    EXPECT_EQ(quantizeInt4(-4.0F, 0.5F), -8); // -8 fits
    EXPECT_EQ(quantizeInt4(-100.0F, 0.5F), -8);
    EXPECT_EQ(dequantizeInt4(-8, 0.5F), -4.0F);
}

// ---- E8M0 ------------------------------------------------------------------------------------------------------

//! floatToE8M0 by its definition: powers of two and exact double arithmetic.
uint8_t e8m0Reference(float x, E8M0Rounding rounding)
{
    double const a = std::fabs(static_cast<double>(x));
    if (a == 0)
    {
        return 0;
    }
    int exponent = 0;
    std::frexp(a, &exponent);
    int k = exponent - 1; // 2^k <= a < 2^(k+1)
    bool const exact = a == std::ldexp(1.0, k);
    switch (rounding)
    {
    case E8M0Rounding::kNEAREST: k += a * a >= std::ldexp(1.0, 2 * k + 1) ? 1 : 0; break; // a >= sqrt(2) * 2^k
    case E8M0Rounding::kDOWN: break;
    case E8M0Rounding::kUP: k += exact ? 0 : 1; break;
    }
    int const field = k + 127;
    return static_cast<uint8_t>(field < 0 ? 0 : (field > 254 ? 254 : field));
}

TEST(E8M0Test, EveryPatternIsAPowerOfTwo)
{
    for (uint32_t e = 0; e < 255; ++e)
    {
        EXPECT_EQ(static_cast<double>(e8m0ToFloat(static_cast<uint8_t>(e))), std::ldexp(1.0, static_cast<int>(e) - 127))
            << e;
    }
    EXPECT_TRUE(std::isnan(e8m0ToFloat(0xFF)));
    EXPECT_EQ(e8m0ToFloat(127), 1.0F);
    EXPECT_EQ(bitsOf(e8m0ToFloat(0)), 0x00400000U) << "2^-127 is a float subnormal";
}

TEST(E8M0Test, EveryPowerOfTwoRoundTripsInEveryMode)
{
    for (uint32_t e = 0; e < 255; ++e)
    {
        float const x = e8m0ToFloat(static_cast<uint8_t>(e));
        for (auto mode : {E8M0Rounding::kNEAREST, E8M0Rounding::kDOWN, E8M0Rounding::kUP})
        {
            EXPECT_EQ(floatToE8M0(x, mode), e) << e;
        }
    }
}

TEST(E8M0Test, NearestIsDecidedAtSqrtTwo)
{
    EXPECT_EQ(floatToE8M0(floatOf(0x3FB504F3U)), 127) << "1.41421354 < sqrt(2): down to 1";
    EXPECT_EQ(floatToE8M0(floatOf(0x3FB504F4U)), 128) << "1.41421366 > sqrt(2): up to 2";
    EXPECT_EQ(floatToE8M0(1.4F * 1024), 137);
    EXPECT_EQ(floatToE8M0(1.5F * 1024), 138);
    EXPECT_EQ(floatToE8M0(1.9F, E8M0Rounding::kDOWN), 127);
    EXPECT_EQ(floatToE8M0(1.1F, E8M0Rounding::kUP), 128);
}

TEST(E8M0Test, RandomFloatsRoundAsTheDefinitionSays)
{
    std::uniform_int_distribution<uint32_t> anyBits;
    for (int i = 0; i < 300'000; ++i)
    {
        float const x = floatOf(anyBits(rng()));
        if (std::isnan(x) || std::isinf(x))
        {
            continue;
        }
        for (auto mode : {E8M0Rounding::kNEAREST, E8M0Rounding::kDOWN, E8M0Rounding::kUP})
        {
            EXPECT_EQ(floatToE8M0(x, mode), e8m0Reference(x, mode)) << std::hex << bitsOf(x);
        }
    }
}

TEST(E8M0Test, SpecialValues)
{
    EXPECT_EQ(floatToE8M0(kNan), 0xFF);
    EXPECT_EQ(floatToE8M0(kInf), 0xFE);
    EXPECT_EQ(floatToE8M0(-kInf), 0xFE) << "the sign is ignored";
    EXPECT_EQ(floatToE8M0(-4.0F), 129) << "the sign is ignored";
    EXPECT_EQ(floatToE8M0(0.0F), 0x00) << "no zero: the smallest scale";
    EXPECT_EQ(floatToE8M0(-0.0F), 0x00);
    EXPECT_EQ(floatToE8M0(std::numeric_limits<float>::max()), 0xFE) << "2^128 saturates to 2^127";
    EXPECT_EQ(floatToE8M0(std::numeric_limits<float>::denorm_min()), 0x00);
    EXPECT_EQ(floatToE8M0(std::ldexp(1.0F, -126)), 0x01);
    EXPECT_EQ(floatToE8M0(std::ldexp(1.3F, -127)), 0x00) << "a float subnormal below sqrt(2) * 2^-127";
    EXPECT_EQ(floatToE8M0(std::ldexp(1.5F, -127)), 0x01) << "a float subnormal above sqrt(2) * 2^-127";
}

// ---- Quantization with a scale ---------------------------------------------------------------------------------

TEST(QuantizeTest, Int8TiesGoToEven)
{
    float const scale = 0.25F; // a power of two keeps x / scale exact
    struct Case
    {
        float multiple;
        int8_t q;
    };
    for (Case c : {Case{0.5F, 0}, Case{1.5F, 2}, Case{2.5F, 2}, Case{3.5F, 4}, Case{-0.5F, 0}, Case{-1.5F, -2},
             Case{-2.5F, -2}, Case{-3.5F, -4}, Case{0.49F, 0}, Case{0.51F, 1}, Case{126.5F, 126}, Case{-127.5F, -128}})
    {
        EXPECT_EQ(quantizeInt8(c.multiple * scale, scale), c.q) << c.multiple;
    }
}

TEST(QuantizeTest, Int8Saturates)
{
    float const scale = 0.5F;
    EXPECT_EQ(quantizeInt8(127.4F * scale, scale), 127);
    EXPECT_EQ(quantizeInt8(127.5F * scale, scale), 127) << "rounds to 128, then saturates";
    EXPECT_EQ(quantizeInt8(1000.0F, scale), 127);
    EXPECT_EQ(quantizeInt8(-128.4F * scale, scale), -128);
    EXPECT_EQ(quantizeInt8(-129.0F * scale, scale), -128);
    EXPECT_EQ(quantizeInt8(-1e30F, scale), -128);
    EXPECT_EQ(quantizeInt8(kInf, scale), 127);
    EXPECT_EQ(quantizeInt8(-kInf, scale), -128);
    EXPECT_EQ(quantizeInt8(kNan, scale), 0);
}

TEST(QuantizeTest, Int8MatchesNearbyintOfTheQuotient)
{
    std::uniform_real_distribution<float> value(-200.0F, 200.0F);
    std::uniform_real_distribution<float> scaleDistribution(0.01F, 3.0F);
    for (int i = 0; i < 200'000; ++i)
    {
        float const x = value(rng());
        float const scale = scaleDistribution(rng());
        float const rounded = std::nearbyint(x / scale); // the default rounding mode: to nearest, ties to even
        auto const expected = static_cast<int8_t>(std::fmin(127.0F, std::fmax(-128.0F, rounded)));
        EXPECT_EQ(quantizeInt8(x, scale), expected) << x << " / " << scale;
    }
}

TEST(QuantizeTest, DequantizeMultipliesByTheScale)
{
    EXPECT_EQ(dequantizeInt8(-128, 0.5F), -64.0F);
    EXPECT_EQ(dequantizeInt8(127, 0.1F), 127 * 0.1F);
    EXPECT_EQ(dequantizeInt8(quantizeInt8(2.6F, 0.1F), 0.1F), 26 * 0.1F);
    EXPECT_EQ(dequantizeFp8(0x7E, 2.0F), 896.0F);
    EXPECT_EQ(dequantizeFp4(0xF, 0.5F), -3.0F);
}

TEST(QuantizeTest, Fp8DividesThenSaturates)
{
    EXPECT_EQ(quantizeFp8(896.0F, 2.0F), 0x7E);
    EXPECT_EQ(quantizeFp8(1000.0F, 2.0F), 0x7E);
    EXPECT_EQ(quantizeFp8(-1e9F, 2.0F), 0xFE);
    EXPECT_EQ(quantizeFp8(1.0F, 2.0F), 0x30); // 0.5
    EXPECT_EQ(quantizeFp8(kNan, 2.0F), 0x7F);
    std::uniform_real_distribution<float> value(-2000.0F, 2000.0F);
    for (int i = 0; i < 10'000; ++i)
    {
        float const x = value(rng());
        EXPECT_EQ(quantizeFp8(x, 3.0F), floatToFp8e4m3(x / 3.0F)) << x;
    }
    EXPECT_EQ(quantizeFp4(5.0F, 0.5F), 0x7);   // 10 saturates to 6
    EXPECT_EQ(quantizeFp4(-0.75F, 0.5F), 0xB); // -1.5
}

} // namespace
} // namespace kiln
