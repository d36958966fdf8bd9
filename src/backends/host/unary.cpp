// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - Accepted types: NvInfer.h's UnaryOperation documentation (TensorRT 10): "Operations kNOT must have inputs of
//   DataType::kBOOL. Operation kSIGN and kABS must have inputs of floating-point type, DataType::kINT8,
//   DataType::kINT32 or DataType::kINT64. Operation kISINF must have inputs of floating-point type. All other
//   operations must have inputs of floating-point type." The operator reference (docs.nvidia.com/deeplearning/tensorrt/
//   latest/_static/operators/Unary.html) lists int8 besides float16/float32 (and bfloat16 for most) for the math
//   operations and "ISINF and ISNAN only outputs bool type". So: kINT8 for the math operations (the reference's per-op
//   list), not for kISINF/kISNAN (the header's); integer kNEG is refused (the header; pytorch/TensorRT PR 2310 casts
//   int32 to float before NEG for that reason). kFP8 is kiln's extension, dequantized like kINT8.
// - kROUND rounds half to even: kiln's NvInfer.h ("Round half to even") and ONNX Round (onnx.ai/onnx/operators/
//   onnx__Round: halves go to the nearest even integer; integral values, ±0, NaN and infinities return x itself).
// - Not documented by TensorRT, chosen by kiln: kSIGN of ±0 and NaN is the input itself; integer kABS wraps.
#include "backends/host/unary.h"

#include <array>
#include <cmath>

namespace kiln::host
{

namespace
{

using Op = UnaryOperation;

constexpr TypeSet kMathInputs = kFloatingTypes | kScaledTypes;
constexpr TypeSet kSignedInputs = kMathInputs | typeSet({DataType::kINT32, DataType::kINT64});
constexpr TypeSet kClassifyInputs = kFloatingTypes | typeSet({DataType::kFP8});
constexpr TypeSet kLogicalInputs = typeSet({DataType::kBOOL});

//! x rounded to the nearest integer, ties to even, whatever the floating-point environment's rounding mode.
double roundHalfEven(double x) noexcept
{
    if (!std::isfinite(x))
    {
        return x;
    }
    if (std::fabs(x - std::trunc(x)) == 0.5)
    {
        return 2.0 * std::round(x / 2.0); // x / 2 is exact; its nearest integer, doubled, is the even neighbour
    }
    return std::round(x);
}

double sign(double x) noexcept
{
    if (x > 0.0)
    {
        return 1.0;
    }
    return x < 0.0 ? -1.0 : x; // ±0 and NaN stay
}

constexpr int64_t wrappingAbs(int64_t x) noexcept
{
    return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x;
}

constexpr int64_t integerSign(int64_t x) noexcept
{
    return x > 0 ? 1 : (x < 0 ? -1 : 0);
}

constexpr double (*kNoFloating)(double) = nullptr;
constexpr int64_t (*kNoInteger)(int64_t) = nullptr;

constexpr std::array<UnaryOpInfo, 25> kOps{{
    {Op::kEXP, "kEXP", kMathInputs, false, [](double x) { return std::exp(x); }, kNoInteger},
    {Op::kLOG, "kLOG", kMathInputs, false, [](double x) { return std::log(x); }, kNoInteger},
    {Op::kSQRT, "kSQRT", kMathInputs, false, [](double x) { return std::sqrt(x); }, kNoInteger},
    {Op::kRECIP, "kRECIP", kMathInputs, false, [](double x) { return 1.0 / x; }, kNoInteger},
    {Op::kABS, "kABS", kSignedInputs, false, [](double x) { return std::fabs(x); }, wrappingAbs},
    {Op::kNEG, "kNEG", kMathInputs, false, [](double x) { return -x; }, kNoInteger},
    {Op::kSIN, "kSIN", kMathInputs, false, [](double x) { return std::sin(x); }, kNoInteger},
    {Op::kCOS, "kCOS", kMathInputs, false, [](double x) { return std::cos(x); }, kNoInteger},
    {Op::kTAN, "kTAN", kMathInputs, false, [](double x) { return std::tan(x); }, kNoInteger},
    {Op::kSINH, "kSINH", kMathInputs, false, [](double x) { return std::sinh(x); }, kNoInteger},
    {Op::kCOSH, "kCOSH", kMathInputs, false, [](double x) { return std::cosh(x); }, kNoInteger},
    {Op::kASIN, "kASIN", kMathInputs, false, [](double x) { return std::asin(x); }, kNoInteger},
    {Op::kACOS, "kACOS", kMathInputs, false, [](double x) { return std::acos(x); }, kNoInteger},
    {Op::kATAN, "kATAN", kMathInputs, false, [](double x) { return std::atan(x); }, kNoInteger},
    {Op::kASINH, "kASINH", kMathInputs, false, [](double x) { return std::asinh(x); }, kNoInteger},
    {Op::kACOSH, "kACOSH", kMathInputs, false, [](double x) { return std::acosh(x); }, kNoInteger},
    {Op::kATANH, "kATANH", kMathInputs, false, [](double x) { return std::atanh(x); }, kNoInteger},
    {Op::kCEIL, "kCEIL", kMathInputs, false, [](double x) { return std::ceil(x); }, kNoInteger},
    {Op::kFLOOR, "kFLOOR", kMathInputs, false, [](double x) { return std::floor(x); }, kNoInteger},
    {Op::kERF, "kERF", kMathInputs, false, [](double x) { return std::erf(x); }, kNoInteger},
    {Op::kNOT, "kNOT", kLogicalInputs, true, kNoFloating, [](int64_t x) -> int64_t { return x == 0 ? 1 : 0; }},
    {Op::kSIGN, "kSIGN", kSignedInputs, false, sign, integerSign},
    {Op::kROUND, "kROUND", kMathInputs, false, roundHalfEven, kNoInteger},
    {Op::kISINF, "kISINF", kClassifyInputs, true, [](double x) { return std::isinf(x) ? 1.0 : 0.0; }, kNoInteger},
    {Op::kISNAN, "kISNAN", kClassifyInputs, true, [](double x) { return std::isnan(x) ? 1.0 : 0.0; }, kNoInteger},
}};

static_assert(kOps.size() == static_cast<std::size_t>(nvinfer1::EnumMax<UnaryOperation>()),
    "kOps needs one row for every UnaryOperation");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kOps.size(); ++i)
    {
        UnaryOpInfo const& row = kOps[i];
        bool const floatingOk = (row.inputs & kMathInputs) == 0 || row.floating != nullptr;
        bool const integerOk = (row.inputs & (kIntegerTypes | kLogicalInputs)) == 0 || row.integer != nullptr;
        if (static_cast<std::size_t>(row.op) != i || !floatingOk || !integerOk)
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kOps rows must follow the enum's order and compute every type they accept");

Error invalid(UnaryOpInfo const& info, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + what};
}

} // namespace

