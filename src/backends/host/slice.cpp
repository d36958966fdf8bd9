// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - The operator reference's Slice page for TensorRT 10.16 (docs.nvidia.com/deeplearning/tensorrt/10.16.0/_static/
//   operators/Slice.html): x_i = y_i * stride_i + start_i; STRICT_BOUNDS errors outside [0, d); WRAP mod(x, d); CLAMP
//   to [0, d - 1]; FILL with the fill value (input 4, "of type T or implicitly convertible to T"); REFLECT
//   c = mod(|x|, 2d - 2), z = 2d - 2 - c when c >= d.
// - network/layers/slice.cpp's shape rule: the output extent is size; axes name the sliced axes.
// - Chosen by kiln: the fill value is 0 when input 4 is absent (kiln's NvInfer.h does not say); REFLECT of an extent
//   of 1 reads element 0 (2d - 2 is 0 there).
#include "backends/host/slice.h"

#include "backends/host/data_movement.h"

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

int64_t floorMod(int64_t x, int64_t m) noexcept
{
    int64_t const r = x % m;
    return r < 0 ? r + m : r;
}

int64_t wrap(int64_t x, int64_t extent) noexcept
{
    return floorMod(x, extent);
}

int64_t clamp(int64_t x, int64_t extent) noexcept
{
    return x < 0 ? 0 : (x >= extent ? extent - 1 : x);
}

int64_t reflect(int64_t x, int64_t extent) noexcept
{
    if (extent == 1)
    {
        return 0;
    }
    int64_t const period = 2 * extent - 2;
    int64_t const c = (x < 0 ? -(x % period) : x % period);
    return c >= extent ? period - c : c;
}

constexpr std::array<SampleModeInfo, 5> kModes{{
    {SampleMode::kSTRICT_BOUNDS, "kSTRICT_BOUNDS", nullptr},
    {SampleMode::kWRAP, "kWRAP", wrap},
    {SampleMode::kCLAMP, "kCLAMP", clamp},
    {SampleMode::kFILL, "kFILL", nullptr},
    {SampleMode::kREFLECT, "kREFLECT", reflect},
}};
static_assert(kModes.size() == static_cast<std::size_t>(nvinfer1::EnumMax<SampleMode>()),
    "kModes needs one row for every SampleMode");

constexpr bool rowsInEnumOrder() noexcept
{
    for (std::size_t i = 0; i < kModes.size(); ++i)
    {
        if (static_cast<std::size_t>(kModes[i].mode) != i)
        {
            return false;
        }
    }
    return true;
}
static_assert(rowsInEnumOrder(), "kModes rows must follow the enum's order");

Error invalid(char const* mode, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("slice ") + mode + ": " + message};
}

//! Per input axis: start, size, stride (whole-axis copies for axes not sliced).
struct Plan
{
    Index start{};
    Index size{};
    Index stride{};
};

Expected<Plan> plan(SliceParams const& params, Dims const& in, char const* name)
{
    int32_t const rank = in.nbDims;
    Plan result;
    for (int32_t i = 0; i < rank; ++i)
    {
        result.size[static_cast<std::size_t>(i)] = in.d[i];
        result.stride[static_cast<std::size_t>(i)] = 1;
    }
    std::vector<int32_t> axes;
    if (params.axes.nbDims < 0)
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            axes.push_back(i);
        }
    }
    else
    {
        std::vector<bool> seen(static_cast<std::size_t>(rank), false);
        for (int32_t i = 0; i < params.axes.nbDims && i < Dims::MAX_DIMS; ++i)
        {
            int64_t const axis = params.axes.d[i] < 0 ? params.axes.d[i] + rank : params.axes.d[i];
            if (axis < 0 || axis >= rank || seen[static_cast<std::size_t>(axis)])
            {
                return invalid(name,
                    "axis " + std::to_string(params.axes.d[i]) + " is out of range or repeated for the input "
                        + shapeString(in));
            }
            seen[static_cast<std::size_t>(axis)] = true;
            axes.push_back(static_cast<int32_t>(axis));
        }
    }
    auto const n = static_cast<int32_t>(axes.size());
    for (auto const& [operand, what] :
        {std::pair{&params.start, "start"}, std::pair{&params.size, "size"}, std::pair{&params.stride, "stride"}})
    {
        if (operand->nbDims != n)
        {
            return invalid(name,
                std::string("the ") + what + " " + shapeString(*operand) + " needs one entry per sliced axis ("
                    + std::to_string(n) + ") of the input " + shapeString(in));
        }
    }
    for (int32_t i = 0; i < n; ++i)
    {
        auto const a = static_cast<std::size_t>(axes[static_cast<std::size_t>(i)]);
        if (params.size.d[i] < 0)
        {
            return invalid(name,
                "the size of axis " + std::to_string(a) + " is " + std::to_string(params.size.d[i])
                    + "; extents are at least 0");
        }
        result.start[a] = params.start.d[i];
        result.size[a] = params.size.d[i];
        result.stride[a] = params.stride.d[i];
        // Every coordinate start + y * stride (y below the size) must be an int64: the kernels form it for each
        // output element before they compare it with the extent or wrap it.
        int64_t reach = 0;
        int64_t last = 0;
        if (result.size[a] > 0
            && (__builtin_mul_overflow(result.size[a] - 1, result.stride[a], &reach)
                || __builtin_add_overflow(result.start[a], reach, &last)))
        {
            return invalid(name,
                "axis " + std::to_string(a) + ": start " + std::to_string(result.start[a]) + " + ("
                    + std::to_string(result.size[a]) + " - 1) * stride " + std::to_string(result.stride[a])
                    + " passes a 64-bit coordinate");
        }
    }
    return result;
}

} // namespace

