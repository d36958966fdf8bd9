// SPDX-License-Identifier: Apache-2.0
#include "backends/host/layer_inputs.h"

#include "backends/host/data_movement.h"

#include <algorithm>
#include <utility>

namespace kiln::host
{
Error invalidArgument(std::string message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::move(message)};
}

Expected<std::optional<Dims>> LayerInputs::values(std::size_t index) const
{
    TensorDesc const tensor = desc(index);
    std::string const what = describe(index);
    if (tensor.type != DataType::kINT32 && tensor.type != DataType::kINT64)
    {
        return invalidArgument(what + " is " + dataTypeName(tensor.type)
            + "; the values a layer reads as parameters are kINT32 or kINT64");
    }
    if (tensor.dims.nbDims != 1 || tensor.dims.d[0] < 0 || tensor.dims.d[0] > Dims::MAX_DIMS)
    {
        return invalidArgument(what + " has shape " + shapeString(tensor.dims) + "; it must be 1-D with 0 to "
            + std::to_string(Dims::MAX_DIMS) + " values");
    }
    return readValues(index, what);
}

Expected<std::optional<int64_t>> LayerInputs::scalar(std::size_t index) const
{
    TensorDesc const tensor = desc(index);
    std::string const what = describe(index);
    if (tensor.type != DataType::kINT32 && tensor.type != DataType::kINT64)
    {
        return invalidArgument(
            what + " is " + dataTypeName(tensor.type) + "; a value a layer reads as a parameter is kINT32 or kINT64");
    }
    if (tensor.dims.nbDims != 0)
    {
        return invalidArgument(what + " has shape " + shapeString(tensor.dims) + "; it must be 0-D (one value)");
    }
    return readScalar(index, what);
}

std::string LayerInputs::describe(std::size_t index) const
{
    char const* role = mRoles.empty() ? "input" : mRoles[std::min(index, mRoles.size() - 1)].name;
    return "input " + std::to_string(index) + " (" + role + ")";
}

std::optional<Error> LayerInputs::checkArity(
    char const* kind, bool variadic, std::size_t nbOutputs, std::size_t expectedOutputs) const
{
    std::string const a = std::string("an ") + kind;
    if (!variadic && size() > mRoles.size())
    {
        return invalidArgument(a + " takes at most " + std::to_string(mRoles.size()) + " input(s); the layer has "
            + std::to_string(size()));
    }
    for (std::size_t i = 0; i < std::max(mRoles.size(), size()); ++i)
    {
        if (mRoles[std::min(i, mRoles.size() - 1)].required && !given(i))
        {
            return invalidArgument(a + " needs " + describe(i) + "; the layer does not have it");
        }
    }
    if (nbOutputs != expectedOutputs)
    {
        return invalidArgument(a + " has "
            + (expectedOutputs == 1 ? std::string("one output") : std::to_string(expectedOutputs) + " outputs")
            + "; the layer has " + std::to_string(nbOutputs));
    }
    return std::nullopt;
}

TensorDesc RunInputs::desc(std::size_t index) const noexcept
{
    HostTensor const& tensor = required(index);
    return TensorDesc{tensor.type, tensor.dims};
}

Expected<std::optional<Dims>> RunInputs::readValues(std::size_t index, std::string const& what) const
{
    HostTensor const& tensor = required(index);
    if (std::optional<Error> error = checkTensor(tensor, what))
    {
        return *std::move(error);
    }
    Dims dims{static_cast<int32_t>(tensor.dims.d[0]), {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        dims.d[i] = loadIndex(tensor, i);
    }
    return std::optional(dims);
}

Expected<std::optional<int64_t>> RunInputs::readScalar(std::size_t index, std::string const& what) const
{
    HostTensor const& tensor = required(index);
    if (std::optional<Error> error = checkTensor(tensor, what))
    {
        return *std::move(error);
    }
    return std::optional(loadIndex(tensor, 0));
}

HostTensor QueryInputs::view(std::size_t index) const noexcept
{
    TensorDesc const tensor = desc(index);
    return HostTensor{mUnread.data(), tensor.type, tensor.dims};
}

Expected<std::optional<Dims>> QueryInputs::readValues(std::size_t index, std::string const& what) const
{
    std::optional<std::vector<int64_t>> const& known = mQuery.inputs[index]->values;
    if (!known)
    {
        return std::optional<Dims>{};
    }
    if (static_cast<int64_t>(known->size()) != desc(index).dims.d[0])
    {
        return invalidArgument(
            what + " has shape " + shapeString(desc(index).dims) + " but " + std::to_string(known->size()) + " values");
    }
    Dims dims{static_cast<int32_t>(known->size()), {}};
    std::copy(known->begin(), known->end(), dims.d);
    return std::optional(dims);
}

Expected<std::optional<int64_t>> QueryInputs::readScalar(std::size_t index, std::string const& what) const
{
    std::optional<std::vector<int64_t>> const& known = mQuery.inputs[index]->values;
    if (!known)
    {
        return std::optional<int64_t>{};
    }
    if (known->size() != 1)
    {
        return invalidArgument(what + " is 0-D but has " + std::to_string(known->size()) + " values");
    }
    return std::optional(known->front());
}

} // namespace kiln::host
