// SPDX-License-Identifier: Apache-2.0
// The host activation kernel against TensorRT's formulas evaluated here literally in double, on random shapes, values
// and alpha/beta, for every function and every type it accepts; known values; NaN propagation; scaled INT8
// saturation; and every refusal with its message.
#include "backends/host/activation.h"

#include "host_test_util.h"

#include <algorithm>
#include <numbers>

namespace kiln::host::test
{
namespace
{

using Type = ActivationType;

static_assert(nvinfer1::EnumMax<ActivationType>() == 14, "a new activation needs its reference below");

//! The formulas of NvInfer.h's ActivationType, written out as they read (expm1 for exp(x) - 1, which is exact where
//! exp(x) - 1 cancels).
double reference(Type type, double x, double alpha, double beta)
{
    switch (type)
    {
    case Type::kRELU: return std::isnan(x) ? x : std::max(x, 0.0);
    case Type::kSIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case Type::kTANH: return std::tanh(x);
    case Type::kLEAKY_RELU: return x >= 0.0 ? x : alpha * x;
    case Type::kELU: return x >= 0.0 ? x : alpha * std::expm1(x);
    case Type::kSELU: return x > 0.0 ? beta * x : beta * (alpha * std::expm1(x));
    case Type::kSOFTSIGN: return x / (1.0 + std::fabs(x));
    case Type::kSOFTPLUS:
    {
        // log(exp(t) + 1) is t itself, to double precision, from t = 40 on; beyond 709 exp would overflow.
        double const t = beta * x;
        return alpha * (t > 40.0 ? t : std::log(std::exp(t) + 1.0));
    }
    case Type::kCLIP: return std::isnan(x) ? x : std::max(alpha, std::min(beta, x));
    case Type::kHARD_SIGMOID:
    {
        double const y = alpha * x + beta;
        return std::isnan(y) ? y : std::max(0.0, std::min(1.0, y));
    }
    case Type::kSCALED_TANH: return alpha * std::tanh(beta * x);
    case Type::kTHRESHOLDED_RELU: return std::isnan(x) ? x : (x > alpha ? x : 0.0);
    case Type::kGELU_ERF: return 0.5 * x * (1.0 + std::erf(std::sqrt(0.5) * x));
    case Type::kGELU_TANH:
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (0.044715 * std::pow(x, 3.0) + x)));
    }
    return kNan;
}

std::string name(Type type)
{
    return findActivation(type)->name;
}

std::vector<Type> allTypesOfActivation()
{
    std::vector<Type> types;
    for (ActivationInfo const& info : activations())
    {
        types.push_back(info.type);
    }
    return types;
}

TEST(HostActivation, TableCoversEveryFunctionInOrder)
{
    ASSERT_EQ(activations().size(), static_cast<std::size_t>(nvinfer1::EnumMax<ActivationType>()));
    for (std::size_t i = 0; i < activations().size(); ++i)
    {
        EXPECT_EQ(static_cast<std::size_t>(activations()[i].type), i);
        EXPECT_EQ(findActivation(static_cast<Type>(i)), &activations()[i]);
    }
    EXPECT_EQ(findActivation(static_cast<Type>(14)), nullptr);
    // The parameters each function reads.
    for (ActivationInfo const& info : activations())
    {
        bool const alpha = info.type != Type::kRELU && info.type != Type::kSIGMOID && info.type != Type::kTANH
            && info.type != Type::kSOFTSIGN && info.type != Type::kGELU_ERF && info.type != Type::kGELU_TANH;
        bool const beta = info.type == Type::kSELU || info.type == Type::kSOFTPLUS || info.type == Type::kCLIP
            || info.type == Type::kHARD_SIGMOID || info.type == Type::kSCALED_TANH;
        EXPECT_EQ(info.usesAlpha, alpha) << info.name;
        EXPECT_EQ(info.usesBeta, beta) << info.name;
    }
}

