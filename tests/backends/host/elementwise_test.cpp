// SPDX-License-Identifier: Apache-2.0
// The host element-wise kernel against expectations computed here in double (floating types) or exact integers, on
// random shapes of rank 0 to 5 with broadcasting, for every operation and every type it accepts; special values;
// integer and INT8 edges; and every refusal with its message.
#include "backends/host/elementwise.h"

#include "host_test_util.h"

#include <algorithm>
#include <optional>

namespace kiln::host::test
{
namespace
{

using Op = ElementWiseOperation;

static_assert(nvinfer1::EnumMax<ElementWiseOperation>() == 14, "a new operation needs its reference below");

//! The test's own reference for floating inputs.
double referenceFloating(Op op, double a, double b)
{
    switch (op)
    {
    case Op::kSUM: return a + b;
    case Op::kPROD: return a * b;
    case Op::kMAX: return std::isnan(a) ? b : (std::isnan(b) ? a : std::fmax(a, b));
    case Op::kMIN: return std::isnan(a) ? b : (std::isnan(b) ? a : std::fmin(a, b));
    case Op::kSUB: return a - b;
    case Op::kDIV: return a / b;
    case Op::kPOW: return std::pow(a, b);
    case Op::kFLOOR_DIV: return std::floor(a / b);
    case Op::kEQUAL: return a == b ? 1.0 : 0.0;
    case Op::kGREATER: return a > b ? 1.0 : 0.0;
    case Op::kLESS: return a < b ? 1.0 : 0.0;
    case Op::kAND:
    case Op::kOR:
    case Op::kXOR: break;
    }
    return kNan;
}

//! Two's complement wrap of an exact result into type (kINT32: low 32 bits; kINT64 and kBOOL as is).
int64_t wrapTo(DataType type, int64_t exact)
{
    return type == DataType::kINT32 ? static_cast<int32_t>(static_cast<uint32_t>(exact)) : exact;
}

//! a^e by repeated multiplication modulo 2^64, for 0 <= e.
int64_t powerModulo(int64_t a, int64_t e)
{
    uint64_t result = 1;
    for (int64_t i = 0; i < e; ++i)
    {
        result *= static_cast<uint64_t>(a);
    }
    return static_cast<int64_t>(result);
}

//! The test's own reference for integer and bool inputs, wrapped to type; nullopt where the kernel must refuse.
std::optional<int64_t> referenceInteger(Op op, int64_t a, int64_t b, DataType type)
{
    bool const wide = type == DataType::kINT64;
    auto const u = [](int64_t v) { return static_cast<uint64_t>(v); };
    switch (op)
    {
    case Op::kSUM: return wrapTo(type, wide ? static_cast<int64_t>(u(a) + u(b)) : a + b);
    case Op::kSUB: return wrapTo(type, wide ? static_cast<int64_t>(u(a) - u(b)) : a - b);
    case Op::kPROD: return wrapTo(type, wide ? static_cast<int64_t>(u(a) * u(b)) : a * b);
    case Op::kMAX: return std::max(a, b);
    case Op::kMIN: return std::min(a, b);
    case Op::kDIV:
    case Op::kFLOOR_DIV:
    {
        if (b == 0)
        {
            return std::nullopt;
        }
        if (b == -1)
        {
            return wrapTo(type, static_cast<int64_t>(0 - u(a)));
        }
        int64_t quotient = a / b;
        if (op == Op::kFLOOR_DIV && quotient * b != a && ((a < 0) != (b < 0)))
        {
            quotient -= 1;
        }
        return quotient;
    }
    case Op::kPOW:
        if (b >= 0)
        {
            return wrapTo(type, powerModulo(a, b));
        }
        if (a == 0)
        {
            return std::nullopt;
        }
        return a == 1 ? 1 : (a == -1 ? (b % 2 == 0 ? 1 : -1) : 0);
    case Op::kAND: return a != 0 && b != 0 ? 1 : 0;
    case Op::kOR: return a != 0 || b != 0 ? 1 : 0;
    case Op::kXOR: return (a != 0) != (b != 0) ? 1 : 0;
    case Op::kEQUAL: return a == b ? 1 : 0;
    case Op::kGREATER: return a > b ? 1 : 0;
    case Op::kLESS: return a < b ? 1 : 0;
    }
    return std::nullopt;
}

std::string opName(Op op)
{
    return findElementWiseOp(op)->name;
}

std::vector<Op> allOps()
{
    std::vector<Op> ops;
    for (ElementWiseOpInfo const& info : elementWiseOps())
    {
        ops.push_back(info.op);
    }
    return ops;
}

TEST(HostElementWise, TableCoversEveryOperationInOrder)
{
    ASSERT_EQ(elementWiseOps().size(), static_cast<std::size_t>(nvinfer1::EnumMax<ElementWiseOperation>()));
    for (std::size_t i = 0; i < elementWiseOps().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(elementWiseOps()[i].op), i);
        EXPECT_EQ(findElementWiseOp(static_cast<Op>(i)), &elementWiseOps()[i]);
    }
    EXPECT_EQ(findElementWiseOp(static_cast<Op>(14)), nullptr);
    EXPECT_EQ(findElementWiseOp(static_cast<Op>(-1)), nullptr);
}

//! The support matrix, spelled out: kAND/kOR/kXOR take kBOOL; the rest take the floating, scaled and 32/64-bit
//! integer types; comparisons and logic give kBOOL. Every other (operation, type) pair is refused by name.
TEST(HostElementWise, SupportMatrix)
{
    TypeSet const numeric = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8,
        DataType::kFP8, DataType::kINT32, DataType::kINT64});
    for (Op const op : allOps())
    {
        bool const logical = op == Op::kAND || op == Op::kOR || op == Op::kXOR;
        bool const comparison = op == Op::kEQUAL || op == Op::kGREATER || op == Op::kLESS;
        TypeSet const accepted = logical ? typeSet({DataType::kBOOL}) : numeric;
        EXPECT_EQ(findElementWiseOp(op)->inputs, accepted) << opName(op);
        for (DataType const type : allTypes())
        {
            Dims const shape{1, {3}};
            auto const desc = inferElementWise({op}, {type, shape}, {type, shape});
            if (contains(accepted, type))
            {
                ASSERT_TRUE(desc.ok()) << opName(op) << " " << dataTypeName(type) << ": " << desc.error().message;
                EXPECT_EQ(desc.value().type, logical || comparison ? DataType::kBOOL : type);
            }
            else
            {
                expectError(desc,
                    {opName(op) + ": does not accept " + dataTypeName(type) + " inputs", typeSetString(accepted)});
            }
        }
    }
}

