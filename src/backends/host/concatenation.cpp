// SPDX-License-Identifier: Apache-2.0
#include "backends/host/concatenation.h"

#include "backends/host/data_movement.h"

#include <string>
#include <vector>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "concatenation: " + message};
}

} // namespace

Expected<TensorDesc> inferConcatenation(ConcatenationParams const& params, std::span<TensorDesc const> inputs)
{
    if (inputs.empty())
    {
        return invalid("needs at least one input");
    }
    TensorDesc const& first = inputs.front();
    if (!contains(kMoveTypes, first.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(first.type) + " inputs (it takes "
            + typeSetString(kMoveTypes) + ")");
    }
    int32_t const rank = first.dims.nbDims;
    if (!isValidShape(first.dims) || rank < 1)
    {
        return invalid(
            "input 0 has shape " + shapeString(first.dims) + "; inputs need a concrete shape of rank 1 or more");
    }
    if (params.axis < 0 || params.axis >= rank)
    {
        return invalid(
            "axis " + std::to_string(params.axis) + " is out of range for input 0 " + shapeString(first.dims));
    }
    Dims out = first.dims;
    out.d[params.axis] = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        TensorDesc const& input = inputs[i];
        std::string const role = "input " + std::to_string(i);
        if (input.type != first.type)
        {
            return invalid(role + " is " + dataTypeName(input.type) + " but input 0 is " + dataTypeName(first.type));
        }
        bool fits = isValidShape(input.dims) && input.dims.nbDims == rank;
        for (int32_t d = 0; fits && d < rank; ++d)
        {
            fits = d == params.axis || input.dims.d[d] == first.dims.d[d];
        }
        if (!fits)
        {
            return invalid(role + " has shape " + shapeString(input.dims) + " and input 0 " + shapeString(first.dims)
                + "; they must agree except along axis " + std::to_string(params.axis));
        }
        if (__builtin_add_overflow(out.d[params.axis], input.dims.d[params.axis], &out.d[params.axis]))
        {
            return invalid(
                "the inputs' extents along axis " + std::to_string(params.axis) + " add up past a 64-bit extent");
        }
    }
    if (!isValidShape(out))
    {
        return invalid("the output " + shapeString(out) + " " + notConcreteText(out));
    }
    return TensorDesc{first.type, out};
}

Status runConcatenation(ConcatenationParams const& params, std::span<HostTensor const> inputs, HostTensor const& out)
{
    std::vector<TensorDesc> descs;
    for (HostTensor const& input : inputs)
    {
        descs.push_back({input.type, input.dims});
    }
    Expected<TensorDesc> const desc = inferConcatenation(params, descs);
    if (!desc)
    {
        return desc.error();
    }
    if (out.type != desc.value().type || !sameShape(out.dims, desc.value().dims))
    {
        return invalid(std::string("the output is ") + dataTypeName(out.type) + " " + shapeString(out.dims)
            + " but must be " + dataTypeName(desc.value().type) + " " + shapeString(desc.value().dims));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        if (std::optional<Error> const error = checkMoveTensor(inputs[i], "input " + std::to_string(i)))
        {
            return invalid(error->message);
        }
    }
    if (std::optional<Error> const error = checkMoveTensor(out, "output"))
    {
        return invalid(error->message);
    }
    if (elementCount(out.dims) == 0)
    {
        return Done{}; // Nothing to copy (the outer count may still be large: no loop over it).
    }
    // The output is outer x (sum of the inputs' axis extents x inner); each input fills its band of every outer row.
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < out.dims.nbDims; ++d)
    {
        outer *= d < params.axis ? out.dims.d[d] : 1;
        inner *= d > params.axis ? out.dims.d[d] : 1;
    }
    int64_t const row = out.dims.d[params.axis] * inner;
    int64_t offset = 0;
    for (HostTensor const& input : inputs)
    {
        int64_t const band = input.dims.d[params.axis] * inner;
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int64_t e = 0; e < band; ++e)
            {
                copyElement(out, o * row + offset + e, input, o * band + e);
            }
        }
        offset += band;
    }
    return Done{};
}

} // namespace kiln::host
