// SPDX-License-Identifier: Apache-2.0
#include "backends/host/data_movement.h"

#include <cstring>

namespace kiln::host
{

Index rowMajorStrides(Dims const& dims) noexcept
{
    Index strides{};
    int64_t stride = 1;
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        strides[static_cast<std::size_t>(i)] = stride;
        stride *= dims.d[i];
    }
    return strides;
}

Index coordinatesOf(Dims const& dims, int64_t index) noexcept
{
    Index coordinates{};
    for (int32_t i = dims.nbDims - 1; i >= 0; --i)
    {
        if (dims.d[i] > 0)
        {
            coordinates[static_cast<std::size_t>(i)] = index % dims.d[i];
            index /= dims.d[i];
        }
    }
    return coordinates;
}

int64_t elementBytes(DataType type) noexcept
{
    int32_t const bits = dataTypeBits(type);
    return bits % 8 == 0 ? bits / 8 : 0;
}

void copyElement(HostTensor const& dst, int64_t dstIndex, HostTensor const& src, int64_t srcIndex) noexcept
{
    int64_t const size = elementBytes(src.type);
    std::memcpy(static_cast<std::byte*>(dst.data) + dstIndex * size,
        static_cast<std::byte const*>(src.data) + srcIndex * size, static_cast<std::size_t>(size));
}

std::optional<Error> checkMoveTensor(HostTensor const& tensor, std::string_view role)
{
    if (!contains(kMoveTypes, tensor.type))
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            std::string(role) + " has type " + dataTypeName(tensor.type) + ", which the host backend does not move"
                + (elementBytes(tensor.type) == 0 && isKnownDataType(tensor.type) ? " (packed, less than a byte per "
                                                                                    "element)"
                                                                                  : "")
                + " (it takes " + typeSetString(kMoveTypes) + ")"};
    }
    return checkTensor(tensor, role);
}

int64_t loadIndex(HostTensor const& t, int64_t index) noexcept
{
    if (t.type == DataType::kINT32)
    {
        int32_t value = 0;
        std::memcpy(&value, static_cast<std::byte const*>(t.data) + index * 4, 4);
        return value;
    }
    if (t.type == DataType::kINT64)
    {
        int64_t value = 0;
        std::memcpy(&value, static_cast<std::byte const*>(t.data) + index * 8, 8);
        return value;
    }
    return loadInteger(t, index);
}

} // namespace kiln::host