//! kFLOAT, kHALF, kBF16, kINT8, kFP8 for every function; kINT32 and kINT64 for kRELU only; nothing else.
TEST(HostActivation, SupportMatrix)
{
    TypeSet const floating
        = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kFP8});
    for (Type const type : allTypesOfActivation())
    {
        TypeSet const accepted
            = type == Type::kRELU ? floating | typeSet({DataType::kINT32, DataType::kINT64}) : floating;
        EXPECT_EQ(findActivation(type)->inputs, accepted) << name(type);
        for (DataType const dataType : allTypes())
        {
            auto const desc = inferActivation({type}, {dataType, Dims{1, {4}}});
            if (contains(accepted, dataType))
            {
                ASSERT_TRUE(desc.ok()) << name(type) << " " << dataTypeName(dataType) << ": " << desc.error().message;
                EXPECT_EQ(desc.value().type, dataType);
            }
            else
            {
                expectError(desc, {name(type) + ": does not accept " + dataTypeName(dataType) + " input"});
            }
        }
    }
}

class HostActivationRandom : public ::testing::TestWithParam<Type>
{
};

TEST_P(HostActivationRandom, MatchesTheFormula)
{
    Type const type = GetParam();
    ActivationInfo const& info = *findActivation(type);
    for (DataType const dataType : allTypes())
    {
        if (!contains(info.inputs, dataType))
        {
            continue;
        }
        for (uint32_t trial = 0; trial < 12; ++trial)
        {
            std::mt19937 rng(
                9000U + 1000U * static_cast<uint32_t>(type) + 37U * static_cast<uint32_t>(dataType) + trial);
            std::uniform_real_distribution<float> parameter(-1.5F, 1.5F);
            ActivationParams const params{type, parameter(rng), parameter(rng)};
            Dims const dims = randomShape(rng);
            bool const scaled = contains(kScaledTypes, dataType);
            HostBuffer in(dataType, dims, scaled ? randomScale(rng) : 1.0F);
            HostBuffer out(dataType, dims, scaled ? randomScale(rng) : 1.0F);
            SCOPED_TRACE(name(type) + " " + dataTypeName(dataType) + " trial " + std::to_string(trial) + ", alpha "
                + std::to_string(params.alpha) + ", beta " + std::to_string(params.beta));
            bool const floating = numberKind(dataType) == NumberKind::kFLOATING;
            if (floating)
            {
                fillFloating(rng, in, -4.0, 4.0);
            }
            else
            {
                fillInteger(rng, in);
            }
            Status const status = runActivation(params, in.tensor(), out.tensor());
            ASSERT_TRUE(status.ok()) << status.error().message;
            for (int64_t i = 0; i < elementCount(dims); ++i)
            {
                if (floating)
                {
                    double const x = decode(dataType, bytesOf(in), i, in.tensor().scale);
                    double const expected = reference(type, x, params.alpha, params.beta);
                    double const actual = decode(dataType, bytesOf(out), i, out.tensor().scale);
                    EXPECT_TRUE(matches(dataType, expected, actual, out.tensor().scale))
                        << "element " << i << ": " << x << " gave " << actual << ", expected " << expected;
                }
                else
                {
                    int64_t const x = decodeInteger(dataType, bytesOf(in), i);
                    EXPECT_EQ(decodeInteger(dataType, bytesOf(out), i), std::max<int64_t>(x, 0)) << x;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFunction, HostActivationRandom, ::testing::ValuesIn(allTypesOfActivation()),
    [](::testing::TestParamInfo<Type> const& param) { return name(param.param).substr(1); });

//! f applied to values stored as dataType (scale 1 unless given) and read back.
std::vector<double> run(ActivationParams const& params, DataType dataType, std::vector<double> const& x,
    float inScale = 1.0F, float outScale = 1.0F)
{
    Dims const shape{1, {static_cast<int64_t>(x.size())}};
    HostBuffer in(dataType, shape, inScale), out(dataType, shape, outScale);
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        encode(dataType, static_cast<std::byte*>(in.tensor().data), static_cast<int64_t>(i), x[i], inScale);
    }
    Status const status = runActivation(params, in.tensor(), out.tensor());
    EXPECT_TRUE(status.ok()) << status.error().message;
    std::vector<double> result;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        result.push_back(decode(dataType, bytesOf(out), static_cast<int64_t>(i), outScale));
    }
    return result;
}

double one(ActivationParams const& params, double x, DataType dataType = DataType::kFLOAT)
{
    return run(params, dataType, {x}).front();
}

TEST(HostActivation, KnownValues)
{
    auto const near = [](double actual, double expected) { EXPECT_NEAR(actual, expected, 1e-6 * std::fabs(expected)); };
    near(one({Type::kGELU_ERF}, 1.0), 0.8413447460685429);
    near(one({Type::kGELU_ERF}, -1.0), -0.15865525393145707);
    near(one({Type::kGELU_TANH}, 1.0), 0.8411919906082768);
    near(one({Type::kGELU_TANH}, -2.0), -0.04540230591222298);
    near(one({Type::kSIGMOID}, 2.0), 0.8807970779778823);
    near(one({Type::kSELU, 1.6732632F, 1.0507010F}, -1.0), -1.1113307);
    near(one({Type::kSELU, 1.6732632F, 1.0507010F}, 2.0), 2.101402);
    near(one({Type::kSOFTPLUS, 1.0F, 1.0F}, 0.0), std::log(2.0));
    near(one({Type::kSOFTPLUS, 2.0F, 0.5F}, 2.0), 2.0 * std::log1p(std::exp(1.0)));
    near(one({Type::kSCALED_TANH, 1.7159F, 0.6667F}, 1.0), 1.7159 * std::tanh(0.6667));
    EXPECT_EQ(one({Type::kSOFTPLUS, 1.0F, 1.0F}, 1000.0), 1000.0) << "no overflow in exp";
    EXPECT_EQ(one({Type::kSOFTPLUS, 1.0F, 1.0F}, -1000.0), 0.0);
    EXPECT_EQ(one({Type::kLEAKY_RELU, 0.01F}, -2.0), static_cast<double>(static_cast<float>(-2.0 * 0.01F)));
    EXPECT_EQ(one({Type::kLEAKY_RELU, 0.01F}, 3.0), 3.0);
    EXPECT_EQ(one({Type::kELU, 1.0F}, -kInf), -1.0);
    EXPECT_EQ(one({Type::kCLIP, -1.0F, 1.0F}, 5.0), 1.0);
    EXPECT_EQ(one({Type::kCLIP, -1.0F, 1.0F}, -5.0), -1.0);
    EXPECT_EQ(one({Type::kCLIP, -1.0F, 1.0F}, 0.25), 0.25);
    EXPECT_EQ(one({Type::kHARD_SIGMOID, 0.2F, 0.5F}, 3.0), 1.0);
    EXPECT_EQ(one({Type::kHARD_SIGMOID, 0.2F, 0.5F}, -3.0), 0.0);
    EXPECT_EQ(one({Type::kHARD_SIGMOID, 0.2F, 0.5F}, 0.0), 0.5);
    EXPECT_EQ(one({Type::kTHRESHOLDED_RELU, 1.0F}, 1.0), 0.0) << "x > alpha, strictly";
    EXPECT_EQ(one({Type::kTHRESHOLDED_RELU, 1.0F}, 1.5), 1.5) << "x itself, not x - alpha";
    EXPECT_EQ(one({Type::kTHRESHOLDED_RELU, 1.0F}, -3.0), 0.0);
    EXPECT_EQ(one({Type::kRELU}, -0.0), 0.0);
    EXPECT_EQ(one({Type::kRELU}, -kInf), 0.0);
    EXPECT_EQ(one({Type::kTANH}, kInf), 1.0);
    EXPECT_EQ(one({Type::kSIGMOID}, -kInf), 0.0);
    // Large inputs in half: no intermediate overflow.
    EXPECT_EQ(one({Type::kGELU_ERF}, 60000.0, DataType::kHALF), 60000.0);
    EXPECT_EQ(one({Type::kGELU_TANH}, -60000.0, DataType::kHALF), -0.0);
}

TEST(HostActivation, NanPropagates)
{
    for (ActivationInfo const& info : activations())
    {
        for (DataType const dataType : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8})
        {
            EXPECT_TRUE(std::isnan(one({info.type, 0.5F, 0.75F}, kNan, dataType)))
                << info.name << " " << dataTypeName(dataType);
        }
    }
}

TEST(HostActivation, ScaledInt8)
{
    // x = 100 at scale 1 through leaky ReLU is 100; at output scale 0.5 that is 200 steps, saturated to 127.
    EXPECT_EQ(run({Type::kLEAKY_RELU, 0.1F}, DataType::kINT8, {100.0}, 1.0F, 0.5F).front(), 63.5);
    // -100 * 0.1 = -10 at scale 4 is -2.5 steps: ties to even, -2.
    EXPECT_EQ(run({Type::kLEAKY_RELU, 0.1F}, DataType::kINT8, {-100.0}, 1.0F, 4.0F).front(), -8.0);
    EXPECT_EQ(
        run({Type::kRELU}, DataType::kINT8, {-5.0, 5.0, -128.0, 127.0}), (std::vector<double>{0.0, 5.0, 0.0, 127.0}));
    EXPECT_EQ(run({Type::kSIGMOID}, DataType::kINT8, {0.0}, 1.0F, 0.25F).front(), 0.5);
    EXPECT_EQ(run({Type::kSIGMOID}, DataType::kINT8, {0.0}, 1.0F, 0.2F).front(), 0.4F) << "2.5 steps: ties to even";
    // kRELU on integers.
    HostBuffer in(DataType::kINT64, Dims{1, {3}}), out(DataType::kINT64, Dims{1, {3}});
    std::vector<int64_t> const x{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), -1};
    for (int64_t i = 0; i < 3; ++i)
    {
        encodeInteger(DataType::kINT64, static_cast<std::byte*>(in.tensor().data), i, x[static_cast<std::size_t>(i)]);
    }
    ASSERT_TRUE(runActivation({Type::kRELU}, in.tensor(), out.tensor()).ok());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 0), 0);
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 1), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(decodeInteger(DataType::kINT64, bytesOf(out), 2), 0);
}

