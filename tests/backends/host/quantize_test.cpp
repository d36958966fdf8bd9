// SPDX-License-Identifier: Apache-2.0
// The host quantize and dequantize against a definition computed here: the quotient x / s in float, rounded half to
// even with std::nearbyint, the zero point added, clamped to the type's range; FP8 codes checked as the nearest E4M3
// value by a search over all 256 codes (ties to the even code, saturation at +-448); dequantization (q - z) * s in
// float. Hand-made cases for rounding ties, saturation, NaN, signed zeros, packed INT4 and each granularity (per
// tensor, per axis with positive and negative axes, per block with and without a block shape); random shapes, types
// and granularities; and every refusal.
#include "backends/host/quantize.h"

#include "host_test_util.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace kiln::host::test
{
namespace
{

//! A buffer of type and dims holding values: floating types encoded through float_convert; code types taken as the
//! codes themselves (kINT8 and kINT4 integers, kFP8 bit patterns).
HostBuffer tensorOf(DataType type, Dims const& dims, std::vector<double> const& values)
{
    HostBuffer buffer(type, dims);
    EXPECT_EQ(static_cast<int64_t>(values.size()), elementCount(dims));
    auto* bytes = reinterpret_cast<uint8_t*>(buffer.bytes().data());
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        switch (type)
        {
        case DataType::kINT8: bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(values[i])); break;
        case DataType::kFP8: bytes[i] = static_cast<uint8_t>(values[i]); break;
        case DataType::kINT4:
        {
            uint8_t const code = static_cast<uint8_t>(static_cast<int32_t>(values[i]) & 0xF);
            bytes[i / 2] = static_cast<uint8_t>(bytes[i / 2] | (i % 2 == 0 ? code : code << 4));
            break;
        }
        default: encode(type, buffer.bytes().data(), static_cast<int64_t>(i), values[i], 1.F);
        }
    }
    return buffer;
}

//! The codes of a kINT8, kFP8 (bit patterns) or kINT4 buffer.
std::vector<int32_t> codesOf(HostBuffer& buffer)
{
    HostTensor const& t = buffer.tensor();
    auto const* bytes = reinterpret_cast<uint8_t const*>(buffer.bytes().data());
    std::vector<int32_t> codes;
    for (int64_t i = 0; i < elementCount(t); ++i)
    {
        switch (t.type)
        {
        case DataType::kINT8: codes.push_back(static_cast<int8_t>(bytes[i])); break;
        case DataType::kFP8: codes.push_back(bytes[i]); break;
        default:
        {
            int32_t const nibbleValue = (i % 2 == 0 ? bytes[i / 2] : bytes[i / 2] >> 4) & 0xF;
            codes.push_back(nibbleValue >= 8 ? nibbleValue - 16 : nibbleValue);
        }
        }
    }
    return codes;
}

//! The values of a floating buffer.
std::vector<double> valuesOf(HostBuffer& buffer)
{
    std::vector<double> values;
    for (int64_t i = 0; i < elementCount(buffer.tensor()); ++i)
    {
        values.push_back(decode(buffer.tensor().type, buffer.bytes().data(), i, 1.F));
    }
    return values;
}

//! The E4M3 value of a code, computed from the format's definition (bias 7, 3 mantissa bits, S.1111.111 NaN).
double e4m3Value(int32_t code)
{
    int32_t const exponent = (code >> 3) & 0xF;
    int32_t const mantissa = code & 0x7;
    if (exponent == 0xF && mantissa == 0x7)
    {
        return kNan;
    }
    double const magnitude
        = exponent == 0 ? std::ldexp(mantissa, -9) : std::ldexp(8 + mantissa, exponent - 10); // 2^(e-7) * (1 + m/8)
    return (code & 0x80) != 0 ? -magnitude : magnitude;
}

