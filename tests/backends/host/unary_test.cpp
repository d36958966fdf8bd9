// SPDX-License-Identifier: Apache-2.0
// The host unary kernel against expectations computed here with <cmath> in double (or exact integers), on random
// shapes of rank 0 to 5 and random values with special ones mixed in, for every operation and every type it accepts;
// rounding, sign, classification and integer edges; and every refusal with its message.
#include "backends/host/unary.h"

#include "host_test_util.h"

#include <cfenv>

namespace kiln::host::test
{
namespace
{

using Op = UnaryOperation;

static_assert(nvinfer1::EnumMax<UnaryOperation>() == 25, "a new operation needs its reference below");

//! The test's own reference for floating inputs (kROUND through std::nearbyint in the default rounding mode).
double referenceFloating(Op op, double x)
{
    switch (op)
    {
    case Op::kEXP: return std::exp(x);
    case Op::kLOG: return std::log(x);
    case Op::kSQRT: return std::sqrt(x);
    case Op::kRECIP: return 1.0 / x;
    case Op::kABS: return std::fabs(x);
    case Op::kNEG: return -x;
    case Op::kSIN: return std::sin(x);
    case Op::kCOS: return std::cos(x);
    case Op::kTAN: return std::tan(x);
    case Op::kSINH: return std::sinh(x);
    case Op::kCOSH: return std::cosh(x);
    case Op::kASIN: return std::asin(x);
    case Op::kACOS: return std::acos(x);
    case Op::kATAN: return std::atan(x);
    case Op::kASINH: return std::asinh(x);
    case Op::kACOSH: return std::acosh(x);
    case Op::kATANH: return std::atanh(x);
    case Op::kCEIL: return std::ceil(x);
    case Op::kFLOOR: return std::floor(x);
    case Op::kERF: return std::erf(x);
    case Op::kSIGN: return x == 0.0 || std::isnan(x) ? x : std::copysign(1.0, x);
    case Op::kROUND: return std::nearbyint(x);
    case Op::kISINF: return std::isinf(x) ? 1.0 : 0.0;
    case Op::kISNAN: return std::isnan(x) ? 1.0 : 0.0;
    case Op::kNOT: break;
    }
    return kNan;
}

//! The test's own reference for integer and bool inputs, in type (|INT_MIN| wraps to INT_MIN).
int64_t referenceInteger(Op op, int64_t x, DataType type)
{
    switch (op)
    {
    case Op::kABS:
        if (type == DataType::kINT32)
        {
            return static_cast<int32_t>(static_cast<uint32_t>(x < 0 ? -x : x));
        }
        return x == std::numeric_limits<int64_t>::min() ? x : (x < 0 ? -x : x);
    case Op::kSIGN: return (x > 0 ? 1 : 0) - (x < 0 ? 1 : 0);
    case Op::kNOT: return x == 0 ? 1 : 0;
    default: return 0;
    }
}

std::string opName(Op op)
{
    return findUnaryOp(op)->name;
}

std::vector<Op> allOps()
{
    std::vector<Op> ops;
    for (UnaryOpInfo const& info : unaryOps())
    {
        ops.push_back(info.op);
    }
    return ops;
}

TEST(HostUnary, TableCoversEveryOperationInOrder)
{
    ASSERT_EQ(unaryOps().size(), static_cast<std::size_t>(nvinfer1::EnumMax<UnaryOperation>()));
    for (std::size_t i = 0; i < unaryOps().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(unaryOps()[i].op), i);
        EXPECT_EQ(findUnaryOp(static_cast<Op>(i)), &unaryOps()[i]);
    }
    EXPECT_EQ(findUnaryOp(static_cast<Op>(25)), nullptr);
}

//! The support matrix, spelled out: kNOT takes kBOOL; kABS and kSIGN also take kINT32 and kINT64; kISINF and kISNAN
//! take the unscaled floating types and kFP8 and give kBOOL; the rest take kFLOAT, kHALF, kBF16, kINT8 and kFP8.
TEST(HostUnary, SupportMatrix)
{
    TypeSet const math = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8});
    for (Op const op : allOps())
    {
        TypeSet accepted = math;
        bool boolOutput = false;
        if (op == Op::kNOT)
        {
            accepted = typeSet({DataType::kBOOL});
            boolOutput = true;
        }
        else if (op == Op::kABS || op == Op::kSIGN)
        {
            accepted = math | typeSet({DataType::kINT32, DataType::kINT64});
        }
        else if (op == Op::kISINF || op == Op::kISNAN)
        {
            accepted = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8});
            boolOutput = true;
        }
        EXPECT_EQ(findUnaryOp(op)->inputs, accepted) << opName(op);
        for (DataType const type : allTypes())
        {
            auto const desc = inferUnary({op}, {type, Dims{2, {2, 2}}});
            if (contains(accepted, type))
            {
                ASSERT_TRUE(desc.ok()) << opName(op) << " " << dataTypeName(type) << ": " << desc.error().message;
                EXPECT_EQ(desc.value().type, boolOutput ? DataType::kBOOL : type);
            }
            else
            {
                expectError(
                    desc, {opName(op) + ": does not accept " + dataTypeName(type) + " input", typeSetString(accepted)});
            }
        }
    }
}