class HostElementWiseRandom : public ::testing::TestWithParam<Op>
{
};

//! Random shapes (rank 0..5, extents 0..5, each input broadcasting in random dimensions) and values, for every type
//! the operation accepts.
TEST_P(HostElementWiseRandom, MatchesTheReference)
{
    Op const op = GetParam();
    ElementWiseOpInfo const& info = *findElementWiseOp(op);
    for (DataType const type : allTypes())
    {
        if (!contains(info.inputs, type))
        {
            continue;
        }
        for (uint32_t trial = 0; trial < 12; ++trial)
        {
            std::mt19937 rng(1000U * static_cast<uint32_t>(op) + 37U * static_cast<uint32_t>(type) + trial);
            Dims const full = randomShape(rng);
            Dims const aDims = broadcastInput(rng, full);
            Dims const bDims = broadcastInput(rng, full);
            Dims outDims = aDims;
            for (int32_t i = 0; i < outDims.nbDims; ++i)
            {
                outDims.d[i] = aDims.d[i] == 1 ? bDims.d[i] : aDims.d[i];
            }
            DataType const outType = info.boolOutput ? DataType::kBOOL : type;
            bool const scaled = contains(kScaledTypes, type);
            HostBuffer a(type, aDims, scaled ? randomScale(rng) : 1.0F);
            HostBuffer b(type, bDims, scaled ? randomScale(rng) : 1.0F);
            HostBuffer out(outType, outDims, outType == type && scaled ? randomScale(rng) : 1.0F);
            SCOPED_TRACE(opName(op) + " " + dataTypeName(type) + " trial " + std::to_string(trial) + ": "
                + shapeString(aDims) + " and " + shapeString(bDims));

            bool const floating = numberKind(type) == NumberKind::kFLOATING;
            if (floating)
            {
                fillFloating(rng, a, -4.0, 4.0);
                fillFloating(rng, b, -4.0, 4.0);
            }
            else
            {
                fillInteger(rng, a);
                fillInteger(rng, b);
                // Keep integer operands defined: no zero divisor, small exponents, no 0 to a negative power.
                auto* const bBytes = static_cast<std::byte*>(b.tensor().data);
                for (int64_t i = 0; i < elementCount(bDims); ++i)
                {
                    int64_t v = decodeInteger(type, bBytes, i);
                    if (op == Op::kPOW)
                    {
                        v = (v % 16 + 16) % 16 - 3; // exponents -3..12; a base of 0 is patched below
                    }
                    if ((op == Op::kDIV || op == Op::kFLOOR_DIV) && v == 0)
                    {
                        v = 1;
                    }
                    encodeInteger(type, bBytes, i, v);
                }
                if (op == Op::kPOW)
                {
                    auto* const aBytes = static_cast<std::byte*>(a.tensor().data);
                    for (int64_t i = 0; i < elementCount(aDims); ++i)
                    {
                        if (decodeInteger(type, aBytes, i) == 0)
                        {
                            encodeInteger(type, aBytes, i, 2);
                        }
                    }
                }
            }

            Status const status = runElementWise({op}, a.tensor(), b.tensor(), out.tensor());
            ASSERT_TRUE(status.ok()) << status.error().message;
            for (int64_t i = 0; i < elementCount(outDims); ++i)
            {
                int64_t const ia = broadcastSource(outDims, aDims, i);
                int64_t const ib = broadcastSource(outDims, bDims, i);
                if (floating)
                {
                    double const x = decode(type, bytesOf(a), ia, a.tensor().scale);
                    double const y = decode(type, bytesOf(b), ib, b.tensor().scale);
                    double const expected = referenceFloating(op, x, y);
                    double const actual = decode(outType, bytesOf(out), i, out.tensor().scale);
                    EXPECT_TRUE(matches(outType, expected, actual, out.tensor().scale))
                        << "element " << i << ": " << x << " and " << y << " gave " << actual << ", expected "
                        << expected;
                }
                else
                {
                    int64_t const x = decodeInteger(type, bytesOf(a), ia);
                    int64_t const y = decodeInteger(type, bytesOf(b), ib);
                    std::optional<int64_t> const expected = referenceInteger(op, x, y, outType);
                    ASSERT_TRUE(expected.has_value());
                    EXPECT_EQ(decodeInteger(outType, bytesOf(out), i), *expected)
                        << "element " << i << ": " << x << " and " << y;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryOperation, HostElementWiseRandom, ::testing::ValuesIn(allOps()),
    [](::testing::TestParamInfo<Op> const& param) { return opName(param.param).substr(1); });

//! Runs op on two equal-shaped vectors of values of type (at scale 1) and returns the output's values.
std::vector<double> run(Op op, DataType type, std::vector<double> const& x, std::vector<double> const& y,
    float outScale = 1.0F, float inScale = 1.0F)
{
    Dims const shape{1, {static_cast<int64_t>(x.size())}};
    HostBuffer a(type, shape, inScale);
    HostBuffer b(type, shape, inScale);
    DataType const outType = findElementWiseOp(op)->boolOutput ? DataType::kBOOL : type;
    HostBuffer out(outType, shape, outScale);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        encode(type, static_cast<std::byte*>(a.tensor().data), static_cast<int64_t>(i), x[i], inScale);
        encode(type, static_cast<std::byte*>(b.tensor().data), static_cast<int64_t>(i), y[i], inScale);
    }
    Status const status = runElementWise({op}, a.tensor(), b.tensor(), out.tensor());
    EXPECT_TRUE(status.ok()) << status.error().message;
    std::vector<double> result;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        result.push_back(decode(outType, bytesOf(out), static_cast<int64_t>(i), outScale));
    }
    return result;
}

//! Every pair of special values, for every operation on the plain floating types.
TEST(HostElementWise, SpecialValuesAgainstTheReference)
{
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        double const tiny = type == DataType::kHALF ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133);
        double const big = type == DataType::kHALF ? 65504.0 : 3.0e38;
        std::vector<double> const specials{0.0, -0.0, kInf, -kInf, kNan, 1.0, -1.0, tiny, -tiny, big, -big, 2.5, -7.0};
        std::vector<double> x;
        std::vector<double> y;
        for (double const p : specials)
        {
            for (double const q : specials)
            {
                x.push_back(p);
                y.push_back(q);
            }
        }
        for (ElementWiseOpInfo const& info : elementWiseOps())
        {
            if (!contains(info.inputs, type))
            {
                continue;
            }
            std::vector<double> const actual = run(info.op, type, x, y);
            DataType const outType = info.boolOutput ? DataType::kBOOL : type;
            for (std::size_t i = 0; i < x.size(); ++i)
            {
                double const expected = referenceFloating(info.op, x[i], y[i]);
                EXPECT_TRUE(matches(outType, expected, actual[i], 1.0F))
                    << info.name << " " << dataTypeName(type) << ": " << x[i] << ", " << y[i] << " gave " << actual[i]
                    << ", expected " << expected;
            }
        }
    }
}