//! The E4M3 code nearest v (ties to the even code), saturated at +-448; NaN gives 0x7F. By search over every code.
int32_t nearestE4M3(float v)
{
    if (std::isnan(v))
    {
        return 0x7F;
    }
    if (std::fabs(v) > 448.F)
    {
        return v > 0 ? 0x7E : 0xFE;
    }
    int32_t best = -1;
    double bestDistance = kInf;
    for (int32_t code = 0; code < 256; ++code)
    {
        double const value = e4m3Value(code);
        bool const sameSign = std::signbit(value) == std::signbit(v);
        if (std::isnan(value) || !sameSign)
        {
            continue; // the sign is v's (so -0 stays -0)
        }
        double const distance = std::fabs(value - static_cast<double>(v));
        if (distance < bestDistance || (distance == bestDistance && (code & 1) == 0))
        {
            best = code;
            bestDistance = distance;
        }
    }
    return best;
}

//! The code of quotient (x / s, in float) with zero point z for type.
int32_t expectedCode(DataType type, float quotient, std::optional<double> z)
{
    if (type == DataType::kFP8)
    {
        return nearestE4M3(z ? quotient + static_cast<float>(e4m3Value(static_cast<int32_t>(*z))) : quotient);
    }
    double const low = type == DataType::kINT4 ? -8 : -128;
    double const high = type == DataType::kINT4 ? 7 : 127;
    double const zero = z.value_or(0.0);
    if (std::isnan(quotient))
    {
        return static_cast<int32_t>(zero);
    }
    EXPECT_EQ(std::fegetround(), FE_TONEAREST);
    double const rounded = std::nearbyint(static_cast<double>(quotient)); // ties to even
    return static_cast<int32_t>(std::clamp(rounded + zero, low, high));
}

//! The scale index of element index of an input of shape in, by coordinates (independently of ScaleMap): per tensor,
//! per axis, or per block of extents blocks.
int64_t scaleIndex(Dims const& in, Dims const& scale, std::optional<int32_t> axis, Dims const& blocks, int64_t index)
{
    std::vector<int64_t> coordinate(static_cast<std::size_t>(in.nbDims));
    for (int32_t i = in.nbDims - 1; i >= 0; --i)
    {
        coordinate[static_cast<std::size_t>(i)] = index % in.d[i];
        index /= in.d[i];
    }
    if (scale.nbDims == 0)
    {
        return 0;
    }
    if (axis)
    {
        return coordinate[static_cast<std::size_t>(*axis)];
    }
    int64_t at = 0;
    for (int32_t i = 0; i < in.nbDims; ++i)
    {
        at = at * scale.d[i] + coordinate[static_cast<std::size_t>(i)] / blocks.d[i];
    }
    return at;
}

//! One random case: shapes and how the scale maps onto the input.
struct Granularity
{
    Dims scale{0, {}};
    int32_t axis{-1};                //!< The layer's axis (may be negative).
    std::optional<int32_t> axisUsed; //!< Per axis: the axis, non-negative.
    Dims blocks{0, {}};              //!< Per block: the block extents.
    Dims blockShape{-1, {}};         //!< The layer's block shape (unset: inferred from the shapes).
};

