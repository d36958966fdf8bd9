// SPDX-License-Identifier: Apache-2.0
// The arithmetic follows TensorRT's IQuantizeLayer / IDequantizeLayer documentation (round half to even, saturation
// to the type's range, E4M3 saturating conversion) and ONNX's QuantizeLinear / DequantizeLinear (the zero point is
// added after rounding; x / scale and (q - z) * scale are computed in float), with core/float_convert.h's conversions.
#include "backends/host/quantize.h"

#include "core/float_convert.h"

#include <cstring>
#include <string>
#include <utility>

namespace kiln::host
{

namespace
{

Error refusal(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

Error invalid(char const* kind, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(kind) + ": " + message};
}

//! The range of an integer code type.
struct CodeRange
{
    int32_t low;
    int32_t high;
};

CodeRange codeRange(DataType type) noexcept
{
    return type == DataType::kINT4 ? CodeRange{-8, 7} : CodeRange{-128, 127};
}

uint8_t const* bytesOf(HostTensor const& t) noexcept
{
    return static_cast<uint8_t const*>(t.data);
}

//! Code index of t (kINT8, kFP8 or kINT4) as the value it stands for before scaling.
float loadCode(HostTensor const& t, int64_t index) noexcept
{
    uint8_t const* bytes = bytesOf(t);
    switch (t.type)
    {
    case DataType::kINT8: return static_cast<float>(static_cast<int8_t>(bytes[index]));
    case DataType::kFP8: return fp8e4m3ToFloat(bytes[index]);
    case DataType::kINT4: return static_cast<float>(int4FromNibble(nibble(bytes[index / 2], index % 2 == 0 ? 0 : 1)));
    default: return 0.F;
    }
}

//! Integer code index of t (kINT8 or kINT4).
int32_t loadIntegerCode(HostTensor const& t, int64_t index) noexcept
{
    return static_cast<int32_t>(loadCode(t, index));
}

//! Writes the code of x / scale (+ zero point) into element index of out.
void storeQuantized(HostTensor const& out, int64_t index, float quotient, HostTensor const* zeroPoint, int64_t at)
{
    auto* bytes = static_cast<uint8_t*>(out.data);
    if (out.type == DataType::kFP8)
    {
        float const shifted = zeroPoint != nullptr ? quotient + loadCode(*zeroPoint, at) : quotient;
        bytes[index] = floatToFp8e4m3(shifted);
        return;
    }
    CodeRange const range = codeRange(out.type);
    int32_t const z = zeroPoint != nullptr ? loadIntegerCode(*zeroPoint, at) : 0;
    // clamp(round(v) + z, low, high) == clamp(round(v), low - z, high - z) + z for integer bounds.
    int32_t const code = detail::roundHalfEvenClamped(quotient, range.low - z, range.high - z) + z;
    if (out.type == DataType::kINT8)
    {
        bytes[index] = static_cast<uint8_t>(static_cast<int8_t>(code));
        return;
    }
    uint8_t& packed = bytes[index / 2];
    uint8_t const code4 = int4ToNibble(code);
    packed = index % 2 == 0 ? packNibbles(code4, nibble(packed, 1)) : packNibbles(nibble(packed, 0), code4);
}

//! Why a quantized tensor or a float tensor cannot be read or written: an invalid shape, or no data for elements.
std::optional<std::string> viewProblem(HostTensor const& t, char const* role)
{
    if (!isValidShape(t.dims))
    {
        return std::string("the ") + role + " has the invalid shape " + shapeString(t.dims);
    }
    if (elementCount(t.dims) > 0 && t.data == nullptr)
    {
        return std::string("the ") + role + " has elements but no data";
    }
    return std::nullopt;
}

//! The checks both kinds share: the scale's type and mapping, the zero point's type and shape. codeType is the
//! quantized type, what the zero point must be.
Expected<ScaleMap> checkScales(char const* kind, int32_t axis, Dims const& blockShape, TensorDesc const& in,
    TensorDesc const& scale, TensorDesc const* zeroPoint, DataType codeType)
{
    if (!contains(kQuantizeFloatTypes, scale.type))
    {
        return invalid(kind,
            std::string("the scale is ") + dataTypeName(scale.type) + "; it must be "
                + typeSetString(kQuantizeFloatTypes));
    }
    if (!isValidShape(in.dims) || !isValidShape(scale.dims))
    {
        return invalid(kind,
            "the input " + shapeString(in.dims) + " or the scale " + shapeString(scale.dims)
                + " is not a concrete shape");
    }
    Expected<ScaleMap> map = mapScales(in.dims, scale.dims, axis, blockShape);
    if (!map)
    {
        return invalid(kind, map.error().message);
    }
    if (elementCount(in.dims) > 0 && elementCount(scale.dims) == 0)
    {
        // Every element reads a scale: a mapping that accepts none is wrong, whatever rule let it through.
        return invalid(kind,
            "the input " + shapeString(in.dims) + " has elements but the scale " + shapeString(scale.dims)
                + " has none");
    }
    if (zeroPoint != nullptr)
    {
        if (zeroPoint->type != codeType)
        {
            return invalid(kind,
                std::string("the zero point is ") + dataTypeName(zeroPoint->type) + "; it must be "
                    + dataTypeName(codeType) + ", the quantized type");
        }
        if (!sameShape(zeroPoint->dims, scale.dims))
        {
            return invalid(kind,
                "the zero point " + shapeString(zeroPoint->dims) + " must have the scale's shape "
                    + shapeString(scale.dims));
        }
    }
    return map;
}

//! The run-time checks both kinds share: the inputs' inference, the output's type and shape, each view's data.
template <typename Infer>
std::optional<Error> checkRun(char const* kind, Infer const& infer, HostTensor const& in, HostTensor const& scale,
    HostTensor const* zeroPoint, HostTensor const& out)
{
    TensorDesc const zeroDesc = zeroPoint != nullptr ? TensorDesc{zeroPoint->type, zeroPoint->dims} : TensorDesc{};
    Expected<TensorDesc> const desc = infer(
        TensorDesc{in.type, in.dims}, TensorDesc{scale.type, scale.dims}, zeroPoint != nullptr ? &zeroDesc : nullptr);
    if (!desc)
    {
        return desc.error();
    }
    if (auto mismatch = outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(kind, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&scale, "scale"},
             std::pair{zeroPoint, "zero point"}, std::pair<HostTensor const*, char const*>{&out, "output"}})
    {
        if (tensor != nullptr)
        {
            if (auto problem = viewProblem(*tensor, role))
            {
                return invalid(kind, *problem);
            }
        }
    }
    return std::nullopt;
}

} // namespace

