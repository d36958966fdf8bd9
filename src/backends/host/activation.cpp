// SPDX-License-Identifier: Apache-2.0
// Where the formulas come from: TensorRT 10's NvInfer.h documents each ActivationType (as mirrored on
// docs.rs/trtx-sys, enum ActivationType): kLEAKY_RELU "x>=0 ? x : alpha * x", kELU "x>=0 ? x : alpha * (exp(x) - 1)",
// kSELU "x>0 ? beta * x : beta * (alpha*exp(x) - alpha)", kSOFTPLUS "alpha*log(exp(beta*x)+1)", kCLIP
// "max(alpha, min(beta, x))", kHARD_SIGMOID "max(0, min(1, alpha*x+beta))", kSCALED_TANH "alpha*tanh(beta*x)",
// kTHRESHOLDED_RELU "x>alpha ? x : 0", kGELU_ERF "0.5 * x * (1 + erf(sqrt(0.5) * x))", kGELU_TANH
// "0.5 * x * (1 + tanh(sqrt(2/pi) * (0.044715F * pow(x, 3) + x)))". The operator reference
// (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Activation.html) agrees except for
// THRESHOLDED_RELU, which it writes max(0, input - alpha); kiln follows the header, which is also ONNX
// ThresholdedRelu. Types: the same page, "T1: int8, float16, float32, bfloat16. Note: int32 and int64 are also
// supported only for RELU"; kFP8 is kiln's extension, dequantized like kINT8.
// Chosen by kiln (TensorRT does not document it): NaN in gives NaN out for every function, including the clamping
// ones (kRELU, kCLIP, kHARD_SIGMOID, kTHRESHOLDED_RELU). The formulas are evaluated in forms that do not cancel or
// overflow in double (expm1, log1p, erfc, a logistic for the tanh GELU); they are the same functions.
#include "backends/host/activation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace kiln::host
{

namespace
{

using Type = ActivationType;

constexpr TypeSet kFloatInputs = kFloatingTypes | kScaledTypes;
constexpr TypeSet kReluInputs = kFloatInputs | typeSet({DataType::kINT32, DataType::kINT64});

double relu(double x, double /*alpha*/, double /*beta*/) noexcept
{
    return std::isnan(x) || x > 0.0 ? x : 0.0;
}

double softplus(double x, double alpha, double beta) noexcept
{
    // log(exp(t) + 1) = t + log1p(exp(-t)) for t > 0, log1p(exp(t)) otherwise: no overflow, no cancellation.
    double const t = beta * x;
    return alpha * (t > 0.0 ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t)));
}

double clip(double x, double alpha, double beta) noexcept
{
    return std::isnan(x) ? x : std::max(alpha, std::min(beta, x));
}

double hardSigmoid(double x, double alpha, double beta) noexcept
{
    double const y = alpha * x + beta;
    return std::isnan(y) ? y : std::max(0.0, std::min(1.0, y));
}

double thresholdedRelu(double x, double alpha, double /*beta*/) noexcept
{
    return std::isnan(x) || x > alpha ? x : 0.0;
}

double geluErf(double x, double /*alpha*/, double /*beta*/) noexcept
{
    // 0.5 * x * (1 + erf(x / sqrt(2))) = 0.5 * x * erfc(-x / sqrt(2))
    return 0.5 * x * std::erfc(-x / std::numbers::sqrt2);
}

double geluTanh(double x, double /*alpha*/, double /*beta*/) noexcept
{
    // 0.5 * x * (1 + tanh(u)) = x / (1 + exp(-2u))
    double const u = std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x);
    return x / (1.0 + std::exp(-2.0 * u));
}