Granularity randomGranularity(std::mt19937& rng, Dims const& in)
{
    Granularity g;
    uint32_t const kind = in.nbDims == 0 ? 0 : rng() % 4;
    if (kind == 1)
    {
        int32_t const axis = static_cast<int32_t>(rng() % static_cast<uint32_t>(in.nbDims));
        g.axisUsed = axis;
        g.axis = rng() % 2 == 0 ? axis : axis - in.nbDims;
        g.scale = Dims{1, {in.d[axis]}};
    }
    else if (kind >= 2)
    {
        bool const explicitShape = kind == 3 || in.nbDims == 1;
        g.scale = Dims{in.nbDims, {}};
        g.blocks = Dims{in.nbDims, {}};
        if (explicitShape)
        {
            g.blockShape = Dims{in.nbDims, {}};
        }
        for (int32_t i = 0; i < in.nbDims; ++i)
        {
            int64_t const extent = in.d[i];
            if (explicitShape)
            {
                int64_t const block = rng() % 4 == 0 ? -1 : 1 + static_cast<int64_t>(rng() % 3);
                g.blockShape.d[i] = block;
                g.blocks.d[i] = block == -1 ? std::max<int64_t>(extent, 1) : block;
                g.scale.d[i] = block == -1 ? 1 : (extent + block - 1) / block;
            }
            else
            {
                // A divisor of the extent as the scale's extent.
                std::vector<int64_t> divisors;
                for (int64_t d = 1; d <= std::max<int64_t>(extent, 1); ++d)
                {
                    if (extent % d == 0)
                    {
                        divisors.push_back(d);
                    }
                }
                g.scale.d[i] = extent == 0 ? 1 : divisors[rng() % divisors.size()];
                g.blocks.d[i] = extent == 0 ? 1 : extent / g.scale.d[i];
            }
        }
    }
    return g;
}

TEST(HostQuantize, Int8RoundsHalfToEvenAndSaturates)
{
    std::vector<double> const x{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, 126.5, 127.5, 300, -128.5, -300, kNan, kInf};
    Dims const dims{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in = tensorOf(DataType::kFLOAT, dims, x);
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{0, {}}, {1.0});
    HostBuffer out(DataType::kINT8, dims);
    ASSERT_TRUE(runQuantize(QuantizeParams{}, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok());
    EXPECT_EQ(codesOf(out), (std::vector<int32_t>{0, 2, 2, 0, -2, -2, 2, 126, 127, 127, -128, -128, 0, 127}));

    // With a scale: the ties are those of the quotient, 0.75 / 0.5 = 1.5 -> 2 and 1.25 / 0.5 = 2.5 -> 2.
    HostBuffer in2 = tensorOf(DataType::kFLOAT, Dims{1, {3}}, {0.3, 0.75, 1.25});
    HostBuffer scale2 = tensorOf(DataType::kFLOAT, Dims{0, {}}, {0.5});
    HostBuffer out2(DataType::kINT8, Dims{1, {3}});
    ASSERT_TRUE(runQuantize(QuantizeParams{}, in2.tensor(), scale2.tensor(), nullptr, out2.tensor()).ok());
    EXPECT_EQ(codesOf(out2), (std::vector<int32_t>{1, 2, 2}));
}

TEST(HostQuantize, PerAxisWithPositiveAndNegativeAxes)
{
    Dims const dims{3, {2, 3, 2}};
    std::vector<double> x(12);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<double>(i) - 5.0;
    }
    HostBuffer in = tensorOf(DataType::kHALF, dims, x);
    HostBuffer scale = tensorOf(DataType::kBF16, Dims{1, {3}}, {1.0, 2.0, 0.5});
    std::vector<int32_t> expected;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        double const s = (i / 2 % 3 == 0) ? 1.0 : (i / 2 % 3 == 1 ? 2.0 : 0.5);
        expected.push_back(expectedCode(DataType::kINT8, static_cast<float>(x[i] / s), std::nullopt));
    }
    for (int32_t axis : {1, -2})
    {
        HostBuffer out(DataType::kINT8, dims);
        QuantizeParams const params{axis, Dims{-1, {}}, DataType::kINT8};
        ASSERT_TRUE(runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok()) << axis;
        EXPECT_EQ(codesOf(out), expected) << axis;

        HostBuffer back(DataType::kFLOAT, dims);
        DequantizeParams const dq{axis, Dims{-1, {}}, DataType::kFLOAT};
        ASSERT_TRUE(runDequantize(dq, out.tensor(), scale.tensor(), nullptr, back.tensor()).ok());
        std::vector<double> const values = valuesOf(back);
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            double const s = (i / 2 % 3 == 0) ? 1.0 : (i / 2 % 3 == 1 ? 2.0 : 0.5);
            EXPECT_EQ(values[i], expected[i] * s) << i;
        }
    }
}