TEST(HostElementWise, FloatingEdgeCases)
{
    auto const one
        = [](Op op, double a, double b, DataType type = DataType::kFLOAT) { return run(op, type, {a}, {b}).front(); };
    // kMAX / kMIN return the non-NaN operand, as TensorRT does; +0 is above -0.
    EXPECT_EQ(one(Op::kMAX, kNan, 1.0), 1.0);
    EXPECT_EQ(one(Op::kMAX, 1.0, kNan), 1.0);
    EXPECT_EQ(one(Op::kMIN, kNan, -3.0), -3.0);
    EXPECT_TRUE(std::isnan(one(Op::kMAX, kNan, kNan)));
    EXPECT_FALSE(std::signbit(one(Op::kMAX, -0.0, 0.0)));
    EXPECT_FALSE(std::signbit(one(Op::kMAX, 0.0, -0.0)));
    EXPECT_TRUE(std::signbit(one(Op::kMIN, 0.0, -0.0)));
    EXPECT_TRUE(std::signbit(one(Op::kMIN, -0.0, 0.0)));
    // Signed zeros and infinities follow IEEE.
    EXPECT_TRUE(std::signbit(one(Op::kSUM, -0.0, -0.0)));
    EXPECT_FALSE(std::signbit(one(Op::kSUM, -0.0, 0.0)));
    EXPECT_EQ(one(Op::kDIV, 1.0, -0.0), -kInf);
    EXPECT_TRUE(std::isnan(one(Op::kDIV, 0.0, 0.0)));
    EXPECT_TRUE(std::isnan(one(Op::kSUB, kInf, kInf)));
    EXPECT_EQ(one(Op::kPOW, 0.0, -1.0), kInf);
    EXPECT_TRUE(std::isnan(one(Op::kPOW, -8.0, 1.0 / 3.0)));
    EXPECT_EQ(one(Op::kPOW, -2.0, 3.0), -8.0);
    EXPECT_EQ(one(Op::kPOW, kNan, 0.0), 1.0);
    // kFLOOR_DIV floors; kDIV does not round.
    EXPECT_EQ(one(Op::kFLOOR_DIV, -7.0, 2.0), -4.0);
    EXPECT_EQ(one(Op::kFLOOR_DIV, 7.0, -2.0), -4.0);
    EXPECT_EQ(one(Op::kFLOOR_DIV, 7.0, 2.0), 3.0);
    EXPECT_EQ(one(Op::kFLOOR_DIV, -7.5, 2.5), -3.0);
    EXPECT_EQ(one(Op::kFLOOR_DIV, 1.0, 0.0), kInf);
    EXPECT_EQ(one(Op::kFLOOR_DIV, -1.0, 0.0), -kInf);
    EXPECT_EQ(one(Op::kDIV, -7.0, 2.0), -3.5);
    // Comparisons: NaN is unordered and unequal, -0 equals +0.
    EXPECT_EQ(one(Op::kEQUAL, kNan, kNan), 0.0);
    EXPECT_EQ(one(Op::kGREATER, kNan, 1.0), 0.0);
    EXPECT_EQ(one(Op::kLESS, kNan, 1.0), 0.0);
    EXPECT_EQ(one(Op::kEQUAL, -0.0, 0.0), 1.0);
    EXPECT_EQ(one(Op::kLESS, -kInf, -1e30), 1.0);
    // Subnormals are kept, and rounding happens once (in double, then to the output type).
    EXPECT_EQ(one(Op::kSUM, std::ldexp(1.0, -24), std::ldexp(1.0, -24), DataType::kHALF), std::ldexp(1.0, -23));
    EXPECT_EQ(one(Op::kPROD, std::ldexp(1.0, -149), 0.5), 0.0) << "a tie at the smallest subnormal goes to even 0";
    EXPECT_EQ(one(Op::kPROD, std::ldexp(1.0, -149), 1.5), std::ldexp(1.0, -148));
    EXPECT_EQ(one(Op::kSUM, 65504.0, 16.0, DataType::kHALF), kInf) << "65520 rounds to infinity in half";
    EXPECT_EQ(one(Op::kSUM, 65504.0, 15.0, DataType::kHALF), 65504.0);
    EXPECT_EQ(one(Op::kSUM, 1.0, std::ldexp(1.0, -11), DataType::kHALF), 1.0) << "a tie goes to even";
    EXPECT_EQ(one(Op::kSUM, 1.0, 3.0 * std::ldexp(1.0, -11), DataType::kHALF), 1.0 + std::ldexp(1.0, -9));
}

