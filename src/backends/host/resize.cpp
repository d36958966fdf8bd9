// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - TensorRT 10's IResizeLayer reference and the operator reference's Resize page (docs.nvidia.com): output extents
//   floor(in * scale); the coordinate transformations kALIGN_CORNERS x * (in - 1) / (out - 1), kASYMMETRIC
//   x * in / out, kHALF_PIXEL (x + 0.5) * in / out - 0.5; kUPPER reads the upper-left element of an axis resized to
//   one element; the nearest roundings; kCUBIC's coefficient (default -0.75) and exclude-outside (outside samples
//   weigh 0, the weights renormalized to sum 1).
// - ONNX's Resize operator (onnx.ai, Resize-11 to -19): with scales the coordinate is divided by the scale; linear and
//   cubic read their neighbours with the edge repeated outside the input; the cubic convolution kernel's formula.
// - Chosen by kiln: an axis of input extent 1 reads its one element with weight 1; the types.
#include "backends/host/resize.h"

#include "backends/host/data_movement.h"
#include "network/resize_math.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

using nvinfer1::InterpolationMode;

constexpr char const* kModeNames[] = {"kNEAREST", "kLINEAR", "kCUBIC"};
static_assert(std::size(kModeNames) == static_cast<std::size_t>(nvinfer1::EnumMax<InterpolationMode>()),
    "kModeNames needs one name for every InterpolationMode");

//! Whether value is one of E's enumerators.
template <typename E>
bool known(E value) noexcept
{
    auto const index = static_cast<int64_t>(value);
    return index >= 0 && index < nvinfer1::EnumMax<E>();
}

Error invalid(ResizeParams const& params, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, resizeKernelName(params) + ": " + message};
}

std::string number(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", value);
    return buffer;
}

//! The output shape the parameters give for an input of shape in.
Expected<Dims> outputShape(ResizeParams const& params, Dims const& in)
{
    if (params.outputDims.nbDims >= 0)
    {
        if (params.outputDims.nbDims != in.nbDims)
        {
            return invalid(params,
                "the output dimensions " + shapeString(params.outputDims) + " have "
                    + std::to_string(params.outputDims.nbDims) + " extents but the input " + shapeString(in)
                    + " has rank " + std::to_string(in.nbDims));
        }
        if (!isValidShape(params.outputDims))
        {
            return invalid(params, "the output dimensions " + shapeString(params.outputDims) + " are not a shape");
        }
        return params.outputDims;
    }
    if (params.scales.empty())
    {
        return in;
    }
    if (static_cast<int32_t>(params.scales.size()) != in.nbDims)
    {
        return invalid(params,
            std::to_string(params.scales.size()) + " scales for the input " + shapeString(in)
                + "; give one per input axis");
    }
    Dims out = in;
    for (int32_t i = 0; i < in.nbDims; ++i)
    {
        float const scale = params.scales[static_cast<std::size_t>(i)];
        if (!std::isfinite(scale) || scale <= 0.F)
        {
            return invalid(
                params, "scale " + std::to_string(i) + " is " + number(scale) + "; scales must be positive and finite");
        }
        std::optional<int64_t> const extent = resizedExtent(in.d[i], scale);
        if (!extent)
        {
            return invalid(params,
                "axis " + std::to_string(i) + ": extent " + std::to_string(in.d[i]) + " times scale " + number(scale)
                    + " does not fit in 64 bits");
        }
        out.d[i] = *extent;
    }
    return out;
}

} // namespace

std::string resizeKernelName(ResizeParams const& params)
{
    char const* const mode = interpolationModeName(params.mode);
    return mode != nullptr ? std::string("resize ") + mode : std::string("resize");
}

float resizeAxisScale(ResizeParams const& params, int32_t axis) noexcept
{
    bool const scaled
        = params.outputDims.nbDims < 0 && axis >= 0 && static_cast<std::size_t>(axis) < params.scales.size();
    return scaled ? params.scales[static_cast<std::size_t>(axis)] : 0.F;
}

char const* interpolationModeName(InterpolationMode mode) noexcept
{
    auto const index = static_cast<std::size_t>(mode);
    return index < std::size(kModeNames) ? kModeNames[index] : nullptr;
}