// A 1-D scale of one element is the tensor's one scale on every axis (TensorRT's per-tensor scale), not a per-axis
// scale that would need the axis to have one index.
TEST(HostQuantize, AOneElementScaleIsPerTensor)
{
    Dims const dims{2, {1, 8}};
    HostBuffer in = tensorOf(DataType::kFLOAT, dims, {0.25, 0.75, 1.25, -0.75, 63.5, 64.5, 100.0, -100.0});
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {0.5});
    for (int32_t axis : {-1, 0, 1})
    {
        HostBuffer out(DataType::kINT8, dims);
        QuantizeParams const params{axis, Dims{-1, {}}, DataType::kINT8};
        ASSERT_TRUE(runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok()) << axis;
        // Quotients 0.5, 1.5, 2.5, -1.5, 127, 129, 200, -200: ties to even, then saturated to [-128, 127].
        EXPECT_EQ(codesOf(out), (std::vector<int32_t>{0, 2, 2, -2, 127, 127, 127, -128})) << axis;
        HostBuffer back(DataType::kFLOAT, dims);
        DequantizeParams const dq{axis, Dims{-1, {}}, DataType::kFLOAT};
        ASSERT_TRUE(runDequantize(dq, out.tensor(), scale.tensor(), nullptr, back.tensor()).ok()) << axis;
        EXPECT_EQ(valuesOf(back), (std::vector<double>{0, 1, 1, -1, 63.5, 63.5, 63.5, -64})) << axis;
    }
}

TEST(HostQuantize, Fp8RoundsToNearestEvenAndSaturates)
{
    std::vector<double> const x{
        0.0, -0.0, 1.0, 1.0625, 1.1875, 17.0, 464.0, 500.0, -1000.0, kInf, -kInf, kNan, 0.001953125, 0.0009765625};
    Dims const dims{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in = tensorOf(DataType::kFLOAT, dims, x);
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{0, {}}, {1.0});
    HostBuffer out(DataType::kFP8, dims);
    QuantizeParams const params{-1, Dims{-1, {}}, DataType::kFP8};
    ASSERT_TRUE(runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok());
    // 1.0625 ties between 1 (0x38) and 1.125 (0x39): even 0x38; 1.1875 between 1.125 and 1.25: even 0x3A; 17 between
    // 16 and 18: 16 (0x58); 464 and beyond saturate at 448 (0x7E); 2^-9 is the smallest subnormal (0x01); 2^-10 ties
    // with 0: 0.
    EXPECT_EQ(codesOf(out),
        (std::vector<int32_t>{0x00, 0x80, 0x38, 0x38, 0x3A, 0x58, 0x7E, 0x7E, 0xFE, 0x7E, 0xFE, 0x7F, 0x01, 0x00}));

    HostBuffer back(DataType::kFLOAT, dims);
    ASSERT_TRUE(runDequantize(DequantizeParams{}, out.tensor(), scale.tensor(), nullptr, back.tensor()).ok());
    std::vector<double> const values = valuesOf(back);
    EXPECT_EQ(values[3], 1.0);
    EXPECT_EQ(values[6], 448.0);
    EXPECT_EQ(values[8], -448.0);
    EXPECT_TRUE(std::isnan(values[11]));
    EXPECT_TRUE(std::signbit(values[1]));
}

