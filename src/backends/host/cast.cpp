// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - Which pairs: the operator reference (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Cast.html):
//   "All conversions between supported data types are allowed", T1 and T2 both bool, uint8, int8, int32, int64,
//   float16, bfloat16, float32. NvInferRuntimeBase.h's DataType::kUINT8 narrows uint8: "kUINT8 conversions are only
//   supported for {kFLOAT, kHALF}", float to uint8 "truncating towards zero", undefined outside [0, 256) (kiln
//   saturates). kFP8 is kiln's extension, scaled like kINT8.
// - Floating to integer truncates toward zero: the operator reference's example casts [1.2, 4.5, 5.6, 7.8, 8.9] to
//   int32 as [1, 4, 5, 7, 8]. NaN gives 0 and +inf INT32_MAX: TensorRT 10.16's observed behaviour
//   (NVIDIA/TensorRT issue 4775), which is CUDA's saturating cvt.rzi; kiln saturates every out-of-range value so.
// - Integer narrowing (kINT64 to kINT32) wraps: ONNX Cast ("fixed point to fixed point: if OOR, discard higher bits
//   and reinterpret", onnx.ai/onnx/operators/onnx__Cast), what a C++ or CUDA conversion does. TensorRT does not
//   document it.
// - To bool: ONNX Cast ("+/- 0.0 to False; all else to True"); from bool: 0 or 1 (DataType::kBOOL is 0 or 1).
// - Scaled kINT8 / kFP8 ends: tensor_view.h's convention (dequantize on load, quantize on store).
// The arithmetic itself is tensor_view's loadFloat / storeFloat / storeInteger; this file only picks the path.
#include "backends/host/cast.h"

#include <array>

namespace kiln::host
{

namespace
{

//! The types that cast among each other freely.
constexpr TypeSet kCastable
    = kFloatingTypes | kScaledTypes | typeSet({DataType::kINT32, DataType::kINT64, DataType::kBOOL});
constexpr TypeSet kUint8Partners = typeSet({DataType::kFLOAT, DataType::kHALF, DataType::kUINT8});
constexpr TypeSet kToCastable = kCastable | typeSet({DataType::kUINT8});

constexpr std::array<CastRule, 12> kRules{{
    {DataType::kFLOAT, kToCastable},
    {DataType::kHALF, kToCastable},
    {DataType::kINT8, kCastable},
    {DataType::kINT32, kCastable},
    {DataType::kBOOL, kCastable},
    {DataType::kUINT8, kUint8Partners},
    {DataType::kFP8, kCastable},
    {DataType::kBF16, kCastable},
    {DataType::kINT64, kCastable},
    {DataType::kINT4, 0},
    {DataType::kFP4, 0},
    {DataType::kE8M0, 0},
}};

static_assert(kRules.size() == static_cast<std::size_t>(nvinfer1::EnumMax<DataType>()),
    "kRules needs one row for every DataType");

constexpr bool rulesConsistent() noexcept
{
    for (std::size_t i = 0; i < kRules.size(); ++i)
    {
        CastRule const& row = kRules[i];
        if (static_cast<std::size_t>(row.from) != i || (row.to & ~kHostTypes) != 0)
        {
            return false;
        }
        // Symmetric, and a type that casts at all casts to itself.
        if (row.to != 0 && !contains(row.to, row.from))
        {
            return false;
        }
        for (CastRule const& other : kRules)
        {
            if (contains(row.to, other.from) != contains(other.to, row.from))
            {
                return false;
            }
        }
    }
    return true;
}
static_assert(rulesConsistent(), "kRules rows must follow the enum's order, be symmetric and use host types only");

Error invalid(DataType from, DataType to, std::string const& what)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
        std::string("cast from ") + dataTypeName(from) + " to " + dataTypeName(to) + ": " + what};
}

} // namespace

std::span<CastRule const> castRules() noexcept
{
    return kRules;
}

bool castSupported(DataType from, DataType to) noexcept
{
    return isKnownDataType(from) && contains(kRules[static_cast<std::size_t>(from)].to, to);
}

Expected<TensorDesc> inferCast(CastParams const& params, TensorDesc const& in)
{
    if (!castSupported(in.type, params.toType))
    {
        TypeSet const targets = isKnownDataType(in.type) ? kRules[static_cast<std::size_t>(in.type)].to : 0;
        return invalid(in.type, params.toType,
            std::string("not supported (") + dataTypeName(in.type) + " casts to "
                + (targets == 0 ? std::string("nothing") : typeSetString(targets)) + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid(in.type, params.toType, "input shape " + shapeString(in.dims) + " " + notConcreteText(in.dims));
    }
    return TensorDesc{params.toType, in.dims};
}

Status runCast(CastParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferCast(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != params.toType)
    {
        return invalid(in.type, params.toType, std::string("the output is ") + dataTypeName(out.type));
    }
    if (!sameShape(out.dims, in.dims))
    {
        return invalid(in.type, params.toType,
            "the output has shape " + shapeString(out.dims) + " but the input has shape " + shapeString(in.dims));
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(in.type, params.toType, error->message);
        }
    }
    int64_t const count = elementCount(in.dims);
    bool const floating = numberKind(in.type) == NumberKind::kFLOATING;
    for (int64_t i = 0; i < count; ++i)
    {
        if (floating)
        {
            storeFloat(out, i, loadFloat(in, i));
        }
        else
        {
            storeInteger(out, i, loadInteger(in, i));
        }
    }
    return Done{};
}

} // namespace kiln::host