Expected<TensorDesc> inferResize(ResizeParams const& params, TensorDesc const& in)
{
    if (interpolationModeName(params.mode) == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "resize: unknown InterpolationMode " + std::to_string(static_cast<int32_t>(params.mode))};
    }
    if (!known(params.transformation))
    {
        return invalid(params,
            "unknown ResizeCoordinateTransformation " + std::to_string(static_cast<int32_t>(params.transformation)));
    }
    if (!known(params.selector))
    {
        return invalid(params, "unknown ResizeSelector " + std::to_string(static_cast<int32_t>(params.selector)));
    }
    if (!known(params.rounding))
    {
        return invalid(params, "unknown ResizeRoundMode " + std::to_string(static_cast<int32_t>(params.rounding)));
    }
    if (!std::isfinite(params.cubicCoeff))
    {
        return invalid(params, "the cubic coefficient is " + number(params.cubicCoeff) + "; it must be finite");
    }
    bool const nearest = params.mode == InterpolationMode::kNEAREST;
    TypeSet const accepted = nearest ? kMoveTypes : kResizeInterpolatedTypes;
    if (!contains(accepted, in.type))
    {
        return invalid(params,
            std::string("does not take ") + dataTypeName(in.type) + " inputs (it takes " + typeSetString(accepted)
                + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid(params, "the input shape " + shapeString(in.dims) + " is not valid");
    }
    Expected<Dims> const out = outputShape(params, in.dims);
    if (!out)
    {
        return out.error();
    }
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        if (in.dims.d[i] == 0 && out.value().d[i] > 0)
        {
            return invalid(params,
                "axis " + std::to_string(i) + " of the input " + shapeString(in.dims)
                    + " is empty but its output extent is " + std::to_string(out.value().d[i]));
        }
    }
    return TensorDesc{in.type, out.value()};
}

Status runResize(ResizeParams const& params, HostTensor const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferResize(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, in.type, desc.value().dims))
    {
        return invalid(params, *mismatch);
    }
    bool const nearest = params.mode == InterpolationMode::kNEAREST;
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        std::optional<Error> const error = nearest ? checkMoveTensor(*tensor, role) : checkTensor(*tensor, role);
        if (error)
        {
            return invalid(params, error->message);
        }
    }
    int64_t const count = elementCount(out.dims);
    if (count == 0)
    {
        return Done{};
    }
    int32_t const rank = in.dims.nbDims;
    // Per axis, per output coordinate: the taps (input indices and weights).
    std::vector<std::vector<ResizeTaps<double>>> taps(static_cast<std::size_t>(rank));
    for (int32_t a = 0; a < rank; ++a)
    {
        int64_t const inExtent = in.dims.d[a];
        int64_t const outExtent = out.dims.d[a];
        float const scale = resizeAxisScale(params, a);
        ResizeAxisKind const kind = resizeAxisKind(inExtent, outExtent, scale);
        auto& axis = taps[static_cast<std::size_t>(a)];
        axis.resize(static_cast<std::size_t>(outExtent));
        for (int64_t x = 0; x < outExtent; ++x)
        {
            ResizeTaps<double>& tap = axis[static_cast<std::size_t>(x)];
            if (kind == ResizeAxisKind::kINTERPOLATE)
            {
                double const c
                    = resizeSourceCoordinate(x, inExtent, outExtent, scale, params.transformation, params.selector);
                tap = resizeTaps<double>(
                    c, inExtent, params.mode, params.rounding, params.cubicCoeff, params.excludeOutside);
            }
            else
            {
                tap.index[0] = kind == ResizeAxisKind::kCOPY ? x : 0;
            }
        }
    }
    Index const strides = rowMajorStrides(in.dims);
    for (int64_t o = 0; o < count; ++o)
    {
        Index const y = coordinatesOf(out.dims, o);
        std::array<ResizeTaps<double> const*, Dims::MAX_DIMS> chosen{};
        int64_t combinations = 1;
        for (int32_t a = 0; a < rank; ++a)
        {
            auto const i = static_cast<std::size_t>(a);
            chosen[i] = &taps[i][static_cast<std::size_t>(y[i])];
            combinations *= chosen[i]->count;
        }
        if (nearest)
        {
            int64_t source = 0;
            for (int32_t a = 0; a < rank; ++a)
            {
                auto const i = static_cast<std::size_t>(a);
                source += chosen[i]->index[0] * strides[i];
            }
            copyElement(out, o, in, source);
            continue;
        }
        double sum = 0.0;
        for (int64_t k = 0; k < combinations; ++k)
        {
            int64_t rest = k;
            int64_t source = 0;
            double weight = 1.0;
            for (int32_t a = rank - 1; a >= 0; --a)
            {
                auto const i = static_cast<std::size_t>(a);
                ResizeTaps<double> const& tap = *chosen[i];
                auto const digit = static_cast<std::size_t>(rest % tap.count);
                rest /= tap.count;
                source += tap.index[digit] * strides[i];
                weight *= tap.weight[digit];
            }
            if (weight != 0.0)
            {
                sum += weight * loadFloat(in, source);
            }
        }
        storeFloat(out, o, sum);
    }
    return Done{};
}

} // namespace kiln::host
