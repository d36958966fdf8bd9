// SPDX-License-Identifier: Apache-2.0
// ScatterElements (opsets 11 to 18), Scatter (opsets 9 and 10, ScatterElements under its old name) and ScatterND
// (opsets 11 to 18) onto IScatterLayer: kELEMENT with the node's axis (default 0), kND. Indices are INT32 or INT64,
// from an initializer or computed at run time; negative ones count from the end, as ONNX defines them.
// Refused: reduction other than "none" (IScatterLayer has none, as in TensorRT), ScatterND indices whose last extent
// (the index tuple's length) is known only at run time.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

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

} // namespace

void registerScatterOps(OpRegistry& registry)
{
    registry.add("ScatterElements", importScatterElements, checkScatter);
    registry.add("Scatter", importScatterElements, checkScatter);
    registry.add("ScatterND", importScatterND, checkScatter);
}

} // namespace kiln::onnx_import