TEST(HostQuantize, Int4PacksTwoCodesToAByteAndSaturates)
{
    std::vector<double> const x{-9.0, -8.0, -2.5, 0.5, 3.5, 7.0, 7.5};
    Dims const dims{1, {7}};
    HostBuffer in = tensorOf(DataType::kFLOAT, dims, x);
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{0, {}}, {1.0});
    HostBuffer out(DataType::kINT4, dims);
    std::memset(out.bytes().data(), 0xFF, out.bytes().size()); // the kernel clears the last high nibble itself
    QuantizeParams const params{-1, Dims{-1, {}}, DataType::kINT4};
    ASSERT_TRUE(runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok());
    EXPECT_EQ(codesOf(out), (std::vector<int32_t>{-8, -8, -2, 0, 4, 7, 7}));
    ASSERT_EQ(out.bytes().size(), 4U);
    EXPECT_EQ(static_cast<uint8_t>(out.bytes()[0]), 0x88); // -8, -8
    EXPECT_EQ(static_cast<uint8_t>(out.bytes()[3]), 0x07); // 7, then the unused high nibble 0

    HostBuffer back(DataType::kHALF, dims);
    ASSERT_TRUE(runDequantize(
        DequantizeParams{-1, Dims{-1, {}}, DataType::kHALF}, out.tensor(), scale.tensor(), nullptr, back.tensor())
                    .ok());
    EXPECT_EQ(valuesOf(back), (std::vector<double>{-8, -8, -2, 0, 4, 7, 7}));
}

TEST(HostQuantize, BlockScalesWithAndWithoutABlockShape)
{
    // [4, 6] in blocks of [2, 2]: a [2, 3] scale.
    Dims const dims{2, {4, 6}};
    std::vector<double> x(24, 6.0);
    HostBuffer in = tensorOf(DataType::kFLOAT, dims, x);
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {1.0, 2.0, 3.0, 0.5, 6.0, 4.0});
    HostBuffer out(DataType::kINT8, dims);
    ASSERT_TRUE(runQuantize(QuantizeParams{}, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok());
    std::vector<int32_t> const codes = codesOf(out);
    std::vector<int32_t> const row0{6, 6, 3, 3, 2, 2};
    std::vector<int32_t> const row2{12, 12, 1, 1, 2, 2}; // 6 / 6 = 1, 6 / 4 = 1.5 -> 2
    for (int32_t r = 0; r < 4; ++r)
    {
        std::vector<int32_t> const row(codes.begin() + r * 6, codes.begin() + r * 6 + 6);
        EXPECT_EQ(row, r < 2 ? row0 : row2) << r;
    }

    // [5] in blocks of 3 (ceil(5 / 3) = 2 scales): elements 0-2 use scale 0, 3-4 scale 1.
    HostBuffer in1 = tensorOf(DataType::kFLOAT, Dims{1, {5}}, {4, 4, 4, 4, 4});
    HostBuffer scale1 = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1.0, 2.0});
    HostBuffer out1(DataType::kINT8, Dims{1, {5}});
    QuantizeParams const params{-1, Dims{1, {3}}, DataType::kINT8};
    ASSERT_TRUE(runQuantize(params, in1.tensor(), scale1.tensor(), nullptr, out1.tensor()).ok());
    EXPECT_EQ(codesOf(out1), (std::vector<int32_t>{4, 4, 4, 2, 2}));
    // -1: the whole axis is one block.
    HostBuffer whole = tensorOf(DataType::kFLOAT, Dims{1, {1}}, {2.0});
    QuantizeParams const wholeParams{-1, Dims{1, {-1}}, DataType::kINT8};
    ASSERT_TRUE(runQuantize(wholeParams, in1.tensor(), whole.tensor(), nullptr, out1.tensor()).ok());
    EXPECT_EQ(codesOf(out1), (std::vector<int32_t>{2, 2, 2, 2, 2}));
}