TEST(HostElementWise, IntegerEdgeCases)
{
    auto const int32 = [](Op op, int64_t a, int64_t b) {
        Dims const shape{0, {}};
        HostBuffer x(DataType::kINT32, shape), y(DataType::kINT32, shape);
        HostBuffer out(findElementWiseOp(op)->boolOutput ? DataType::kBOOL : DataType::kINT32, shape);
        encodeInteger(DataType::kINT32, static_cast<std::byte*>(x.tensor().data), 0, a);
        encodeInteger(DataType::kINT32, static_cast<std::byte*>(y.tensor().data), 0, b);
        EXPECT_TRUE(runElementWise({op}, x.tensor(), y.tensor(), out.tensor()).ok());
        return decodeInteger(out.tensor().type, bytesOf(out), 0);
    };
    constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
    constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
    EXPECT_EQ(int32(Op::kSUM, kMax32, 1), kMin32) << "wraps around";
    EXPECT_EQ(int32(Op::kSUB, kMin32, 1), kMax32);
    EXPECT_EQ(int32(Op::kPROD, 65536, 65536), 0);
    EXPECT_EQ(int32(Op::kPROD, kMax32, 2), -2);
    EXPECT_EQ(int32(Op::kDIV, kMin32, -1), kMin32);
    EXPECT_EQ(int32(Op::kFLOOR_DIV, kMin32, -1), kMin32);
    EXPECT_EQ(int32(Op::kDIV, -7, 2), -3) << "kDIV truncates toward zero";
    EXPECT_EQ(int32(Op::kFLOOR_DIV, -7, 2), -4) << "kFLOOR_DIV rounds down";
    EXPECT_EQ(int32(Op::kDIV, 7, -2), -3);
    EXPECT_EQ(int32(Op::kFLOOR_DIV, 7, -2), -4);
    EXPECT_EQ(int32(Op::kDIV, -7, -2), 3);
    EXPECT_EQ(int32(Op::kFLOOR_DIV, -7, -2), 3);
    EXPECT_EQ(int32(Op::kFLOOR_DIV, -8, 2), -4);
    EXPECT_EQ(int32(Op::kFLOOR_DIV, kMin32, 3), -715827883);
    EXPECT_EQ(int32(Op::kPOW, 2, 31), kMin32);
    EXPECT_EQ(int32(Op::kPOW, 3, 0), 1);
    EXPECT_EQ(int32(Op::kPOW, 0, 0), 1);
    EXPECT_EQ(int32(Op::kPOW, 2, -1), 0);
    EXPECT_EQ(int32(Op::kPOW, -1, -3), -1);
    EXPECT_EQ(int32(Op::kPOW, -1, -4), 1);
    EXPECT_EQ(int32(Op::kPOW, 1, -5), 1);
    EXPECT_EQ(int32(Op::kPOW, -3, 3), -27);
    EXPECT_EQ(int32(Op::kMAX, kMin32, kMax32), kMax32);
    EXPECT_EQ(int32(Op::kGREATER, kMax32, kMin32), 1);

    Dims const shape{1, {4}};
    HostBuffer x(DataType::kINT64, shape), y(DataType::kINT64, shape), out(DataType::kINT64, shape);
    std::vector<int64_t> const xs{
        std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), int64_t{1} << 62, 3};
    std::vector<int64_t> const ys{-1, 1, 2, 40};
    for (int64_t i = 0; i < 4; ++i)
    {
        encodeInteger(DataType::kINT64, static_cast<std::byte*>(x.tensor().data), i, xs[static_cast<std::size_t>(i)]);
        encodeInteger(DataType::kINT64, static_cast<std::byte*>(y.tensor().data), i, ys[static_cast<std::size_t>(i)]);
    }
    ASSERT_TRUE(runElementWise({Op::kDIV}, x.tensor(), y.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 0), std::numeric_limits<int64_t>::min());
    ASSERT_TRUE(runElementWise({Op::kSUM}, x.tensor(), y.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 1), std::numeric_limits<int64_t>::min());
    ASSERT_TRUE(runElementWise({Op::kPROD}, x.tensor(), y.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 2), std::numeric_limits<int64_t>::min());
    ASSERT_TRUE(runElementWise({Op::kPOW}, x.tensor(), y.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 3), powerModulo(3, 40));
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 3), static_cast<int64_t>(12157665459056928801ULL));
}

