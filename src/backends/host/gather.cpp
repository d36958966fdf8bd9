// SPDX-License-Identifier: Apache-2.0
// Where the rules come from:
// - NvInfer.h's IGatherLayer and network/layers/gather.cpp's shape rule: the three modes, axis, nbElementWiseDims and
//   the output shapes.
// - The operator reference's Gather page (docs.nvidia.com/deeplearning/tensorrt/latest/_static/operators/Gather.html):
//   "Every element I_j in indices must obey 0 <= I_j < input_dimensions[axis]"; indices int32 or int64.
// - Negative indices do not wrap in TensorRT: NVIDIA/TensorRT issue 1229; onnx-tensorrt added the wrap in its
//   importer (pull requests 678 and 681). kiln refuses them with out-of-range ones.
#include "backends/host/gather.h"

#include "backends/host/data_movement.h"

#include <array>
#include <string>

namespace kiln::host
{

namespace
{

constexpr std::array<GatherModeInfo, 3> kModes{{
    {GatherMode::kDEFAULT, "kDEFAULT", "Gather"},
    {GatherMode::kELEMENT, "kELEMENT", "GatherElements"},
    {GatherMode::kND, "kND", "GatherND"},
}};
static_assert(kModes.size() == static_cast<std::size_t>(nvinfer1::EnumMax<GatherMode>()),
    "kModes needs one row for every GatherMode");

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
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string("gather ") + mode + ": " + message};
}

void push(Dims& dims, int64_t extent) noexcept
{
    if (dims.nbDims < Dims::MAX_DIMS)
    {
        dims.d[dims.nbDims] = extent;
    }
    ++dims.nbDims;
}

} // namespace

std::span<GatherModeInfo const> gatherModes() noexcept
{
    return kModes;
}

Expected<TensorDesc> inferGather(GatherParams const& params, TensorDesc const& data, TensorDesc const& indices)
{
    auto const modeIndex = static_cast<std::size_t>(params.mode);
    if (modeIndex >= kModes.size())
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "gather: unknown GatherMode " + std::to_string(static_cast<int32_t>(params.mode))};
    }
    char const* const name = kModes[modeIndex].name;
    if (!contains(kMoveTypes, data.type))
    {
        return invalid(name,
            std::string("does not take ") + dataTypeName(data.type) + " data (it takes " + typeSetString(kMoveTypes)
                + ")");
    }
    if (!contains(kGatherIndexTypes, indices.type))
    {
        return invalid(name,
            std::string("does not take ") + dataTypeName(indices.type) + " indices (it takes "
                + typeSetString(kGatherIndexTypes) + ")");
    }
    if (!isValidShape(data.dims) || !isValidShape(indices.dims))
    {
        return invalid(name,
            "the data " + shapeString(data.dims) + " and indices " + shapeString(indices.dims)
                + " must be concrete shapes");
    }
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int32_t const k = params.nbElementWiseDims;
    std::string const shapes = "data " + shapeString(data.dims) + ", indices " + shapeString(indices.dims);
    if (r < 1)
    {
        return invalid(name, "the data must have rank 1 or more; " + shapes);
    }
    if (k < 0 || k > 1 || (k == 1 && params.mode == GatherMode::kELEMENT))
    {
        return invalid(name, "nbElementWiseDims is " + std::to_string(k) + "; it is 0 or 1, and 0 in kELEMENT mode");
    }
    if (params.mode != GatherMode::kND && (params.axis < 0 || params.axis >= r))
    {
        return invalid(name, "axis " + std::to_string(params.axis) + " is out of range for " + shapes);
    }
    if (k == 1 && q >= 1 && data.dims.d[0] != indices.dims.d[0])
    {
        return invalid(name, "the element-wise dimension 0 differs: " + shapes);
    }
    Dims out{0, {}};
    switch (params.mode)
    {
    case GatherMode::kDEFAULT:
        if (k > params.axis || k > q)
        {
            return invalid(name,
                "nbElementWiseDims 1 must be at most the axis " + std::to_string(params.axis)
                    + " and the indices' rank; " + shapes);
        }
        for (int32_t i = 0; i < params.axis; ++i)
        {
            push(out, data.dims.d[i]);
        }
        for (int32_t i = k; i < q; ++i)
        {
            push(out, indices.dims.d[i]);
        }
        for (int32_t i = params.axis + 1; i < r; ++i)
        {
            push(out, data.dims.d[i]);
        }
        break;
    case GatherMode::kELEMENT:
        if (q != r)
        {
            return invalid(name, "the indices and the data must have the same rank; " + shapes);
        }
        for (int32_t i = 0; i < r; ++i)
        {
            if (i != params.axis && indices.dims.d[i] > data.dims.d[i])
            {
                return invalid(name,
                    "the indices' extent " + std::to_string(indices.dims.d[i]) + " in dimension " + std::to_string(i)
                        + " exceeds the data's; " + shapes);
            }
        }
        out = indices.dims;
        break;
    case GatherMode::kND:
    {
        int64_t const m = q >= 1 ? indices.dims.d[q - 1] : 0;
        if (k >= q || m < 1 || m > r - k)
        {
            return invalid(name,
                "the indices' last extent must be 1 to the data's rank minus nbElementWiseDims ("
                    + std::to_string(r - k) + "), and nbElementWiseDims " + std::to_string(k)
                    + " less than the indices' rank; " + shapes);
        }
        for (int32_t i = 0; i < q - 1; ++i)
        {
            push(out, indices.dims.d[i]);
        }
        for (auto i = static_cast<int32_t>(k + m); i < r; ++i)
        {
            push(out, data.dims.d[i]);
        }
        break;
    }
    }
    if (out.nbDims > Dims::MAX_DIMS)
    {
        return invalid(name, "the output would have " + std::to_string(out.nbDims) + " dimensions; " + shapes);
    }
    return TensorDesc{data.type, out};
}