int64_t ScaleMap::operator()(int64_t index) const noexcept
{
    int64_t scaleIndex = 0;
    for (int32_t d = rank - 1; d >= 0; --d)
    {
        auto const i = static_cast<std::size_t>(d);
        int64_t const coordinate = index % extents[i];
        index /= extents[i];
        scaleIndex += coordinate / blocks[i] * strides[i];
    }
    return scaleIndex;
}

Expected<ScaleMap> mapScales(Dims const& input, Dims const& scale, int32_t axis, Dims const& blockShape)
{
    ScaleMap map;
    map.rank = input.nbDims;
    for (int32_t i = 0; i < input.nbDims; ++i)
    {
        auto const u = static_cast<std::size_t>(i);
        map.extents[u] = input.d[i] > 0 ? input.d[i] : 1; // an empty input has no element to map
        map.blocks[u] = 1;
        map.strides[u] = 0;
    }
    bool const block = scale.nbDims == input.nbDims && (input.nbDims > 1 || blockShape.nbDims >= 0);
    if (blockShape.nbDims >= 0 && !block)
    {
        return refusal("a block shape " + shapeString(blockShape) + " is set but the scale " + shapeString(scale)
            + " does not have the input's rank (the input is " + shapeString(input) + ")");
    }
    if (block)
    {
        if (blockShape.nbDims >= 0 && blockShape.nbDims != input.nbDims)
        {
            return refusal("the block shape " + shapeString(blockShape) + " must have the input's rank (the input is "
                + shapeString(input) + ")");
        }
        int64_t stride = 1;
        for (int32_t i = input.nbDims - 1; i >= 0; --i)
        {
            auto const u = static_cast<std::size_t>(i);
            int64_t const extent = input.d[i];
            int64_t const scales = scale.d[i];
            std::string const where = "axis " + std::to_string(i) + " of the input " + shapeString(input)
                + " and the scale " + shapeString(scale) + ": ";
            int64_t blockExtent = 0;
            if (blockShape.nbDims >= 0)
            {
                int64_t const given = blockShape.d[i];
                if (given < -1 || given == 0)
                {
                    return refusal(where + "the block extent " + std::to_string(given)
                        + " is neither positive nor -1 (the whole axis)");
                }
                blockExtent = given == -1 ? extent : given;
                // Rounded up without forming extent + given - 1, which a plan's block extent near 2^63 overflows.
                int64_t const needed = given == -1 ? 1 : extent / given + (extent % given != 0 ? 1 : 0);
                if (scales != needed)
                {
                    return refusal(where + "blocks of " + std::to_string(given) + " need " + std::to_string(needed)
                        + " scales, not " + std::to_string(scales));
                }
            }
            else
            {
                if (scales < 1 || extent % scales != 0)
                {
                    return refusal(where
                        + "the scale's extent must be at least 1 and divide the input's (or "
                          "the layer needs a block shape)");
                }
                blockExtent = extent / scales;
            }
            map.blocks[u] = blockExtent > 0 ? blockExtent : 1;
            map.strides[u] = stride;
            stride *= scales > 0 ? scales : 1;
        }
        return map;
    }
    if (scale.nbDims == 0 || (scale.nbDims == 1 && scale.d[0] == 1))
    {
        return map; // one scale for the whole tensor, whatever the axis
    }
    if (scale.nbDims == 1)
    {
        int32_t const rank = input.nbDims;
        if (axis < -rank || axis >= rank)
        {
            return refusal("axis " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", "
                + std::to_string(rank) + ") for the input " + shapeString(input));
        }
        int32_t const a = axis < 0 ? axis + rank : axis;
        if (scale.d[0] != input.d[a])
        {
            return refusal("the 1-D scale has " + std::to_string(scale.d[0]) + " elements but the input "
                + shapeString(input) + " has " + std::to_string(input.d[a]) + " along axis " + std::to_string(a));
        }
        map.strides[static_cast<std::size_t>(a)] = 1;
        return map;
    }
    return refusal("the scale " + shapeString(scale) + " has rank " + std::to_string(scale.nbDims)
        + "; a scale is 0-D, 1-D or of the input's rank (the input is " + shapeString(input) + ")");
}