TEST(HostElementWise, IntegerDivisionByZeroIsRefusedAndWritesNothing)
{
    for (Op const op : {Op::kDIV, Op::kFLOOR_DIV, Op::kPOW})
    {
        for (DataType const type : {DataType::kINT32, DataType::kINT64})
        {
            Dims const shape{2, {2, 2}};
            HostBuffer x(type, shape), y(type, shape), out(type, shape);
            std::vector<int64_t> const xs{6, 7, op == Op::kPOW ? 0 : 5, 9};
            std::vector<int64_t> const ys{2, 1, op == Op::kPOW ? -2 : 0, 3};
            for (int64_t i = 0; i < 4; ++i)
            {
                encodeInteger(type, static_cast<std::byte*>(x.tensor().data), i, xs[static_cast<std::size_t>(i)]);
                encodeInteger(type, static_cast<std::byte*>(y.tensor().data), i, ys[static_cast<std::size_t>(i)]);
                encodeInteger(type, static_cast<std::byte*>(out.tensor().data), i, 77);
            }
            Status const status = runElementWise({op}, x.tensor(), y.tensor(), out.tensor());
            if (op == Op::kPOW)
            {
                expectError(status, {"kPOW: 0 to a negative power at output element 2 (0 and -2)"});
            }
            else
            {
                expectError(status, {opName(op) + ": integer division by zero at output element 2 (5 and 0)"});
            }
            for (int64_t i = 0; i < 4; ++i)
            {
                EXPECT_EQ(decodeInteger(type, bytesOf(out), i), 77) << "the output is untouched";
            }
        }
    }
}