TEST(HostActivation, Refusals)
{
    Dims const shape{1, {4}};
    expectError(inferActivation({Type::kSIGMOID}, {DataType::kINT32, shape}),
        {"kSIGMOID: does not accept kINT32 input (it takes kFLOAT, kHALF, kINT8, kFP8, kBF16)"});
    expectError(inferActivation({Type::kRELU}, {DataType::kBOOL, shape}), {"kRELU: does not accept kBOOL input"});
    expectError(inferActivation({Type::kRELU}, {DataType::kUINT8, shape}), {"kRELU: does not accept kUINT8 input"});
    expectError(inferActivation({Type::kELU}, {DataType::kINT64, shape}), {"kELU: does not accept kINT64 input"});
    expectError(inferActivation({static_cast<Type>(-3)}, {DataType::kFLOAT, shape}), {"unknown ActivationType -3"});
    expectError(inferActivation({Type::kTANH}, {DataType::kFLOAT, Dims{-1, {}}}),
        {"kTANH: input shape (rank -1) is not a concrete shape"});

    HostBuffer in(DataType::kFLOAT, shape), half(DataType::kHALF, shape), longer(DataType::kFLOAT, Dims{1, {5}});
    expectError(
        runActivation({Type::kTANH}, in.tensor(), half.tensor()), {"kTANH: the output is kHALF but must be kFLOAT"});
    expectError(runActivation({Type::kTANH}, in.tensor(), longer.tensor()),
        {"kTANH: the output has shape [5] but the input has shape [4]"});
    expectError(runActivation({Type::kTANH}, in.tensor(), HostTensor{nullptr, DataType::kFLOAT, shape}),
        {"kTANH: output of shape [4] has no data"});
    HostBuffer q(DataType::kFP8, shape);
    HostTensor badScale = q.tensor();
    badScale.scale = std::numeric_limits<float>::infinity();
    expectError(runActivation({Type::kRELU}, q.tensor(), badScale), {"kRELU: output (kFP8) has scale inf"});
}

} // namespace
} // namespace kiln::host::test