constexpr std::array<ActivationInfo, 14> kActivations{{
    {Type::kRELU, "kRELU", false, false, kReluInputs, relu, [](int64_t x) -> int64_t { return x > 0 ? x : 0; }},
    {Type::kSIGMOID, "kSIGMOID", false, false, kFloatInputs,
        [](double x, double, double) { return 1.0 / (1.0 + std::exp(-x)); }, nullptr},
    {Type::kTANH, "kTANH", false, false, kFloatInputs, [](double x, double, double) { return std::tanh(x); }, nullptr},
    {Type::kLEAKY_RELU, "kLEAKY_RELU", true, false, kFloatInputs,
        [](double x, double alpha, double) { return x >= 0.0 ? x : alpha * x; }, nullptr},
    {Type::kELU, "kELU", true, false, kFloatInputs,
        [](double x, double alpha, double) { return x >= 0.0 ? x : alpha * std::expm1(x); }, nullptr},
    {Type::kSELU, "kSELU", true, true, kFloatInputs,
        [](double x, double alpha, double beta) { return x > 0.0 ? beta * x : beta * alpha * std::expm1(x); }, nullptr},
    {Type::kSOFTSIGN, "kSOFTSIGN", false, false, kFloatInputs,
        [](double x, double, double) { return x / (1.0 + std::fabs(x)); }, nullptr},
    {Type::kSOFTPLUS, "kSOFTPLUS", true, true, kFloatInputs, softplus, nullptr},
    {Type::kCLIP, "kCLIP", true, true, kFloatInputs, clip, nullptr},
    {Type::kHARD_SIGMOID, "kHARD_SIGMOID", true, true, kFloatInputs, hardSigmoid, nullptr},
    {Type::kSCALED_TANH, "kSCALED_TANH", true, true, kFloatInputs,
        [](double x, double alpha, double beta) { return alpha * std::tanh(beta * x); }, nullptr},
    {Type::kTHRESHOLDED_RELU, "kTHRESHOLDED_RELU", true, false, kFloatInputs, thresholdedRelu, nullptr},
    {Type::kGELU_ERF, "kGELU_ERF", false, false, kFloatInputs, geluErf, nullptr},
    {Type::kGELU_TANH, "kGELU_TANH", false, false, kFloatInputs, geluTanh, nullptr},
}};

static_assert(kActivations.size() == static_cast<std::size_t>(nvinfer1::EnumMax<ActivationType>()),
    "kActivations needs one row for every ActivationType");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kActivations.size(); ++i)
    {
        ActivationInfo const& row = kActivations[i];
        bool const integerOk = (row.inputs & kIntegerTypes) == 0 || row.integer != nullptr;
        if (static_cast<std::size_t>(row.type) != i || row.floating == nullptr || !integerOk)
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kActivations rows must follow the enum's order and compute every type they accept");

Error invalid(ActivationInfo const& info, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + what};
}

} // namespace

std::span<ActivationInfo const> activations() noexcept
{
    return kActivations;
}

ActivationInfo const* findActivation(ActivationType type) noexcept
{
    auto const index = static_cast<std::size_t>(type);
    return index < kActivations.size() ? &kActivations[index] : nullptr;
}

Expected<TensorDesc> inferActivation(ActivationParams const& params, TensorDesc const& in)
{
    ActivationInfo const* info = findActivation(params.type);
    if (info == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "unknown ActivationType " + std::to_string(static_cast<int32_t>(params.type))};
    }
    if (std::optional<std::string> const problem = inputProblem(info->inputs, in))
    {
        return invalid(*info, *problem);
    }
    return TensorDesc{in.type, in.dims};
}

Status runActivation(ActivationParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferActivation(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    ActivationInfo const& info = *findActivation(params.type);
    if (std::optional<std::string> const problem = shapePreservingOutputProblem(in, out, in.type))
    {
        return invalid(info, *problem);
    }
    int64_t const count = elementCount(in.dims);
    double const alpha = params.alpha;
    double const beta = params.beta;
    bool const floating = numberKind(in.type) == NumberKind::kFLOATING;
    for (int64_t i = 0; i < count; ++i)
    {
        if (floating)
        {
            storeFloat(out, i, info.floating(loadFloat(in, i), alpha, beta));
        }
        else
        {
            storeInteger(out, i, info.integer(loadInteger(in, i)));
        }
    }
    return Done{};
}

} // namespace kiln::host
