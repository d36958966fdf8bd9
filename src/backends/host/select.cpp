// SPDX-License-Identifier: Apache-2.0
#include "backends/host/select.h"

#include "backends/host/data_movement.h"

#include <string>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "select: " + message};
}

} // namespace

Expected<TensorDesc> inferSelect(SelectParams const& /*params*/, TensorDesc const& condition,
    TensorDesc const& thenInput, TensorDesc const& elseInput)
{
    if (condition.type != DataType::kBOOL)
    {
        return invalid(std::string("the condition is ") + dataTypeName(condition.type) + "; it must be kBOOL");
    }
    if (!contains(kMoveTypes, thenInput.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(thenInput.type) + " inputs (it takes "
            + typeSetString(kMoveTypes) + ")");
    }
    if (elseInput.type != thenInput.type)
    {
        return invalid(std::string("the then input is ") + dataTypeName(thenInput.type) + " and the else input "
            + dataTypeName(elseInput.type) + "; they must have one type");
    }
    Expected<Dims> const partial = broadcastShapes(condition.dims, thenInput.dims);
    if (!partial)
    {
        return invalid("the condition and the then input do not broadcast: " + partial.error().message);
    }
    Expected<Dims> const out = broadcastShapes(partial.value(), elseInput.dims);
    if (!out)
    {
        return invalid("the condition and then input (broadcast " + shapeString(partial.value())
            + ") and the else input do not broadcast: " + out.error().message);
    }
    return TensorDesc{thenInput.type, out.value()};
}

Status runSelect(SelectParams const& params, HostTensor const& condition, HostTensor const& thenInput,
    HostTensor const& elseInput, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferSelect(
        params, {condition.type, condition.dims}, {thenInput.type, thenInput.dims}, {elseInput.type, elseInput.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != desc.value().type || !sameShape(out.dims, desc.value().dims))
    {
        return invalid(std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims)
            + " but must be " + dataTypeName(desc.value().type) + " " + shapeString(desc.value().dims));
    }
    for (auto const& [tensor, role] : {std::pair{&condition, "condition"}, std::pair{&thenInput, "then input"},
             std::pair{&elseInput, "else input"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    BroadcastMap const c(out.dims, condition.dims);
    BroadcastMap const t(out.dims, thenInput.dims);
    BroadcastMap const e(out.dims, elseInput.dims);
    int64_t const count = elementCount(out.dims);
    for (int64_t o = 0; o < count; ++o)
    {
        if (loadInteger(condition, c(o)) != 0)
        {
            copyElement(out, o, thenInput, t(o));
        }
        else
        {
            copyElement(out, o, elseInput, e(o));
        }
    }
    return Done{};
}

} // namespace kiln::host
