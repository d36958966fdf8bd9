// SPDX-License-Identifier: Apache-2.0
#include "backends/host/copies.h"

#include <cstring>
#include <string>

namespace kiln::host
{

namespace
{

Error invalid(char const* layer, std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, std::string(layer) + ": " + message};
}

} // namespace

Expected<TensorDesc> inferConstant(ConstantParams const& params)
{
    Weights const& w = params.weights;
    if (!isKnownDataType(w.type) || w.type == DataType::kE8M0)
    {
        return invalid("constant",
            "the weights have type " + std::string(dataTypeName(w.type)) + ", which a constant does not hold");
    }
    if (!isValidShape(params.dims))
    {
        return invalid("constant", "the dims " + shapeString(params.dims) + " " + notConcreteText(params.dims));
    }
    if (w.count != elementCount(params.dims))
    {
        return invalid("constant",
            "the weights hold " + std::to_string(w.count) + " values but the dims " + shapeString(params.dims)
                + " have " + std::to_string(elementCount(params.dims)) + " elements");
    }
    if (w.count > 0 && w.values == nullptr)
    {
        return invalid("constant", "the weights have no values");
    }
    return TensorDesc{w.type, params.dims};
}

Status runConstant(ConstantParams const& params, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferConstant(params);
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, desc.value().type, desc.value().dims))
    {
        return invalid("constant", *mismatch);
    }
    int64_t const bytes = storageBytes(out.type, params.weights.count);
    if (bytes > 0 && out.data == nullptr)
    {
        return invalid("constant", "the output of shape " + shapeString(out.dims) + " has no data");
    }
    if (bytes > 0)
    {
        std::memcpy(out.data, params.weights.values, static_cast<std::size_t>(bytes));
    }
    return Done{};
}

Expected<TensorDesc> inferShape(ShapeParams const& /*params*/, TensorDesc const& in)
{
    if (!isValidShape(in.dims))
    {
        return invalid("shape", "the input shape " + shapeString(in.dims) + " " + notConcreteText(in.dims));
    }
    return TensorDesc{DataType::kINT64, Dims{1, {in.dims.nbDims}}};
}

Status runShape(ShapeParams const& params, TensorDesc const& in, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferShape(params, in);
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, DataType::kINT64, desc.value().dims))
    {
        return invalid("shape", *mismatch);
    }
    if (std::optional<Error> const error = checkTensor(out, "output"))
    {
        return invalid("shape", error->message);
    }
    for (int32_t i = 0; i < in.dims.nbDims; ++i)
    {
        storeInteger(out, i, in.dims.d[i]);
    }
    return Done{};
}

} // namespace kiln::host
