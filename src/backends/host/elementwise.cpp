// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - Accepted types: NvInfer.h's ElementWiseOperation documentation (TensorRT 10): "Operations kAND, kOR, and kXOR must
//   have inputs of DataType::kBOOL. All other operations must have inputs of floating-point type, DataType::kINT8,
//   DataType::kINT32, or DataType::kINT64." The operator reference (docs.nvidia.com/deeplearning/tensorrt/latest/
//   _static/operators/ElementWise.html) lists int8, int32, int64, float16, float32, bfloat16 for the arithmetic
//   operations (POWER with int32/int64 only in its latest versions) and bool output for EQUAL, GREATER, LESS. kUINT8
//   and kBOOL arithmetic are refused; kFP8 is kiln's extension (the host reference dequantizes it like kINT8).
// - Broadcasting: the same page's "Shape Information": equal ranks; per dimension equal lengths or one of them 1.
// - Integer kDIV truncates toward zero: TensorRT's kDIV gives -11 / 3 = -3 (onnx/onnx issue 4016, by an NVIDIA
//   engineer; ONNX Div documents truncation since). kFLOOR_DIV is floor(a / b) per the operator reference.
// - kMAX / kMIN with a NaN operand: TensorRT 10 returns the non-NaN operand (NVIDIA/TensorRT issue 4758, observed on
//   TensorRT 10.16), as CUDA's fmaxf/fminf do; kiln's reference does the same.
// - Not documented by TensorRT, chosen by kiln and stated in elementwise.h: integer overflow wraps (what GPU integer
//   arithmetic does), integer division by zero is refused, integer kPOW with a negative exponent truncates.
#include "backends/host/elementwise.h"

#include "core/integer_math.h"

#include <array>
#include <cmath>
#include <vector>