Status runGather(GatherParams const& params, HostTensor const& data, HostTensor const& indices, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferGather(params, {data.type, data.dims}, {indices.type, indices.dims});
    if (!desc)
    {
        return desc.error();
    }
    char const* const name = kModes[static_cast<std::size_t>(params.mode)].name;
    if (std::optional<std::string> const mismatch = outputMismatch(out, data.type, desc.value().dims))
    {
        return invalid(name, *mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&data, "data"}, std::pair{&indices, "indices"}, {&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(name, error->message);
        }
    }
    int32_t const r = data.dims.nbDims;
    int32_t const q = indices.dims.nbDims;
    int32_t const k = params.nbElementWiseDims;
    Index const dataStrides = rowMajorStrides(data.dims);
    Index const indexStrides = rowMajorStrides(indices.dims);
    // Reads index i of the indices, checked against the extent of data dimension axis.
    auto const checkedIndex = [&](int64_t position, int32_t axis, int64_t& value) -> std::optional<Error> {
        value = loadIndex(indices, position);
        int64_t const extent = data.dims.d[axis];
        if (value < 0 || value >= extent)
        {
            return invalid(name,
                "index " + std::to_string(value) + " (indices element " + std::to_string(position)
                    + ") is out of range for extent " + std::to_string(extent) + " of data dimension "
                    + std::to_string(axis) + " (indices must lie in [0, extent); negative ones do not wrap)");
        }
        return std::nullopt;
    };
    int64_t const count = elementCount(out.dims);
    for (int64_t o = 0; o < count; ++o)
    {
        Index const c = coordinatesOf(out.dims, o);
        int64_t source = 0;
        int64_t value = 0;
        switch (params.mode)
        {
        case GatherMode::kDEFAULT:
        {
            // out = [a_0..a_{axis-1}, j_k..j_{q-1}, b_{axis+1}..]
            int64_t position = k == 1 ? c[0] * indexStrides[0] : 0;
            for (int32_t i = k; i < q; ++i)
            {
                position
                    += c[static_cast<std::size_t>(params.axis + i - k)] * indexStrides[static_cast<std::size_t>(i)];
            }
            if (std::optional<Error> error = checkedIndex(position, params.axis, value))
            {
                return *error;
            }
            for (int32_t i = 0; i < params.axis; ++i)
            {
                source += c[static_cast<std::size_t>(i)] * dataStrides[static_cast<std::size_t>(i)];
            }
            source += value * dataStrides[static_cast<std::size_t>(params.axis)];
            for (int32_t i = params.axis + 1; i < r; ++i)
            {
                source += c[static_cast<std::size_t>(i - 1 + q - k)] * dataStrides[static_cast<std::size_t>(i)];
            }
            break;
        }
        case GatherMode::kELEMENT:
            if (std::optional<Error> error = checkedIndex(o, params.axis, value))
            {
                return *error;
            }
            for (int32_t i = 0; i < r; ++i)
            {
                source += (i == params.axis ? value : c[static_cast<std::size_t>(i)])
                    * dataStrides[static_cast<std::size_t>(i)];
            }
            break;
        case GatherMode::kND:
        {
            int64_t const m = indices.dims.d[q - 1];
            int64_t row = 0;
            for (int32_t i = 0; i < q - 1; ++i)
            {
                row += c[static_cast<std::size_t>(i)] * indexStrides[static_cast<std::size_t>(i)];
            }
            source = k == 1 ? c[0] * dataStrides[0] : 0;
            for (int64_t j = 0; j < m; ++j)
            {
                auto const axis = static_cast<int32_t>(k + j);
                if (std::optional<Error> error = checkedIndex(row + j, axis, value))
                {
                    return *error;
                }
                source += value * dataStrides[static_cast<std::size_t>(axis)];
            }
            for (auto i = static_cast<int32_t>(k + m); i < r; ++i)
            {
                source += c[static_cast<std::size_t>(i - k - m + q - 1)] * dataStrides[static_cast<std::size_t>(i)];
            }
            break;
        }
        }
        copyElement(out, o, data, source);
    }
    return Done{};
}

} // namespace kiln::host