TEST(HostElementWise, Int8IsDequantizedComputedAndRequantizedWithSaturation)
{
    // 127 + 127 at scale 1 saturates; at output scale 4 it is 254 / 4 = 63.5, which rounds half to even: 64.
    EXPECT_EQ(run(Op::kSUM, DataType::kINT8, {127.0}, {127.0}).front(), 127.0);
    EXPECT_EQ(run(Op::kSUM, DataType::kINT8, {127.0}, {127.0}, 4.0F).front(), 64.0 * 4.0);
    EXPECT_EQ(run(Op::kSUM, DataType::kINT8, {-128.0}, {-128.0}).front(), -128.0);
    EXPECT_EQ(run(Op::kSUB, DataType::kINT8, {-128.0}, {127.0}).front(), -128.0) << "-255 saturates";
    EXPECT_EQ(run(Op::kSUB, DataType::kINT8, {-128.0}, {127.0}, 2.0F).front(), -128.0 * 2.0) << "-127.5 goes to even";
    EXPECT_EQ(run(Op::kSUB, DataType::kINT8, {-128.0}, {126.0}, 2.0F).front(), -127.0 * 2.0);
    // Inputs at scale 0.25: 1.0 + 0.25 = 1.25, at output scale 0.5 is 2.5: ties to even 2, so 1.0.
    EXPECT_EQ(run(Op::kSUM, DataType::kINT8, {1.0}, {0.25}, 0.5F, 0.25F).front(), 1.0);
    EXPECT_EQ(run(Op::kSUM, DataType::kINT8, {1.0}, {0.5}, 0.5F, 0.25F).front(), 1.5);
    // Division by a zero INT8 value is floating: +inf saturates, NaN quantizes to 0.
    EXPECT_EQ(run(Op::kDIV, DataType::kINT8, {3.0}, {0.0}).front(), 127.0);
    EXPECT_EQ(run(Op::kDIV, DataType::kINT8, {-3.0}, {0.0}).front(), -128.0);
    EXPECT_EQ(run(Op::kDIV, DataType::kINT8, {0.0}, {0.0}).front(), 0.0);
    EXPECT_EQ(run(Op::kFLOOR_DIV, DataType::kINT8, {-7.0}, {2.0}).front(), -4.0);
    EXPECT_EQ(run(Op::kGREATER, DataType::kINT8, {3.0}, {2.0}).front(), 1.0);
    // FP8 storage saturates at 448 times the scale.
    EXPECT_EQ(run(Op::kSUM, DataType::kFP8, {448.0}, {448.0}).front(), 448.0);
    EXPECT_EQ(run(Op::kSUM, DataType::kFP8, {448.0}, {448.0}, 2.0F).front(), 896.0);
    EXPECT_EQ(run(Op::kPROD, DataType::kFP8, {-448.0}, {2.0}, 1.0F).front(), -448.0);
}

