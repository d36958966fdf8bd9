// SPDX-License-Identifier: Apache-2.0
// RandomUniform, RandomNormal, RandomUniformLike and RandomNormalLike onto IFillLayer's kRANDOM_UNIFORM (alpha low,
// beta high) and kRANDOM_NORMAL (alpha mean, beta scale). The shape is the shape attribute, or the input's shape for
// the *Like ops. As in TensorRT, the seed attribute is ignored (with a warning): the fill layer draws its own values.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include "core/data_type.h"

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::FillOperation;

//! The fill layer of op with the node's parameters (low/high or mean/scale), of shape dims or like's shape.
Value randomFill(ImportContext& ctx, Node& node, FillOperation op, DataType type, Dims const& dims, ITensor* like)
{
    if (node.attrs.has("seed"))
    {
        ctx.warn(node.opType(), " node ", node.name(), ": the seed attribute is ignored, as TensorRT ignores it");
    }
    bool const uniform = op == FillOperation::kRANDOM_UNIFORM;
    auto const attr
        = [&](char const* name, float fallback) { return static_cast<double>(node.attrs.get<float>(name, fallback)); };
    // A shape known only at run time comes from like's shape (the layer is made with a placeholder static one).
    auto& fill = ctx.added(ctx.network().addFill(like == nullptr ? dims : Dims{1, {1}}, op, type));
    if (like != nullptr)
    {
        fill.setInput(0, shapeOf(ctx, *like));
    }
    fill.setAlpha(uniform ? attr("low", 0.0F) : attr("mean", 0.0F));
    fill.setBeta(uniform ? attr("high", 1.0F) : attr("scale", 1.0F));
    return output(fill.getOutput(0));
}

std::vector<Value> importRandom(ImportContext& ctx, Node& node, FillOperation op)
{
    DataType const type = floatingTypeAttribute(node, "dtype", ::onnx::TensorProto::FLOAT);
    std::vector<int64_t> const shape = node.attrs.required<std::vector<int64_t>>("shape");
    for (int64_t extent : shape)
    {
        require(extent >= 0, ErrorCode::kINVALID_NODE, "attribute shape has the extent ", extent,
            "; extents must not be negative");
    }
    return {randomFill(ctx, node, op, type, toDims(shape), nullptr)};
}

std::vector<Value> importRandomLike(ImportContext& ctx, Node& node, FillOperation op)
{
    ITensor& input = inputTensor(ctx, node, 0);
    bool const typed = node.attrs.has("dtype");
    DataType const type = typed ? floatingTypeAttribute(node, "dtype", ::onnx::TensorProto::FLOAT) : input.getType();
    require(isFloating(type), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(type),
        "; without a floating-point dtype attribute the output would have it too");
    Dims const dims = input.getDimensions();
    return {randomFill(ctx, node, op, type, dims, isStatic(dims) ? nullptr : &input)};
}

std::vector<Value> importRandomUniform(ImportContext& ctx, Node& node)
{
    return importRandom(ctx, node, FillOperation::kRANDOM_UNIFORM);
}

std::vector<Value> importRandomNormal(ImportContext& ctx, Node& node)
{
    return importRandom(ctx, node, FillOperation::kRANDOM_NORMAL);
}

std::vector<Value> importRandomUniformLike(ImportContext& ctx, Node& node)
{
    return importRandomLike(ctx, node, FillOperation::kRANDOM_UNIFORM);
}

std::vector<Value> importRandomNormalLike(ImportContext& ctx, Node& node)
{
    return importRandomLike(ctx, node, FillOperation::kRANDOM_NORMAL);
}

} // namespace

void registerRandomOps(OpRegistry& registry)
{
    registry.add("RandomUniform", importRandomUniform);
    registry.add("RandomNormal", importRandomNormal);
    registry.add("RandomUniformLike", importRandomUniformLike);
    registry.add("RandomNormalLike", importRandomNormalLike);
}

} // namespace kiln::onnx_import