TEST(HostQuantize, ZeroPointsShiftTheCodes)
{
    // The layers accept only zero points of zeros; the kernels compute the definition for any.
    HostBuffer in = tensorOf(DataType::kFLOAT, Dims{2, {2, 3}}, {-1, 0, 1, 200, -100, 2.5});
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1.0, 1.0});
    HostBuffer zero = tensorOf(DataType::kINT8, Dims{1, {2}}, {10, -100});
    HostBuffer out(DataType::kINT8, Dims{2, {2, 3}});
    QuantizeParams const params{0, Dims{-1, {}}, DataType::kINT8};
    HostTensor const zeroView = zero.tensor();
    ASSERT_TRUE(runQuantize(params, in.tensor(), scale.tensor(), &zeroView, out.tensor()).ok());
    EXPECT_EQ(codesOf(out), (std::vector<int32_t>{9, 10, 11, 100, -128, -98}));

    HostBuffer back(DataType::kFLOAT, Dims{2, {2, 3}});
    ASSERT_TRUE(runDequantize(
        DequantizeParams{0, Dims{-1, {}}, DataType::kFLOAT}, out.tensor(), scale.tensor(), &zeroView, back.tensor())
                    .ok());
    EXPECT_EQ(valuesOf(back), (std::vector<double>{-1, 0, 1, 200, -28, 2}));

    // FP8: x / s + z, so -0 + 0 gives +0, as ONNX defines it; without a zero point -0 stays -0.
    HostBuffer negativeZero = tensorOf(DataType::kFLOAT, Dims{0, {}}, {-0.0});
    HostBuffer one = tensorOf(DataType::kFLOAT, Dims{0, {}}, {1.0});
    HostBuffer fp8Zero = tensorOf(DataType::kFP8, Dims{0, {}}, {0x00});
    HostBuffer code(DataType::kFP8, Dims{0, {}});
    HostTensor const fp8ZeroView = fp8Zero.tensor();
    QuantizeParams const fp8{-1, Dims{-1, {}}, DataType::kFP8};
    ASSERT_TRUE(runQuantize(fp8, negativeZero.tensor(), one.tensor(), &fp8ZeroView, code.tensor()).ok());
    EXPECT_EQ(codesOf(code), std::vector<int32_t>{0x00});
    ASSERT_TRUE(runQuantize(fp8, negativeZero.tensor(), one.tensor(), nullptr, code.tensor()).ok());
    EXPECT_EQ(codesOf(code), std::vector<int32_t>{0x80});
}

TEST(HostQuantize, TheTensorsOwnScaleIsNotUsed)
{
    // Q/DQ tensors hold codes: a view's scale (kiln's implicit-quantization convention) changes nothing.
    HostBuffer in = tensorOf(DataType::kFLOAT, Dims{1, {3}}, {1, 2, 3});
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{0, {}}, {0.5});
    HostBuffer out(DataType::kINT8, Dims{1, {3}}, 7.F);
    ASSERT_TRUE(runQuantize(QuantizeParams{}, in.tensor(), scale.tensor(), nullptr, out.tensor()).ok());
    EXPECT_EQ(codesOf(out), (std::vector<int32_t>{2, 4, 6}));
}