std::span<UnaryOpInfo const> unaryOps() noexcept
{
    return kOps;
}

UnaryOpInfo const* findUnaryOp(UnaryOperation op) noexcept
{
    auto const index = static_cast<std::size_t>(op);
    return index < kOps.size() ? &kOps[index] : nullptr;
}

Expected<TensorDesc> inferUnary(UnaryParams const& params, TensorDesc const& in)
{
    UnaryOpInfo const* info = findUnaryOp(params.op);
    if (info == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "unknown UnaryOperation " + std::to_string(static_cast<int32_t>(params.op))};
    }
    if (std::optional<std::string> const problem = inputProblem(info->inputs, in))
    {
        return invalid(*info, *problem);
    }
    return TensorDesc{info->boolOutput ? DataType::kBOOL : in.type, in.dims};
}

Status runUnary(UnaryParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferUnary(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    UnaryOpInfo const& info = *findUnaryOp(params.op);
    if (std::optional<std::string> const problem = shapePreservingOutputProblem(in, out, desc.value().type))
    {
        return invalid(info, *problem);
    }
    int64_t const count = elementCount(in.dims);
    bool const floating = numberKind(in.type) == NumberKind::kFLOATING;
    for (int64_t i = 0; i < count; ++i)
    {
        if (floating)
        {
            storeFloat(out, i, info.floating(loadFloat(in, i)));
        }
        else
        {
            storeInteger(out, i, info.integer(loadInteger(in, i)));
        }
    }
    return Done{};
}

} // namespace kiln::host
