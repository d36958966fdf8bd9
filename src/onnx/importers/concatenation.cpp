// SPDX-License-Identifier: Apache-2.0
// Concat onto IConcatenationLayer and Split onto ISliceLayers along one axis; small weights are joined or split at
// parse time.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <cstring>

namespace kiln::onnx_import
{

namespace
{

//! The weights joined along axis (every input has the same type and the same other extents).
Value concatWeights(ImportContext& ctx, std::vector<ShapedWeights const*> const& inputs, int32_t axis)
{
    Dims shape = inputs.front()->shape;
    shape.d[axis] = 0;
    for (ShapedWeights const* w : inputs)
    {
        require(w->type == inputs.front()->type && w->shape.nbDims == shape.nbDims, ErrorCode::kINVALID_NODE,
            "the inputs differ in type or rank");
        for (int32_t i = 0; i < shape.nbDims; ++i)
        {
            require(i == axis || w->shape.d[i] == shape.d[i], ErrorCode::kINVALID_NODE, "the inputs differ in extent ",
                i, ", which is not the axis");
        }
        shape.d[axis] += w->shape.d[axis];
    }
    ShapedWeights out = ctx.allocate(inputs.front()->type, shape);
    int64_t const bytes = dataTypeBits(out.type) / 8;
    int64_t outer = 1;
    for (int32_t i = 0; i < axis; ++i)
    {
        outer *= shape.d[i];
    }
    int64_t const rowBytes = out.count / std::max<int64_t>(outer, 1) * bytes;
    auto* dst = static_cast<std::byte*>(const_cast<void*>(out.data));
    int64_t offset = 0;
    for (ShapedWeights const* w : inputs)
    {
        int64_t const chunk = w->count / std::max<int64_t>(outer, 1) * bytes;
        for (int64_t o = 0; o < outer && chunk > 0; ++o)
        {
            std::memcpy(dst + o * rowBytes + offset, static_cast<std::byte const*>(w->data) + o * chunk,
                static_cast<size_t>(chunk));
        }
        offset += chunk;
    }
    return Value::weights(out);
}

std::vector<Value> importConcat(ImportContext& ctx, Node& node)
{
    require(node.inputCount() >= 1, ErrorCode::kINVALID_NODE, "Concat needs at least one input");
    int32_t const rank = node.input(0).rank();
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", ctx.opset() < 4 ? 1 : 0), rank);
    require(ctx.opset() < 4 || node.attrs.has("axis"), ErrorCode::kINVALID_NODE, "the required attribute 'axis' is ",
        "missing");
    bool fold = true;
    for (size_t i = 0; i < node.inputCount(); ++i)
    {
        fold = fold && foldable(node.input(i));
    }
    if (fold)
    {
        std::vector<ShapedWeights const*> inputs;
        for (size_t i = 0; i < node.inputCount(); ++i)
        {
            inputs.push_back(&node.input(i).weights());
        }
        return {concatWeights(ctx, inputs, axis)};
    }
    std::vector<ITensor*> tensors;
    for (size_t i = 0; i < node.inputCount(); ++i)
    {
        tensors.push_back(&inputTensor(ctx, node, i));
    }
    auto& layer = ctx.added(ctx.network().addConcatenation(tensors.data(), static_cast<int32_t>(tensors.size())));
    layer.setAxis(axis);
    return {output(layer.getOutput(0))};
}

//! The extents of the parts of a split of extent (which may be -1), from the split attribute or input, from
//! num_outputs, or equal parts.
std::optional<std::vector<int64_t>> splitSizes(ImportContext& ctx, Node const& node, int64_t extent)
{
    auto const outputs = static_cast<int64_t>(node.outputCount());
    std::optional<std::vector<int64_t>> sizes;
    if (ctx.opset() < 13 && node.attrs.has("split"))
    {
        sizes = node.attrs.get<std::vector<int64_t>>("split", {});
    }
    else if (ctx.opset() >= 13 && node.has(1))
    {
        sizes = constantInts(node, 1, "split");
    }
    if (sizes)
    {
        require(static_cast<int64_t>(sizes->size()) == outputs, ErrorCode::kINVALID_NODE, "split has ", sizes->size(),
            " values for ", outputs, " outputs");
        int64_t total = 0;
        for (int64_t s : *sizes)
        {
            require(s >= 0, ErrorCode::kINVALID_NODE, "split value ", s, " is negative");
            total += s;
        }
        require(extent < 0 || total == extent, ErrorCode::kINVALID_NODE, "the split values add up to ", total,
            ", not to the extent ", extent, " of the axis");
        return sizes;
    }
    int64_t const parts = node.attrs.get<int64_t>("num_outputs", outputs);
    require(parts == outputs && parts >= 1, ErrorCode::kINVALID_NODE, "num_outputs is ", parts, " but the node has ",
        outputs, " outputs");
    if (extent < 0)
    {
        return std::nullopt;
    }
    bool const uneven = node.attrs.has("num_outputs");
    require(uneven || extent % parts == 0, ErrorCode::kINVALID_NODE, "the extent ", extent,
        " of the axis does not split into ", parts, " equal parts");
    int64_t const chunk = (extent + parts - 1) / parts;
    std::vector<int64_t> result;
    for (int64_t i = 0; i < parts; ++i)
    {
        result.push_back(std::clamp<int64_t>(extent - i * chunk, 0, chunk));
    }
    return result;
}

//! Equal parts of an axis whose extent is known only at run time: ceil(d / n) each, the last one the rest.
std::vector<Value> splitDynamic(ImportContext& ctx, ITensor& x, int32_t axis, int64_t parts)
{
    ITensor& extent = pick(ctx, Value::tensor(shapeOf(ctx, x)), {axis}).tensor();
    ITensor& rounded = binary(ctx, extent, int64Constant(ctx, {parts - 1}), ElementWiseOperation::kSUM);
    ITensor& chunk = binary(ctx, rounded, int64Constant(ctx, {parts}), ElementWiseOperation::kFLOOR_DIV);
    Value const stride = int64Value(ctx, {1});
    std::vector<Value> outputs;
    for (int64_t i = 0; i < parts; ++i)
    {
        ITensor& start = binary(ctx, chunk, int64Constant(ctx, {i}), ElementWiseOperation::kPROD);
        ITensor* size = &chunk;
        if (i == parts - 1)
        {
            size = &binary(ctx, extent, start, ElementWiseOperation::kSUB);
        }
        auto& slice
            = addSliceOf(ctx, x, Value::tensor(start), Value::tensor(*size), stride, std::vector<int64_t>{axis});
        outputs.push_back(output(slice.getOutput(0)));
    }
    return outputs;
}

std::vector<Value> importSplit(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    Dims const dims = data.shape();
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", 0), dims.nbDims);
    std::optional<std::vector<int64_t>> sizes = splitSizes(ctx, node, dims.d[axis]);
    if (!sizes)
    {
        return splitDynamic(ctx, data.tensor(), axis, static_cast<int64_t>(node.outputCount()));
    }
    std::vector<Value> outputs;
    int64_t start = 0;
    for (int64_t size : *sizes)
    {
        if (foldable(data))
        {
            Dims shape = dims;
            shape.d[axis] = size;
            std::vector<int64_t> strides(static_cast<size_t>(dims.nbDims), 1);
            for (int32_t i = dims.nbDims - 2; i >= 0; --i)
            {
                strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i) + 1] * dims.d[i + 1];
            }
            outputs.push_back(Value::weights(remapWeights(ctx, data.weights(), shape, [&](Coords const& c) {
                int64_t index = 0;
                for (int32_t i = 0; i < dims.nbDims; ++i)
                {
                    index += (c[static_cast<size_t>(i)] + (i == axis ? start : 0)) * strides[static_cast<size_t>(i)];
                }
                return index;
            })));
        }
        else
        {
            auto& slice = addSliceOf(ctx, ctx.tensor(data), int64Value(ctx, {start}), int64Value(ctx, {size}),
                int64Value(ctx, {1}), std::vector<int64_t>{axis});
            outputs.push_back(output(slice.getOutput(0)));
        }
        start += size;
    }
    return outputs;
}

} // namespace

void registerConcatenationOps(OpRegistry& registry)
{
    registry.add("Concat", importConcat);
    registry.add("Split", importSplit);
}

} // namespace kiln::onnx_import
