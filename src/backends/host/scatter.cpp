// SPDX-License-Identifier: Apache-2.0
// The modes follow TensorRT's IScatterLayer (kELEMENT, kND) and ONNX's ScatterElements / ScatterND with reduction
// "none"; negative indices as ONNX defines them.
#include "backends/host/scatter.h"

#include "backends/host/data_movement.h"

#include <cstring>
#include <string>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "scatter: " + message};
}

} // namespace

Expected<TensorDesc> inferScatter(
    ScatterParams const& params, TensorDesc const& data, TensorDesc const& indices, TensorDesc const& updates)
{
    if (!contains(kMoveTypes, data.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(data.type) + " data (it takes "
            + typeSetString(kMoveTypes) + ")");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return invalid(
            std::string("the indices are ") + dataTypeName(indices.type) + "; they must be kINT32 or kINT64");
    }
    if (updates.type != data.type)
    {
        return invalid(std::string("the updates are ") + dataTypeName(updates.type) + " but the data is "
            + dataTypeName(data.type) + "; they must be one type");
    }
    for (Dims const* dims : {&data.dims, &indices.dims, &updates.dims})
    {
        if (!isValidShape(*dims))
        {
            return invalid("the shape " + shapeString(*dims) + " is not concrete");
        }
    }
    int32_t const rank = data.dims.nbDims;
    if (rank < 1)
    {
        return invalid("the data is 0-D; a scatter needs rank 1 or more");
    }
    if (params.mode == nvinfer1::ScatterMode::kELEMENT)
    {
        if (params.axis < -rank || params.axis >= rank)
        {
            return invalid("axis " + std::to_string(params.axis) + " is outside [" + std::to_string(-rank) + ", "
                + std::to_string(rank) + ") for the data " + shapeString(data.dims));
        }
        if (!sameShape(indices.dims, updates.dims) || indices.dims.nbDims != rank)
        {
            return invalid("kELEMENT needs indices and updates of one shape and the data's rank; the data is "
                + shapeString(data.dims) + ", the indices " + shapeString(indices.dims) + ", the updates "
                + shapeString(updates.dims));
        }
        int32_t const axis = params.axis < 0 ? params.axis + rank : params.axis;
        for (int32_t i = 0; i < rank; ++i)
        {
            if (i != axis && indices.dims.d[i] > data.dims.d[i])
            {
                return invalid("the indices " + shapeString(indices.dims) + " exceed the data " + shapeString(data.dims)
                    + " along axis " + std::to_string(i) + " (only the scatter axis may be longer)");
            }
        }
    }
    else if (params.mode == nvinfer1::ScatterMode::kND)
    {
        int32_t const q = indices.dims.nbDims;
        int64_t const k = q >= 1 ? indices.dims.d[q - 1] : 0;
        if (k < 1 || k > rank)
        {
            return invalid("kND needs index tuples (the last extent of the indices " + shapeString(indices.dims)
                + ") of 1 to the data's rank " + std::to_string(rank) + " entries");
        }
        Dims expected{static_cast<int32_t>(q - 1 + rank - k), {}};
        for (int32_t i = 0; i < q - 1; ++i)
        {
            expected.d[i] = indices.dims.d[i];
        }
        for (int64_t i = k; i < rank; ++i)
        {
            expected.d[q - 1 + i - k] = data.dims.d[i];
        }
        if (expected.nbDims > Dims::MAX_DIMS || !sameShape(expected, updates.dims))
        {
            return invalid("the updates are " + shapeString(updates.dims) + "; kND needs indices.shape[:-1] + "
                + "data.shape[k:] (" + (expected.nbDims > Dims::MAX_DIMS ? "too many axes" : shapeString(expected))
                + ")");
        }
    }
    else
    {
        return invalid("mode " + std::to_string(static_cast<int32_t>(params.mode)) + " is not a valid ScatterMode");
    }
    return data;
}

ScatterGeometry scatterGeometry(ScatterParams const& params, Dims const& data, Dims const& indices, Dims const& updates)
{
    ScatterGeometry g;
    g.mode = params.mode;
    g.rank = updates.nbDims;
    Index const strides = rowMajorStrides(data);
    for (int32_t i = 0; i < data.nbDims; ++i)
    {
        auto const a = static_cast<std::size_t>(i);
        g.strides[a] = strides[a];
        g.dataDims[a] = data.d[i];
    }
    for (int32_t i = 0; i < updates.nbDims; ++i)
    {
        g.extents[static_cast<std::size_t>(i)] = updates.d[i] > 0 ? updates.d[i] : 1;
    }
    g.axis = params.axis < 0 ? params.axis + data.nbDims : params.axis;
    if (params.mode == nvinfer1::ScatterMode::kND)
    {
        g.tupleLength = static_cast<int32_t>(indices.d[indices.nbDims - 1]);
        for (int32_t i = g.tupleLength; i < data.nbDims; ++i)
        {
            g.sliceSize *= data.d[i];
        }
        g.sliceSize = g.sliceSize > 0 ? g.sliceSize : 1; // no update elements then
    }
    g.updates = elementCount(updates);
    return g;
}

Status runScatter(ScatterParams const& params, HostTensor const& data, HostTensor const& indices,
    HostTensor const& updates, HostTensor const& out)
{
    Expected<TensorDesc> const desc
        = inferScatter(params, {data.type, data.dims}, {indices.type, indices.dims}, {updates.type, updates.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (auto mismatch = outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] : {std::pair{&data, "data"}, std::pair{&indices, "indices"},
             std::pair{&updates, "updates"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const bytes = elementCount(data.dims) * elementBytes(data.type);
    if (bytes > 0 && out.data != data.data)
    {
        std::memmove(out.data, data.data, static_cast<std::size_t>(bytes));
    }
    ScatterGeometry const g = scatterGeometry(params, data.dims, indices.dims, updates.dims);
    auto const index = [&](int64_t i) { return loadIndex(indices, i); };
    for (int64_t u = 0; u < g.updates; ++u)
    {
        int64_t const target = scatterTarget(g, u, index);
        if (target >= 0)
        {
            copyElement(out, target, updates, u);
        }
    }
    return Done{};
}

} // namespace kiln::host