Expected<TensorDesc> inferQuantize(
    QuantizeParams const& params, TensorDesc const& in, TensorDesc const& scale, TensorDesc const* zeroPoint)
{
    constexpr char const* kKind = "quantize";
    if (!contains(kQuantizeFloatTypes, in.type))
    {
        return invalid(kKind,
            std::string("the input is ") + dataTypeName(in.type) + "; it must be "
                + typeSetString(kQuantizeFloatTypes));
    }
    if (!contains(kQuantizeCodeTypes, params.toType))
    {
        return invalid(kKind,
            std::string("the output type ") + dataTypeName(params.toType) + " is not "
                + typeSetString(kQuantizeCodeTypes));
    }
    Expected<ScaleMap> const map
        = checkScales(kKind, params.axis, params.blockShape, in, scale, zeroPoint, params.toType);
    if (!map)
    {
        return map.error();
    }
    return TensorDesc{params.toType, in.dims};
}

Status runQuantize(QuantizeParams const& params, HostTensor const& in, HostTensor const& scale,
    HostTensor const* zeroPoint, HostTensor const& out)
{
    auto const infer
        = [&](TensorDesc const& a, TensorDesc const& s, TensorDesc const* z) { return inferQuantize(params, a, s, z); };
    if (std::optional<Error> error = checkRun("quantize", infer, in, scale, zeroPoint, out))
    {
        return *error;
    }
    ScaleMap const map = mapScales(in.dims, scale.dims, params.axis, params.blockShape).value();
    int64_t const count = elementCount(in.dims);
    if (out.type == DataType::kINT4 && count > 0)
    {
        // Packed: start from zeros, so that the high nibble of an odd count's last byte stays 0.
        std::memset(out.data, 0, static_cast<std::size_t>(storageBytes(DataType::kINT4, count)));
    }
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const at = map(i);
        auto const x = static_cast<float>(loadFloat(in, i));
        auto const s = static_cast<float>(loadFloat(scale, at));
        storeQuantized(out, i, x / s, zeroPoint, at);
    }
    return Done{};
}

Expected<TensorDesc> inferDequantize(
    DequantizeParams const& params, TensorDesc const& in, TensorDesc const& scale, TensorDesc const* zeroPoint)
{
    constexpr char const* kKind = "dequantize";
    if (!contains(kQuantizeCodeTypes, in.type))
    {
        return invalid(kKind,
            std::string("the input is ") + dataTypeName(in.type) + "; it must be " + typeSetString(kQuantizeCodeTypes));
    }
    if (!contains(kQuantizeFloatTypes, params.toType))
    {
        return invalid(kKind,
            std::string("the output type ") + dataTypeName(params.toType) + " is not "
                + typeSetString(kQuantizeFloatTypes));
    }
    Expected<ScaleMap> const map = checkScales(kKind, params.axis, params.blockShape, in, scale, zeroPoint, in.type);
    if (!map)
    {
        return map.error();
    }
    return TensorDesc{params.toType, in.dims};
}

Status runDequantize(DequantizeParams const& params, HostTensor const& in, HostTensor const& scale,
    HostTensor const* zeroPoint, HostTensor const& out)
{
    auto const infer = [&](TensorDesc const& a, TensorDesc const& s, TensorDesc const* z) {
        return inferDequantize(params, a, s, z);
    };
    if (std::optional<Error> error = checkRun("dequantize", infer, in, scale, zeroPoint, out))
    {
        return *error;
    }
    ScaleMap const map = mapScales(in.dims, scale.dims, params.axis, params.blockShape).value();
    int64_t const count = elementCount(in.dims);
    for (int64_t i = 0; i < count; ++i)
    {
        int64_t const at = map(i);
        float const q = loadCode(in, i);
        float const z = zeroPoint != nullptr ? loadCode(*zeroPoint, at) : 0.F;
        auto const s = static_cast<float>(loadFloat(scale, at));
        // q - z is exact in float for every code type; the product rounds once, then the store rounds to the type.
        storeFloat(out, i, static_cast<double>((q - z) * s));
    }
    return Done{};
}

} // namespace kiln::host