std::span<SampleModeInfo const> sampleModes() noexcept
{
    return kModes;
}

Expected<TensorDesc> inferSlice(SliceParams const& params, TensorDesc const& in)
{
    auto const modeIndex = static_cast<std::size_t>(params.mode);
    if (modeIndex >= kModes.size())
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "slice: unknown SampleMode " + std::to_string(static_cast<int32_t>(params.mode))};
    }
    char const* const name = kModes[modeIndex].name;
    if (!contains(kMoveTypes, in.type))
    {
        return invalid(name,
            std::string("does not take ") + dataTypeName(in.type) + " inputs (it takes " + typeSetString(kMoveTypes)
                + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid(name, "the input shape " + shapeString(in.dims) + " is not valid");
    }
    Expected<Plan> const p = plan(params, in.dims, name);
    if (!p)
    {
        return p.error();
    }
    Dims out{in.dims.nbDims, {}};
    for (int32_t i = 0; i < out.nbDims; ++i)
    {
        out.d[i] = p.value().size[static_cast<std::size_t>(i)];
    }
    return TensorDesc{in.type, out};
}

Status runSlice(SliceParams const& params, HostTensor const& in, HostTensor const& out, HostTensor const* fill)
{
    Expected<TensorDesc> const desc = inferSlice(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    SampleModeInfo const& info = kModes[static_cast<std::size_t>(params.mode)];
    char const* const name = info.name;
    if (out.type != in.type || !sameShape(out.dims, desc.value().dims))
    {
        return invalid(name,
            std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims) + " but must be "
                + dataTypeName(in.type) + " " + shapeString(desc.value().dims));
    }
    for (auto const& [tensor, role] : {std::pair{&in, "input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(name, error->message);
        }
    }
    bool const filling = params.mode == SampleMode::kFILL;
    if (fill != nullptr && !filling)
    {
        return invalid(name, "takes a fill value only in kFILL mode");
    }
    if (fill != nullptr)
    {
        if (std::optional<Error> const error = checkTensor(*fill, "the fill value"))
        {
            return invalid(name, error->message);
        }
        if (elementCount(fill->dims) != 1)
        {
            return invalid(name, "the fill value has shape " + shapeString(fill->dims) + "; it must hold one element");
        }
    }
    Plan const p = plan(params, in.dims, name).value();
    int64_t const count = elementCount(out.dims);
    int32_t const rank = in.dims.nbDims;
    if (!filling && count > 0)
    {
        for (int32_t i = 0; i < rank; ++i)
        {
            if (in.dims.d[i] == 0)
            {
                return invalid(name,
                    "axis " + std::to_string(i) + " of the input " + shapeString(in.dims)
                        + " is empty; only kFILL produces a nonempty output from it");
            }
        }
    }
    // The fill value, once, in the output's type (bytes when the types agree, otherwise converted).
    HostBuffer fillValue(out.type, Dims{0, {}}, out.scale);
    if (fill != nullptr)
    {
        if (fill->type == out.type)
        {
            copyElement(fillValue.tensor(), 0, *fill, 0);
        }
        else if (numberKind(fill->type) == NumberKind::kFLOATING)
        {
            storeFloat(fillValue.tensor(), 0, loadFloat(*fill, 0));
        }
        else
        {
            storeInteger(fillValue.tensor(), 0, loadInteger(*fill, 0));
        }
    }
    Index const strides = rowMajorStrides(in.dims);
    for (int64_t o = 0; o < count; ++o)
    {
        Index const y = coordinatesOf(out.dims, o);
        int64_t source = 0;
        bool outside = false;
        for (int32_t i = 0; i < rank; ++i)
        {
            auto const a = static_cast<std::size_t>(i);
            int64_t x = p.start[a] + y[a] * p.stride[a];
            int64_t const extent = in.dims.d[i];
            if (x < 0 || x >= extent)
            {
                if (params.mode == SampleMode::kSTRICT_BOUNDS)
                {
                    return invalid(name,
                        "coordinate " + std::to_string(x) + " (start " + std::to_string(p.start[a]) + " + "
                            + std::to_string(y[a]) + " * stride " + std::to_string(p.stride[a]) + ") of axis "
                            + std::to_string(i) + " is outside the extent " + std::to_string(extent) + " of the input "
                            + shapeString(in.dims));
                }
                if (filling)
                {
                    outside = true;
                    break;
                }
                x = info.map(x, extent);
            }
            source += x * strides[a];
        }
        if (outside)
        {
            copyElement(out, o, fillValue.tensor(), 0);
        }
        else
        {
            copyElement(out, o, in, source);
        }
    }
    return Done{};
}

} // namespace kiln::host