class HostUnaryRandom : public ::testing::TestWithParam<Op>
{
};

TEST_P(HostUnaryRandom, MatchesTheReference)
{
    ASSERT_EQ(std::fegetround(), FE_TONEAREST);
    Op const op = GetParam();
    UnaryOpInfo const& info = *findUnaryOp(op);
    for (DataType const type : allTypes())
    {
        if (!contains(info.inputs, type))
        {
            continue;
        }
        for (uint32_t trial = 0; trial < 12; ++trial)
        {
            std::mt19937 rng(5000U + 1000U * static_cast<uint32_t>(op) + 37U * static_cast<uint32_t>(type) + trial);
            Dims const dims = randomShape(rng);
            DataType const outType = info.boolOutput ? DataType::kBOOL : type;
            bool const scaled = contains(kScaledTypes, type);
            HostBuffer in(type, dims, scaled ? randomScale(rng) : 1.0F);
            HostBuffer out(outType, dims, outType == type && scaled ? randomScale(rng) : 1.0F);
            SCOPED_TRACE(
                opName(op) + " " + dataTypeName(type) + " trial " + std::to_string(trial) + ": " + shapeString(dims));
            bool const floating = numberKind(type) == NumberKind::kFLOATING;
            if (floating)
            {
                fillFloating(rng, in, -4.0, 4.0);
            }
            else
            {
                fillInteger(rng, in);
            }
            Status const status = runUnary({op}, in.tensor(), out.tensor());
            ASSERT_TRUE(status.ok()) << status.error().message;
            for (int64_t i = 0; i < elementCount(dims); ++i)
            {
                if (floating)
                {
                    double const x = decode(type, bytesOf(in), i, in.tensor().scale);
                    double const expected = referenceFloating(op, x);
                    double const actual = decode(outType, bytesOf(out), i, out.tensor().scale);
                    EXPECT_TRUE(matches(outType, expected, actual, out.tensor().scale))
                        << "element " << i << ": " << x << " gave " << actual << ", expected " << expected;
                }
                else
                {
                    int64_t const x = decodeInteger(type, bytesOf(in), i);
                    EXPECT_EQ(decodeInteger(outType, bytesOf(out), i), referenceInteger(op, x, outType))
                        << "element " << i << ": " << x;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryOperation, HostUnaryRandom, ::testing::ValuesIn(allOps()),
    [](::testing::TestParamInfo<Op> const& param) { return opName(param.param).substr(1); });

//! op applied to values stored as type (scale 1 unless given) and read back.
std::vector<double> run(Op op, DataType type, std::vector<double> const& x, float inScale = 1.0F, float outScale = 1.0F)
{
    Dims const shape{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in(type, shape, inScale);
    DataType const outType = findUnaryOp(op)->boolOutput ? DataType::kBOOL : type;
    HostBuffer out(outType, shape, outScale);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        encode(type, static_cast<std::byte*>(in.tensor().data), static_cast<int64_t>(i), x[i], inScale);
    }
    Status const status = runUnary({op}, in.tensor(), out.tensor());
    EXPECT_TRUE(status.ok()) << status.error().message;
    std::vector<double> result;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        result.push_back(decode(outType, bytesOf(out), static_cast<int64_t>(i), outScale));
    }
    return result;
}

double one(Op op, double x, DataType type = DataType::kFLOAT)
{
    return run(op, type, {x}).front();
}

TEST(HostUnary, RoundIsHalfToEven)
{
    std::vector<double> const x{0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 2.4999998, 2.5000002, 4194304.5, 4194305.5, -0.4};
    std::vector<double> const expected{0.0, 2.0, 2.0, 4.0, -0.0, -2.0, -2.0, 2.0, 3.0, 4194304.0, 4194306.0, -0.0};
    std::vector<double> const actual = run(Op::kROUND, DataType::kFLOAT, x);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        EXPECT_EQ(actual[i], expected[i]) << x[i];
        EXPECT_EQ(std::signbit(actual[i]), std::signbit(expected[i])) << x[i];
    }
    EXPECT_EQ(one(Op::kROUND, 1000.5, DataType::kHALF), 1000.0);
    EXPECT_EQ(one(Op::kROUND, 1001.5, DataType::kHALF), 1002.0);
    EXPECT_EQ(one(Op::kROUND, kInf), kInf);
    EXPECT_TRUE(std::isnan(one(Op::kROUND, kNan)));
}

TEST(HostUnary, SpecialValues)
{
    // Sign keeps ±0 and NaN.
    EXPECT_TRUE(std::signbit(one(Op::kSIGN, -0.0)));
    EXPECT_EQ(one(Op::kSIGN, -0.0), 0.0);
    EXPECT_FALSE(std::signbit(one(Op::kSIGN, 0.0)));
    EXPECT_TRUE(std::isnan(one(Op::kSIGN, kNan)));
    EXPECT_EQ(one(Op::kSIGN, -kInf), -1.0);
    EXPECT_EQ(one(Op::kSIGN, std::ldexp(1.0, -149)), 1.0) << "a subnormal has a sign";
    // Domains and poles.
    EXPECT_TRUE(std::isnan(one(Op::kSQRT, -1.0)));
    EXPECT_TRUE(std::signbit(one(Op::kSQRT, -0.0)));
    EXPECT_EQ(one(Op::kLOG, 0.0), -kInf);
    EXPECT_TRUE(std::isnan(one(Op::kLOG, -1.0)));
    EXPECT_EQ(one(Op::kRECIP, -0.0), -kInf);
    EXPECT_EQ(one(Op::kRECIP, kInf), 0.0);
    EXPECT_EQ(one(Op::kEXP, -kInf), 0.0);
    EXPECT_EQ(one(Op::kEXP, 89.0), kInf) << "e^89 overflows float";
    EXPECT_EQ(one(Op::kEXP, 12.0, DataType::kHALF), kInf) << "e^12 overflows half";
    EXPECT_EQ(one(Op::kEXP, 12.0, DataType::kBF16), static_cast<double>(bf16ToFloat(floatToBf16(162754.79F))));
    EXPECT_EQ(one(Op::kATANH, 1.0), kInf);
    EXPECT_EQ(one(Op::kACOSH, 1.0), 0.0);
    EXPECT_TRUE(std::isnan(one(Op::kASIN, 2.0)));
    EXPECT_TRUE(std::isnan(one(Op::kCOS, kInf)));
    EXPECT_EQ(one(Op::kERF, kInf), 1.0);
    EXPECT_EQ(one(Op::kNEG, 0.0), 0.0);
    EXPECT_TRUE(std::signbit(one(Op::kNEG, 0.0)));
    EXPECT_EQ(one(Op::kCEIL, -0.5), 0.0);
    EXPECT_TRUE(std::signbit(one(Op::kCEIL, -0.5)));
    EXPECT_EQ(one(Op::kFLOOR, -0.5), -1.0);
    EXPECT_EQ(one(Op::kABS, std::ldexp(-1.0, -24), DataType::kHALF), std::ldexp(1.0, -24)) << "subnormal half";
    // Classification.
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        EXPECT_EQ(run(Op::kISINF, type, {kInf, -kInf, kNan, 1.0, 0.0}), (std::vector<double>{1, 1, 0, 0, 0}));
        EXPECT_EQ(run(Op::kISNAN, type, {kInf, -kInf, kNan, 1.0, 0.0}), (std::vector<double>{0, 0, 1, 0, 0}));
    }
    EXPECT_EQ(run(Op::kISNAN, DataType::kFP8, {kNan, 448.0, 1000.0}), (std::vector<double>{1, 0, 0}));
    EXPECT_EQ(run(Op::kISINF, DataType::kFP8, {kInf, 448.0}), (std::vector<double>{0, 0})) << "E4M3 saturates";
}

TEST(HostUnary, ScaledInt8Saturates)
{
    // |-128| and -(-128) are 128, one past the INT8 range at scale 1.
    EXPECT_EQ(run(Op::kABS, DataType::kINT8, {-128.0}).front(), 127.0);
    EXPECT_EQ(run(Op::kNEG, DataType::kINT8, {-128.0}).front(), 127.0);
    EXPECT_EQ(run(Op::kNEG, DataType::kINT8, {-128.0}, 1.0F, 2.0F).front(), 128.0);
    // exp(1.5) = 4.48 at output scale 0.5 is 8.96 steps: 9 -> 4.5; exp(3) = 20.09 at scale 0.1 saturates at 12.7.
    EXPECT_FLOAT_EQ(static_cast<float>(run(Op::kEXP, DataType::kINT8, {1.5}, 0.5F, 0.5F).front()), 4.5F);
    EXPECT_FLOAT_EQ(static_cast<float>(run(Op::kEXP, DataType::kINT8, {3.0}, 1.0F, 0.1F).front()), 12.7F);
    EXPECT_EQ(run(Op::kLOG, DataType::kINT8, {0.0}).front(), -128.0) << "-inf saturates";
    EXPECT_EQ(run(Op::kSQRT, DataType::kINT8, {-1.0}).front(), 0.0) << "NaN quantizes to 0";
    EXPECT_EQ(run(Op::kROUND, DataType::kINT8, {2.5}, 0.5F, 1.0F).front(), 2.0);
}

TEST(HostUnary, IntegerEdges)
{
    for (DataType const type : {DataType::kINT32, DataType::kINT64})
    {
        bool const wide = type == DataType::kINT64;
        int64_t const lowest = wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
        int64_t const highest = wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
        Dims const shape{1, {5}};
        std::vector<int64_t> const x{lowest, highest, -5, 0, 7};
        HostBuffer in(type, shape), out(type, shape);
        for (int64_t i = 0; i < 5; ++i)
        {
            encodeInteger(type, static_cast<std::byte*>(in.tensor().data), i, x[static_cast<std::size_t>(i)]);
        }
        ASSERT_TRUE(runUnary({Op::kABS}, in.tensor(), out.tensor()).ok());
        std::vector<int64_t> const abs{lowest, highest, 5, 0, 7};
        ASSERT_TRUE(runUnary({Op::kSIGN}, in.tensor(), in.tensor()).ok()) << "in place";
        std::vector<int64_t> const sign{-1, 1, -1, 0, 1};
        for (int64_t i = 0; i < 5; ++i)
        {
            EXPECT_EQ(decodeInteger(type, bytesOf(out), i), abs[static_cast<std::size_t>(i)]) << "|INT_MIN| wraps";
            EXPECT_EQ(decodeInteger(type, bytesOf(in), i), sign[static_cast<std::size_t>(i)]);
        }
    }
    HostBuffer flags(DataType::kBOOL, Dims{1, {2}}), notFlags(DataType::kBOOL, Dims{1, {2}});
    encodeInteger(DataType::kBOOL, static_cast<std::byte*>(flags.tensor().data), 1, 1);
    ASSERT_TRUE(runUnary({Op::kNOT}, flags.tensor(), notFlags.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kBOOL, bytesOf(notFlags), 0), 1);
    EXPECT_EQ(decodeInteger(DataType::kBOOL, bytesOf(notFlags), 1), 0);
}

TEST(HostUnary, Refusals)
{
    Dims const shape{2, {2, 3}};
    expectError(inferUnary({Op::kNEG}, {DataType::kINT32, shape}), {"kNEG: does not accept kINT32 input"});
    expectError(
        inferUnary({Op::kNOT}, {DataType::kFLOAT, shape}), {"kNOT: does not accept kFLOAT input (it takes kBOOL)"});
    expectError(inferUnary({Op::kEXP}, {DataType::kBOOL, shape}), {"kEXP: does not accept kBOOL input"});
    expectError(inferUnary({Op::kEXP}, {DataType::kINT64, shape}), {"kEXP: does not accept kINT64 input"});
    expectError(inferUnary({Op::kISNAN}, {DataType::kINT8, shape}), {"kISNAN: does not accept kINT8 input"});
    expectError(inferUnary({Op::kISINF}, {DataType::kINT32, shape}), {"kISINF: does not accept kINT32 input"});
    expectError(inferUnary({Op::kABS}, {DataType::kUINT8, shape}), {"kABS: does not accept kUINT8 input"});
    expectError(inferUnary({Op::kABS}, {DataType::kFP4, shape}), {"kABS: does not accept kFP4 input"});
    expectError(inferUnary({static_cast<Op>(25)}, {DataType::kFLOAT, shape}), {"unknown UnaryOperation 25"});
    expectError(inferUnary({Op::kEXP}, {DataType::kFLOAT, Dims{2, {2, -3}}}),
        {"kEXP: input shape [2, -3] is not a concrete shape"});

    HostBuffer in(DataType::kHALF, shape), floatOut(DataType::kFLOAT, shape), boolOut(DataType::kBOOL, shape);
    HostBuffer wrongShape(DataType::kHALF, Dims{2, {3, 2}});
    expectError(runUnary({Op::kISNAN}, in.tensor(), in.tensor()), {"kISNAN: the output is kHALF but must be kBOOL"});
    expectError(runUnary({Op::kEXP}, in.tensor(), floatOut.tensor()), {"kEXP: the output is kFLOAT but must be kHALF"});
    expectError(runUnary({Op::kEXP}, in.tensor(), wrongShape.tensor()),
        {"kEXP: the output has shape [3, 2] but the input has shape [2, 3]"});
    expectError(runUnary({Op::kEXP}, HostTensor{nullptr, DataType::kHALF, shape}, in.tensor()),
        {"kEXP: input of shape [2, 3] has no data"});
    HostBuffer q(DataType::kINT8, shape);
    HostTensor badScale = q.tensor();
    badScale.scale = -0.5F;
    expectError(
        runUnary({Op::kEXP}, badScale, q.tensor()), {"kEXP: input (kINT8) has scale -0.5", "positive and finite"});
}

} // namespace
} // namespace kiln::host::test
