// SPDX-License-Identifier: Apache-2.0
// ScatterElements (opsets 11 to 18), Scatter (opsets 9 and 10, ScatterElements under its old name) and ScatterND
// (opsets 11 to 18) onto IScatterLayer: kELEMENT with the node's axis (default 0), kND. Indices are INT32 or INT64,
// from an initializer or computed at run time; negative ones count from the end, as ONNX defines them.
// TensorScatter (opset 24, mode "linear", axis -2 of 4-D caches, as TensorRT imports it) writes update into
// past_cache at write_indices[b] + i along the axis: a kELEMENT scatter whose indices are those positions, broadcast
// to the update's shape through a stride-0 slice.
// Refused: reduction other than "none" (IScatterLayer has none, as in TensorRT), ScatterND indices whose last extent
// (the index tuple's length) is known only at run time.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include <string>

namespace kiln::onnx_import
{

namespace
{

void checkScatter(ImportContext& /*ctx*/, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    std::string const reduction = attrs.get<std::string>("reduction", "none");
    require(reduction == "none", ErrorCode::kUNSUPPORTED_NODE_ATTR, "reduction is '", reduction,
        "'; kiln's scatter layer (like TensorRT's) only replaces elements (reduction 'none')");
}

//! The three inputs, checked: indices INT32 or INT64, updates of the data's type.
struct ScatterInputs
{
    ITensor* data;
    ITensor* indices;
    ITensor* updates;
};

ScatterInputs scatterInputs(ImportContext& ctx, Node const& node)
{
    ScatterInputs in{&inputTensor(ctx, node, 0), &inputTensor(ctx, node, 1), &inputTensor(ctx, node, 2)};
    DataType const indexType = in.indices->getType();
    require(indexType == DataType::kINT32 || indexType == DataType::kINT64, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        node.opType(), "'s indices are ", dataTypeName(indexType), "; they must be INT32 or INT64");
    require(in.updates->getType() == in.data->getType(), ErrorCode::kINVALID_NODE, node.opType(), "'s updates are ",
        dataTypeName(in.updates->getType()), " but its data is ", dataTypeName(in.data->getType()));
    require(
        in.data->getDimensions().nbDims >= 1, ErrorCode::kINVALID_NODE, node.opType(), " needs data of rank 1 or more");
    return in;
}

std::vector<Value> importScatterElements(ImportContext& ctx, Node& node)
{
    ScatterInputs const in = scatterInputs(ctx, node);
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", 0), in.data->getDimensions().nbDims);
    auto& layer
        = ctx.added(ctx.network().addScatter(*in.data, *in.indices, *in.updates, nvinfer1::ScatterMode::kELEMENT));
    layer.setAxis(axis);
    return {output(layer.getOutput(0))};
}

std::vector<Value> importScatterND(ImportContext& ctx, Node& node)
{
    ScatterInputs const in = scatterInputs(ctx, node);
    Dims const indices = in.indices->getDimensions();
    require(indices.nbDims >= 1 && indices.d[indices.nbDims - 1] >= 1, ErrorCode::kUNSUPPORTED_NODE, "the indices ",
        shapeText(indices), " must have a last extent (the index tuple's length) known when the model is parsed");
    auto& layer = ctx.added(ctx.network().addScatter(*in.data, *in.indices, *in.updates, nvinfer1::ScatterMode::kND));
    return {output(layer.getOutput(0))};
}

void checkTensorScatter(ImportContext& /*ctx*/, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    std::string const mode = attrs.get<std::string>("mode", "linear");
    require(mode == "linear", ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode is '", mode,
        "'; only 'linear' is supported (as in TensorRT): a circular cache wraps its writes around");
}

std::vector<Value> importTensorScatter(ImportContext& ctx, Node& node)
{
    ITensor& cache = inputTensor(ctx, node, 0);
    ITensor& update = inputTensor(ctx, node, 1);
    Dims const dims = cache.getDimensions();
    require(dims.nbDims == 4 && update.getDimensions().nbDims == 4, ErrorCode::kUNSUPPORTED_NODE,
        "past_cache has shape ", shapeText(dims), " and update ", shapeText(update.getDimensions()),
        "; both must be 4-D (as in TensorRT)");
    require(update.getType() == cache.getType(), ErrorCode::kINVALID_NODE, "update is ", dataTypeName(update.getType()),
        " but past_cache is ", dataTypeName(cache.getType()));
    int64_t const axis = node.attrs.get<int64_t>("axis", -2);
    require(normalizeAxis(axis, 4) == 2, ErrorCode::kUNSUPPORTED_NODE_ATTR, "axis is ", axis,
        "; only -2 (the sequence axis) is supported, as in TensorRT");
    // Index of update[b, h, i, d] along the axis: write_indices[b] + i, as INT64 [B or 1, 1, S, 1].
    ITensor* index = &axisPositions(ctx, update, 1U << 2);
    if (node.has(2))
    {
        ITensor& starts = castTo(ctx, inputTensor(ctx, node, 2), DataType::kINT64);
        require(starts.getDimensions().nbDims == 1, ErrorCode::kINVALID_NODE, "write_indices has shape ",
            shapeText(starts.getDimensions()), "; it must be 1-D (one start per batch item)");
        Value const column = reshapeValue(
            ctx, Value::tensor(starts), {DimPart::copy(0), DimPart::fixed(1), DimPart::fixed(1), DimPart::fixed(1)});
        index = &binary(ctx, *index, column.tensor(), ElementWiseOperation::kSUM);
    }
    // Repeated over the axes where it has extent 1 (stride 0), to the update's shape.
    bool const perItem = node.has(2);
    auto& indices = addSliceOf(ctx, *index, int64Value(ctx, {0, 0, 0, 0}), Value::tensor(shapeOf(ctx, update)),
        int64Value(ctx, {perItem ? 1 : 0, 0, 1, 0}));
    auto& layer
        = ctx.added(ctx.network().addScatter(cache, *indices.getOutput(0), update, nvinfer1::ScatterMode::kELEMENT));
    layer.setAxis(2);
    return {output(layer.getOutput(0))};
}

} // namespace

void registerScatterOps(OpRegistry& registry)
{
    registry.add("ScatterElements", importScatterElements, checkScatter);
    registry.add("Scatter", importScatterElements, checkScatter);
    registry.add("ScatterND", importScatterND, checkScatter);
    registry.add("TensorScatter", importTensorScatter, checkTensorScatter);
}

} // namespace kiln::onnx_import