TEST(HostQuantize, MatchesTheDefinitionOnRandomInputs)
{
    std::mt19937 rng(20261122);
    DataType const floats[] = {DataType::kFLOAT, DataType::kHALF, DataType::kBF16};
    DataType const codes[] = {DataType::kINT8, DataType::kFP8, DataType::kINT4};
    for (int32_t round = 0; round < 300; ++round)
    {
        Dims const dims = randomShape(rng, 200);
        Granularity const g = randomGranularity(rng, dims);
        DataType const inType = floats[rng() % 3];
        DataType const scaleType = floats[rng() % 3];
        DataType const codeType = codes[rng() % 3];
        DataType const outType = floats[rng() % 3];
        SCOPED_TRACE(shapeString(dims) + " scale " + shapeString(g.scale) + " block shape " + shapeString(g.blockShape)
            + " axis " + std::to_string(g.axis) + " " + dataTypeName(inType) + " -> " + dataTypeName(codeType));

        HostBuffer in(inType, dims);
        fillFloating(rng, in, -300.0, 300.0);
        HostBuffer scale(scaleType, g.scale);
        fillFloating(rng, scale, 0.05, 4.0, false);
        HostBuffer out(codeType, dims);
        QuantizeParams const params{g.axis, g.blockShape, codeType};
        Status const done = runQuantize(params, in.tensor(), scale.tensor(), nullptr, out.tensor());
        ASSERT_TRUE(done.ok()) << done.error().message;

        std::vector<int32_t> const got = codesOf(out);
        std::vector<double> const x = valuesOf(in);
        std::vector<double> const s = valuesOf(scale);
        std::vector<int32_t> expected;
        for (int64_t i = 0; i < elementCount(dims); ++i)
        {
            int64_t const at = scaleIndex(dims, g.scale, g.axisUsed, g.blocks, i);
            float const quotient = static_cast<float>(x[static_cast<std::size_t>(i)])
                / static_cast<float>(s[static_cast<std::size_t>(at)]);
            expected.push_back(expectedCode(codeType, quotient, std::nullopt));
        }
        ASSERT_EQ(got, expected);

        // Dequantized: (q - 0) * s in float, rounded to the output type.
        HostBuffer back(outType, dims);
        DequantizeParams const dq{g.axis, g.blockShape, outType};
        Status const undone = runDequantize(dq, out.tensor(), scale.tensor(), nullptr, back.tensor());
        ASSERT_TRUE(undone.ok()) << undone.error().message;
        std::vector<double> const values = valuesOf(back);
        for (int64_t i = 0; i < elementCount(dims); ++i)
        {
            auto const u = static_cast<std::size_t>(i);
            int64_t const at = scaleIndex(dims, g.scale, g.axisUsed, g.blocks, i);
            double const q = codeType == DataType::kFP8 ? e4m3Value(got[u]) : got[u];
            float const product = static_cast<float>(q) * static_cast<float>(s[static_cast<std::size_t>(at)]);
            double const want = roundTo(outType, product, 1.F);
            if (std::isnan(want))
            {
                EXPECT_TRUE(std::isnan(values[u])) << i;
            }
            else
            {
                EXPECT_EQ(values[u], want) << i;
            }
        }
    }
}