TEST(HostElementWise, BroadcastingShapes)
{
    // [2, 1] against [1, 3] gives [2, 3]: an outer sum.
    HostBuffer a(DataType::kFLOAT, Dims{2, {2, 1}}), b(DataType::kFLOAT, Dims{2, {1, 3}});
    HostBuffer out(DataType::kFLOAT, Dims{2, {2, 3}});
    for (int64_t i = 0; i < 2; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(a.tensor().data), i, 10.0 * static_cast<double>(i + 1), 1.0F);
    }
    for (int64_t i = 0; i < 3; ++i)
    {
        encode(DataType::kFLOAT, static_cast<std::byte*>(b.tensor().data), i, static_cast<double>(i + 1), 1.0F);
    }
    ASSERT_TRUE(runElementWise({Op::kSUM}, a.tensor(), b.tensor(), out.tensor()).ok());
    std::vector<double> const expected{11, 12, 13, 21, 22, 23};
    for (int64_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(decode(DataType::kFLOAT, bytesOf(out), i, 1.0F), expected[static_cast<std::size_t>(i)]);
    }

    auto const shape = [](Dims const& x, Dims const& y) {
        auto const desc = inferElementWise({Op::kSUM}, {DataType::kFLOAT, x}, {DataType::kFLOAT, y});
        return desc.ok() ? shapeString(desc.value().dims) : desc.error().message;
    };
    EXPECT_EQ(shape(Dims{0, {}}, Dims{0, {}}), "[]");
    EXPECT_EQ(shape(Dims{2, {0, 3}}, Dims{2, {1, 3}}), "[0, 3]");
    EXPECT_EQ(shape(Dims{1, {1}}, Dims{1, {0}}), "[0]");
    EXPECT_EQ(shape(Dims{5, {1, 2, 1, 4, 1}}, Dims{5, {3, 1, 1, 4, 5}}), "[3, 2, 1, 4, 5]");
    EXPECT_EQ(shape(Dims{8, {1, 1, 1, 1, 1, 1, 1, 2}}, Dims{8, {2, 1, 1, 1, 1, 1, 1, 1}}), "[2, 1, 1, 1, 1, 1, 1, 2]");

    // Empty output: nothing to compute, no data needed.
    HostTensor const emptyA{nullptr, DataType::kFLOAT, Dims{2, {0, 3}}};
    HostTensor const emptyB{nullptr, DataType::kFLOAT, Dims{2, {0, 1}}};
    Status const empty = runElementWise({Op::kSUM}, emptyA, emptyB, emptyA);
    EXPECT_TRUE(empty.ok()) << empty.error().message;
}

TEST(HostElementWise, InPlace)
{
    HostBuffer a(DataType::kINT32, Dims{1, {3}}), b(DataType::kINT32, Dims{1, {1}});
    for (int64_t i = 0; i < 3; ++i)
    {
        encodeInteger(DataType::kINT32, static_cast<std::byte*>(a.tensor().data), i, i + 1);
    }
    encodeInteger(DataType::kINT32, static_cast<std::byte*>(b.tensor().data), 0, 10);
    ASSERT_TRUE(runElementWise({Op::kPROD}, a.tensor(), b.tensor(), a.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT32, bytesOf(a), 2), 30);
}