namespace kiln::host
{

namespace
{

using Op = ElementWiseOperation;

constexpr TypeSet kArithmeticInputs = kFloatingTypes | kScaledTypes | typeSet({DataType::kINT32, DataType::kINT64});
constexpr TypeSet kLogicalInputs = typeSet({DataType::kBOOL});

constexpr std::optional<int64_t> integerDiv(int64_t a, int64_t b) noexcept
{
    return b == 0 ? std::nullopt : std::optional(integerQuotient(a, b, false));
}

constexpr std::optional<int64_t> integerFloorDiv(int64_t a, int64_t b) noexcept
{
    return b == 0 ? std::nullopt : std::optional(integerQuotient(a, b, true));
}

constexpr std::optional<int64_t> integerPow(int64_t base, int64_t exponent) noexcept
{
    // 0 to a negative power has no integer value.
    return base == 0 && exponent < 0 ? std::nullopt : std::optional(integerPower(base, exponent));
}

//! IEEE 754-2019 maximumNumber: a NaN operand yields the other; +0 is larger than -0.
double maxNumber(double a, double b) noexcept
{
    if (std::isnan(a))
    {
        return b;
    }
    if (std::isnan(b) || a > b)
    {
        return a;
    }
    if (a == b)
    {
        return std::signbit(a) ? b : a;
    }
    return b;
}

//! IEEE 754-2019 minimumNumber: a NaN operand yields the other; -0 is smaller than +0.
double minNumber(double a, double b) noexcept
{
    if (std::isnan(a))
    {
        return b;
    }
    if (std::isnan(b) || a < b)
    {
        return a;
    }
    if (a == b)
    {
        return std::signbit(a) ? a : b;
    }
    return b;
}

constexpr double truth(bool value) noexcept
{
    return value ? 1.0 : 0.0;
}

using Int = std::optional<int64_t>;

constexpr std::array<ElementWiseOpInfo, 14> kOps{{
    {Op::kSUM, "kSUM", kArithmeticInputs, false, [](double a, double b) { return a + b; },
        [](int64_t a, int64_t b) -> Int { return wrapToInt64(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }},
    {Op::kPROD, "kPROD", kArithmeticInputs, false, [](double a, double b) { return a * b; },
        [](int64_t a, int64_t b) -> Int { return wrapToInt64(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }},
    {Op::kMAX, "kMAX", kArithmeticInputs, false, maxNumber, [](int64_t a, int64_t b) -> Int { return a > b ? a : b; }},
    {Op::kMIN, "kMIN", kArithmeticInputs, false, minNumber, [](int64_t a, int64_t b) -> Int { return a < b ? a : b; }},
    {Op::kSUB, "kSUB", kArithmeticInputs, false, [](double a, double b) { return a - b; },
        [](int64_t a, int64_t b) -> Int { return wrapToInt64(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }},
    {Op::kDIV, "kDIV", kArithmeticInputs, false, [](double a, double b) { return a / b; }, integerDiv},
    {Op::kPOW, "kPOW", kArithmeticInputs, false, [](double a, double b) { return std::pow(a, b); }, integerPow},
    {Op::kFLOOR_DIV, "kFLOOR_DIV", kArithmeticInputs, false, [](double a, double b) { return std::floor(a / b); },
        integerFloorDiv},
    {Op::kAND, "kAND", kLogicalInputs, true, nullptr, [](int64_t a, int64_t b) -> Int { return a != 0 && b != 0; }},
    {Op::kOR, "kOR", kLogicalInputs, true, nullptr, [](int64_t a, int64_t b) -> Int { return a != 0 || b != 0; }},
    {Op::kXOR, "kXOR", kLogicalInputs, true, nullptr, [](int64_t a, int64_t b) -> Int { return (a != 0) != (b != 0); }},
    {Op::kEQUAL, "kEQUAL", kArithmeticInputs, true, [](double a, double b) { return truth(a == b); },
        [](int64_t a, int64_t b) -> Int { return a == b; }},
    {Op::kGREATER, "kGREATER", kArithmeticInputs, true, [](double a, double b) { return truth(a > b); },
        [](int64_t a, int64_t b) -> Int { return a > b; }},
    {Op::kLESS, "kLESS", kArithmeticInputs, true, [](double a, double b) { return truth(a < b); },
        [](int64_t a, int64_t b) -> Int { return a < b; }},
}};

static_assert(kOps.size() == static_cast<std::size_t>(nvinfer1::EnumMax<ElementWiseOperation>()),
    "kOps needs one row for every ElementWiseOperation");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kOps.size(); ++i)
    {
        bool const computes = (kOps[i].inputs & (kFloatingTypes | kScaledTypes)) == 0 || kOps[i].floating != nullptr;
        if (static_cast<std::size_t>(kOps[i].op) != i || kOps[i].integer == nullptr || !computes)
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kOps rows must follow the enum's order and compute every type they accept");

Error invalid(ElementWiseOpInfo const& info, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(info.name) + ": " + what};
}

} // namespace

std::span<ElementWiseOpInfo const> elementWiseOps() noexcept
{
    return kOps;
}

ElementWiseOpInfo const* findElementWiseOp(ElementWiseOperation op) noexcept
{
    auto const index = static_cast<std::size_t>(op);
    return index < kOps.size() ? &kOps[index] : nullptr;
}

Expected<TensorDesc> inferElementWise(ElementWiseParams const& params, TensorDesc const& a, TensorDesc const& b)
{
    ElementWiseOpInfo const* info = findElementWiseOp(params.op);
    if (info == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "unknown ElementWiseOperation " + std::to_string(static_cast<int32_t>(params.op))};
    }
    for (TensorDesc const* input : {&a, &b})
    {
        if (!contains(info->inputs, input->type))
        {
            return invalid(*info,
                std::string("does not accept ") + dataTypeName(input->type) + " inputs (it takes "
                    + typeSetString(info->inputs) + ")");
        }
    }
    if (a.type != b.type)
    {
        return invalid(*info,
            std::string("inputs have different types, ") + dataTypeName(a.type) + " and " + dataTypeName(b.type)
                + "; both inputs need the same type");
    }
    Expected<Dims> dims = broadcastShapes(a.dims, b.dims);
    if (!dims)
    {
        return invalid(*info, dims.error().message);
    }
    return TensorDesc{info->boolOutput ? DataType::kBOOL : a.type, dims.value()};
}

Status runElementWise(ElementWiseParams const& params, HostTensor const& a, HostTensor const& b, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferElementWise(params, {a.type, a.dims}, {b.type, b.dims});
    if (!desc)
    {
        return desc.error();
    }
    ElementWiseOpInfo const& info = *findElementWiseOp(params.op);
    if (out.type != desc.value().type)
    {
        return invalid(info,
            std::string("the output is ") + dataTypeName(out.type) + " but must be " + dataTypeName(desc.value().type));
    }
    if (!sameShape(out.dims, desc.value().dims))
    {
        return invalid(info,
            "the output has shape " + shapeString(out.dims) + " but inputs " + shapeString(a.dims) + " and "
                + shapeString(b.dims) + " broadcast to " + shapeString(desc.value().dims));
    }
    for (auto const& [tensor, role] : {std::pair{&a, "input 0"}, std::pair{&b, "input 1"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(info, error->message);
        }
    }

    BroadcastMap const mapA(out.dims, a.dims);
    BroadcastMap const mapB(out.dims, b.dims);
    int64_t const count = elementCount(out.dims);
    if (numberKind(a.type) == NumberKind::kFLOATING)
    {
        for (int64_t i = 0; i < count; ++i)
        {
            storeFloat(out, i, info.floating(loadFloat(a, mapA(i)), loadFloat(b, mapB(i))));
        }
        return Done{};
    }
    // Integer and bool: compute everything first so that an undefined element leaves the output untouched.
    std::vector<int64_t> results(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const x = loadInteger(a, mapA(i));
        int64_t const y = loadInteger(b, mapB(i));
        std::optional<int64_t> const result = info.integer(x, y);
        if (!result)
        {
            std::string const what
                = params.op == ElementWiseOperation::kPOW ? "0 to a negative power" : "integer division by zero";
            return invalid(info,
                what + " at output element " + std::to_string(i) + " (" + std::to_string(x) + " and "
                    + std::to_string(y) + ")");
        }
        results[static_cast<std::size_t>(i)] = *result;
    }
    for (int64_t i = 0; i < count; ++i)
    {
        storeInteger(out, i, results[static_cast<std::size_t>(i)]);
    }
    return Done{};
}

} // namespace kiln::host