TEST(HostQuantize, Refusals)
{
    TensorDesc const x{DataType::kFLOAT, Dims{2, {2, 3}}};
    TensorDesc const scalar{DataType::kFLOAT, Dims{0, {}}};
    auto const quantizeError = [&](QuantizeParams const& params, TensorDesc const& in, TensorDesc const& scale,
                                   TensorDesc const* zero = nullptr) {
        Expected<TensorDesc> const made = inferQuantize(params, in, scale, zero);
        return made ? std::string("accepted") : made.error().message;
    };
    auto const has
        = [](std::string const& text, char const* fragment) { return text.find(fragment) != std::string::npos; };
    EXPECT_TRUE(has(quantizeError(QuantizeParams{}, TensorDesc{DataType::kINT32, x.dims}, scalar),
        "quantize: the input is kINT32; it must be kFLOAT, kHALF, kBF16"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{-1, Dims{-1, {}}, DataType::kUINT8}, x, scalar),
        "the output type kUINT8 is not kINT8, kFP8, kINT4"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{}, x, TensorDesc{DataType::kINT8, Dims{0, {}}}),
        "the scale is kINT8; it must be kFLOAT, kHALF, kBF16"));
    EXPECT_TRUE(has(
        quantizeError(QuantizeParams{2, Dims{-1, {}}, DataType::kINT8}, x, TensorDesc{DataType::kFLOAT, Dims{1, {3}}}),
        "axis 2 is outside [-2, 2) for the input [2, 3]"));
    EXPECT_TRUE(has(
        quantizeError(QuantizeParams{0, Dims{-1, {}}, DataType::kINT8}, x, TensorDesc{DataType::kFLOAT, Dims{1, {3}}}),
        "the 1-D scale has 3 elements but the input [2, 3] has 2 along axis 0"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{}, x, TensorDesc{DataType::kFLOAT, Dims{2, {2, 2}}}),
        "the scale's extent must be at least 1 and divide the input's"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{-1, Dims{2, {1, 2}}, DataType::kINT8}, x,
                        TensorDesc{DataType::kFLOAT, Dims{2, {2, 1}}}),
        "blocks of 2 need 2 scales, not 1"));
    // A block extent near 2^63 (a plan's): one block per axis, so an empty scale is refused (rounding up by
    // extent + block - 1 wrapped to 0 scales, and the kernel read the empty scale).
    int64_t const huge = std::numeric_limits<int64_t>::max();
    EXPECT_TRUE(has(quantizeError(QuantizeParams{-1, Dims{1, {huge}}, DataType::kINT8},
                        TensorDesc{DataType::kFLOAT, Dims{1, {10}}}, TensorDesc{DataType::kFLOAT, Dims{1, {0}}}),
        "blocks of 9223372036854775807 need 1 scales, not 0"));
    EXPECT_TRUE(quantizeError(QuantizeParams{-1, Dims{1, {huge}}, DataType::kINT8},
                    TensorDesc{DataType::kFLOAT, Dims{1, {10}}}, TensorDesc{DataType::kFLOAT, Dims{1, {1}}})
        == "accepted");
    EXPECT_TRUE(has(quantizeError(QuantizeParams{-1, Dims{2, {1, 0}}, DataType::kINT8}, x,
                        TensorDesc{DataType::kFLOAT, Dims{2, {2, 1}}}),
        "the block extent 0 is neither positive nor -1"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{-1, Dims{1, {2}}, DataType::kINT8}, x, scalar),
        "a block shape [2] is set but the scale [] does not have the input's rank"));
    EXPECT_TRUE(has(quantizeError(QuantizeParams{}, x, TensorDesc{DataType::kFLOAT, Dims{3, {1, 1, 1}}}),
        "has rank 3; a scale is 0-D, 1-D or of the input's rank"));
    TensorDesc const fp8Zero{DataType::kFP8, Dims{0, {}}};
    EXPECT_TRUE(has(quantizeError(QuantizeParams{}, x, scalar, &fp8Zero),
        "the zero point is kFP8; it must be kINT8, the quantized type"));
    TensorDesc const wideZero{DataType::kINT8, Dims{1, {1}}};
    EXPECT_TRUE(has(
        quantizeError(QuantizeParams{}, x, scalar, &wideZero), "the zero point [1] must have the scale's shape []"));

    Expected<TensorDesc> const dq = inferDequantize(DequantizeParams{}, x, scalar, nullptr);
    ASSERT_FALSE(dq.ok());
    EXPECT_TRUE(has(dq.error().message, "dequantize: the input is kFLOAT; it must be kINT8, kFP8, kINT4"));
    Expected<TensorDesc> const dqTo = inferDequantize(
        DequantizeParams{-1, Dims{-1, {}}, DataType::kINT32}, TensorDesc{DataType::kINT8, x.dims}, scalar, nullptr);
    ASSERT_FALSE(dqTo.ok());
    EXPECT_TRUE(has(dqTo.error().message, "the output type kINT32 is not kFLOAT, kHALF, kBF16"));

    // Run time: the output's type and shape, and data.
    HostBuffer in = tensorOf(DataType::kFLOAT, Dims{1, {2}}, {1, 2});
    HostBuffer scale = tensorOf(DataType::kFLOAT, Dims{0, {}}, {1.0});
    HostBuffer wrong(DataType::kFP8, Dims{1, {2}});
    Status const mismatch = runQuantize(QuantizeParams{}, in.tensor(), scale.tensor(), nullptr, wrong.tensor());
    ASSERT_FALSE(mismatch.ok());
    EXPECT_TRUE(has(mismatch.error().message, "quantize: the output is kFP8 [2] but must be kINT8 [2]"));
    HostTensor noData = in.tensor();
    noData.data = nullptr;
    HostBuffer out(DataType::kINT8, Dims{1, {2}});
    Status const missing = runQuantize(QuantizeParams{}, noData, scale.tensor(), nullptr, out.tensor());
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(has(missing.error().message, "the input has elements but no data"));
}

} // namespace
} // namespace kiln::host::test