TEST(HostElementWise, Refusals)
{
    Dims const s23{2, {2, 3}};
    auto const infer = [](Op op, DataType ta, Dims const& da, DataType tb, Dims const& db) {
        return inferElementWise({op}, {ta, da}, {tb, db});
    };
    expectError(infer(Op::kSUM, DataType::kFLOAT, s23, DataType::kFLOAT, Dims{1, {3}}),
        {"kSUM: shapes [2, 3] and [3] have different ranks (2 and 1)"});
    expectError(infer(Op::kSUM, DataType::kFLOAT, Dims{0, {}}, DataType::kFLOAT, Dims{1, {1}}),
        {"shapes [] and [1] have different ranks"});
    expectError(infer(Op::kPROD, DataType::kFLOAT, s23, DataType::kFLOAT, Dims{2, {4, 3}}),
        {"kPROD: shapes [2, 3] and [4, 3] do not broadcast: dimension 0 is 2 and 4"});
    expectError(infer(Op::kSUM, DataType::kINT32, Dims{1, {2}}, DataType::kINT32, Dims{1, {0}}),
        {"shapes [2] and [0] do not broadcast"});
    expectError(infer(Op::kSUM, DataType::kFLOAT, Dims{1, {-1}}, DataType::kFLOAT, Dims{1, {1}}),
        {"shape [-1] is not a concrete shape"});
    expectError(infer(Op::kSUM, DataType::kFLOAT, Dims{9, {}}, DataType::kFLOAT, Dims{9, {}}),
        {"shape (rank 9) is not a concrete shape"});
    expectError(infer(Op::kSUM, DataType::kFLOAT, s23, DataType::kHALF, s23),
        {"kSUM: inputs have different types, kFLOAT and kHALF"});
    expectError(infer(Op::kEQUAL, DataType::kINT32, s23, DataType::kINT64, s23),
        {"kEQUAL: inputs have different types, kINT32 and kINT64"});
    expectError(infer(Op::kAND, DataType::kFLOAT, s23, DataType::kFLOAT, s23),
        {"kAND: does not accept kFLOAT inputs (it takes kBOOL)"});
    expectError(infer(Op::kSUM, DataType::kBOOL, s23, DataType::kBOOL, s23), {"kSUM: does not accept kBOOL inputs"});
    expectError(infer(Op::kEQUAL, DataType::kBOOL, s23, DataType::kBOOL, s23), {"kEQUAL: does not accept kBOOL"});
    expectError(infer(Op::kSUM, DataType::kUINT8, s23, DataType::kUINT8, s23), {"kSUM: does not accept kUINT8"});
    expectError(infer(Op::kSUM, DataType::kINT4, s23, DataType::kINT4, s23), {"does not accept kINT4"});
    expectError(infer(Op::kSUM, DataType::kFLOAT, s23, DataType{42}, s23), {"does not accept unknown inputs"});
    expectError(
        infer(static_cast<Op>(99), DataType::kFLOAT, s23, DataType::kFLOAT, s23), {"unknown ElementWiseOperation 99"});

    HostBuffer a(DataType::kFLOAT, s23), b(DataType::kFLOAT, Dims{2, {1, 3}});
    HostBuffer floatOut(DataType::kFLOAT, s23), boolOut(DataType::kBOOL, s23),
        smallOut(DataType::kFLOAT, Dims{2, {1, 3}});
    expectError(runElementWise({Op::kEQUAL}, a.tensor(), b.tensor(), floatOut.tensor()),
        {"kEQUAL: the output is kFLOAT but must be kBOOL"});
    expectError(runElementWise({Op::kSUM}, a.tensor(), b.tensor(), boolOut.tensor()),
        {"kSUM: the output is kBOOL but must be kFLOAT"});
    expectError(runElementWise({Op::kSUM}, a.tensor(), b.tensor(), smallOut.tensor()),
        {"kSUM: the output has shape [1, 3] but inputs [2, 3] and [1, 3] broadcast to [2, 3]"});
    HostTensor noData = a.tensor();
    noData.data = nullptr;
    expectError(runElementWise({Op::kSUM}, noData, b.tensor(), floatOut.tensor()),
        {"kSUM: input 0 of shape [2, 3] has no data"});
    expectError(runElementWise({Op::kSUM}, a.tensor(), b.tensor(), HostTensor{nullptr, DataType::kFLOAT, s23}),
        {"kSUM: output of shape [2, 3] has no data"});

    HostBuffer q(DataType::kINT8, s23);
    for (float const bad :
        {0.0F, -1.0F, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
    {
        HostTensor badScale = q.tensor();
        badScale.scale = bad;
        expectError(runElementWise({Op::kSUM}, q.tensor(), badScale, q.tensor()),
            {"kSUM: input 1 (kINT8) has scale", "a quantization scale must be positive and finite"});
        expectError(runElementWise({Op::kSUM}, q.tensor(), q.tensor(), badScale), {"kSUM: output (kINT8) has scale"});
    }
}

} // namespace
} // namespace kiln::host::test
