// SPDX-License-Identifier: Apache-2.0
// Each output element reads one input element: its sequence coordinate s becomes length - 1 - s where s < length.
#include "backends/host/reverse_sequence.h"

#include "backends/host/data_movement.h"

#include <string>
#include <utility>

namespace kiln::host
{

namespace
{

Error invalid(std::string const& message)
{
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT, "reverse sequence: " + message};
}

} // namespace

Expected<TensorDesc> inferReverseSequence(
    ReverseSequenceParams const& params, TensorDesc const& in, TensorDesc const& lengths)
{
    if (!contains(kMoveTypes, in.type))
    {
        return invalid(std::string("does not take ") + dataTypeName(in.type) + " inputs (it takes "
            + typeSetString(kMoveTypes) + ")");
    }
    if (!isValidShape(in.dims) || in.dims.nbDims < 2)
    {
        return invalid("the input " + shapeString(in.dims) + " needs rank 2 or more");
    }
    int32_t const rank = in.dims.nbDims;
    for (auto const& [axis, what] : {std::pair{params.batchAxis, "batch"}, std::pair{params.sequenceAxis, "sequence"}})
    {
        if (axis < 0 || axis >= rank)
        {
            return invalid(std::string("the ") + what + " axis " + std::to_string(axis) + " is outside [0, "
                + std::to_string(rank) + ") for the input " + shapeString(in.dims));
        }
    }
    if (params.batchAxis == params.sequenceAxis)
    {
        return invalid("the batch axis and the sequence axis are both " + std::to_string(params.batchAxis));
    }
    if ((lengths.type != DataType::kINT32 && lengths.type != DataType::kINT64) || lengths.dims.nbDims != 1
        || lengths.dims.d[0] != in.dims.d[params.batchAxis])
    {
        return invalid(std::string("the lengths are ") + dataTypeName(lengths.type) + " " + shapeString(lengths.dims)
            + "; they must be kINT32 or kINT64 [" + std::to_string(in.dims.d[params.batchAxis])
            + "] (the batch axis' extent)");
    }
    return in;
}

ReverseSequenceGeometry reverseSequenceGeometry(ReverseSequenceParams const& params, Dims const& dims) noexcept
{
    ReverseSequenceGeometry g;
    Index const strides = rowMajorStrides(dims);
    auto const batch = static_cast<std::size_t>(params.batchAxis);
    auto const sequence = static_cast<std::size_t>(params.sequenceAxis);
    g.batchStride = strides[batch];
    g.batchExtent = dims.d[batch];
    g.sequenceStride = strides[sequence];
    g.sequenceExtent = dims.d[sequence];
    g.count = elementCount(dims);
    return g;
}

Status runReverseSequence(
    ReverseSequenceParams const& params, HostTensor const& in, HostTensor const& lengths, HostTensor const& out)
{
    Expected<TensorDesc> const desc = inferReverseSequence(params, {in.type, in.dims}, {lengths.type, lengths.dims});
    if (!desc)
    {
        return desc.error();
    }
    if (std::optional<std::string> const mismatch = outputMismatch(out, in.type, in.dims))
    {
        return invalid(*mismatch);
    }
    for (auto const& [tensor, role] :
        {std::pair{&in, "input"}, std::pair{&lengths, "lengths"}, std::pair{&out, "output"}})
    {
        if (std::optional<Error> const error = checkMoveTensor(*tensor, role))
        {
            return invalid(error->message);
        }
    }
    ReverseSequenceGeometry const g = reverseSequenceGeometry(params, in.dims);
    for (int64_t i = 0; i < g.count; ++i)
    {
        int64_t const length = loadIndex(lengths, reverseSequenceBatch(g, i));
        copyElement(out, i, in, reverseSequenceSource(g, i, length));
    }
    return Done{};
}

} // namespace kiln::host
