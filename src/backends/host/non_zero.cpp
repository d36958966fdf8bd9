// SPDX-License-Identifier: Apache-2.0
// One pass counts the non-zero elements (the row stride of the compact result), a second writes their coordinates,
// walking the elements in row-major order with a running multi-index.
#include "backends/host/non_zero.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "non-zero: " + message};
}

} // namespace

std::optional<std::string> indicesProblem(TensorDesc const& room, HostTensor const& indices)
{
    if (indices.type != room.type || indices.dims.nbDims != 2 || indices.dims.d[0] != room.dims.d[0]
        || indices.dims.d[1] < room.dims.d[1])
    {
        return "the indices are " + std::string(dataTypeName(indices.type)) + " " + shapeString(indices.dims)
            + "; they must be " + dataTypeName(room.type) + " [" + std::to_string(room.dims.d[0])
            + ", n] with n at least " + std::to_string(room.dims.d[1]) + " (room for every element)";
    }
    return std::nullopt;
}

Expected<TensorDesc> inferNonZero(NonZeroParams const& params, TensorDesc const& in)
{
    if (!contains(kNonZeroTypes, in.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kNonZeroTypes) + ")");
    }
    if (!isValidShape(in.dims))
    {
        return invalid("the input shape " + shapeString(in.dims) + " is not concrete");
    }
    if (params.indicesType != DataType::kINT32 && params.indicesType != DataType::kINT64)
    {
        return invalid(
            std::string("the indices type is ") + dataTypeName(params.indicesType) + "; it must be kINT32 or kINT64");
    }
    if (params.indicesType == DataType::kINT32
        && std::any_of(in.dims.d, in.dims.d + in.dims.nbDims,
            [](int64_t extent) { return extent - 1 > std::numeric_limits<int32_t>::max(); }))
    {
        return invalid("the input " + shapeString(in.dims)
            + " has an axis longer than kINT32 indices can number; use kINT64 indices");
    }
    return TensorDesc{params.indicesType, Dims{2, {in.dims.nbDims, elementCount(in.dims)}}};
}

bool isNonZeroElement(HostTensor const& in, int64_t index) noexcept
{
    return numberKind(in.type) == NumberKind::kFLOATING ? loadFloat(in, index) != 0.0 : loadInteger(in, index) != 0;
}

Status runNonZero(NonZeroParams const& params, HostTensor const& in, HostTensor const& indices, HostTensor const& count)
{
    Expected<TensorDesc> const desc = inferNonZero(params, {in.type, in.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const problem = indicesProblem(desc.value(), indices))
    {
        return invalid(*problem);
    }
    if ((count.type != DataType::kINT32 && count.type != DataType::kINT64) || count.dims.nbDims != 0)
    {
        return invalid("the count is " + std::string(dataTypeName(count.type)) + " " + shapeString(count.dims)
            + "; it must be a 0-D kINT32 or kINT64 tensor");
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input 0"}, std::pair{&indices, "output 0"}, std::pair{&count, "the count"}})
    {
        if (std::optional<Error> const error = checkTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    int64_t const volume = elementCount(in.dims);
    int32_t const rank = in.dims.nbDims;
    int64_t n = 0;
    for (int64_t i = 0; i < volume; ++i)
    {
        n += isNonZeroElement(in, i) ? 1 : 0;
    }
    if (count.type == DataType::kINT32 && n > std::numeric_limits<int32_t>::max())
    {
        return invalid("the input has " + std::to_string(n) + " non-zero elements, more than a kINT32 count holds");
    }
    std::array<int64_t, Dims::MAX_DIMS> coordinate{};
    int64_t column = 0;
    for (int64_t i = 0; i < volume; ++i)
    {
        if (isNonZeroElement(in, i))
        {
            for (int32_t r = 0; r < rank; ++r)
            {
                storeInteger(indices, r * n + column, coordinate[static_cast<std::size_t>(r)]);
            }
            ++column;
        }
        // The next element's multi-index: the last coordinate runs fastest.
        for (int32_t r = rank - 1; r >= 0; --r)
        {
            auto const a = static_cast<std::size_t>(r);
            if (++coordinate[a] < in.dims.d[r])
            {
                break;
            }
            coordinate[a] = 0;
        }
    }
    storeInteger(count, 0, n);
    return Done{};
}

} // namespace kiln::host
