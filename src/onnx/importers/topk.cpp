// SPDX-License-Identifier: Apache-2.0
// TopK onto ITopKLayer. k is the attribute before opset 10, then input 1 (a 1-D INT64 tensor of one value): a constant
// becomes the layer's k, a tensor known only at run time its input 1 (reshaped to 0-D). axis (default -1) names the
// axis, largest (opset 11, default 1) picks kMAX or kMIN. The outputs are Values and Indices, the indices INT64 as
// ONNX has them (the layer makes kINT64 indices directly). sorted = 0 leaves the order to the implementation; kiln's
// outputs are sorted either way, so both values are accepted.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::TopKOperation;

void checkTopK(ImportContext& ctx, ::onnx::NodeProto const& /*node*/, Attributes const& attrs)
{
    if (ctx.opset() < 10)
    {
        require(attrs.has("k"), ErrorCode::kINVALID_NODE, "the required attribute 'k' is missing (opset ", ctx.opset(),
            " gives k as an attribute)");
    }
    int64_t const largest = attrs.get<int64_t>("largest", 1);
    require(largest == 0 || largest == 1, ErrorCode::kINVALID_NODE, "largest is ", largest, "; it must be 0 or 1");
    int64_t const sorted = attrs.get<int64_t>("sorted", 1);
    require(sorted == 0 || sorted == 1, ErrorCode::kINVALID_NODE, "sorted is ", sorted, "; it must be 0 or 1");
}

std::vector<Value> importTopK(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    DataType const type = x.getType();
    require(isFloating(type) || type == DataType::kINT32 || type == DataType::kINT64,
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "TopK takes FLOAT, FLOAT16, BFLOAT16, INT32 or INT64 inputs");
    Dims const dims = x.getDimensions();
    require(dims.nbDims >= 1, ErrorCode::kINVALID_NODE, "TopK needs an input of rank 1 or more");
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", -1), dims.nbDims);
    TopKOperation const op = node.attrs.get<int64_t>("largest", 1) != 0 ? TopKOperation::kMAX : TopKOperation::kMIN;
    int64_t const extent = dims.d[axis];

    // k: the attribute (opset < 10), a constant input, or a tensor read at run time.
    ITensor* runtimeK = nullptr;
    int64_t k = 0;
    if (ctx.opset() < 10)
    {
        k = node.attrs.required<int64_t>("k");
    }
    else if (node.input(1).isWeights())
    {
        std::vector<int64_t> const values = constantInts(node, 1, "K");
        require(values.size() == 1, ErrorCode::kINVALID_NODE, "input 1 (K) has ", values.size(),
            " values; it must have one");
        k = values.front();
    }
    else
    {
        Value const& given = node.input(1);
        require(given.rank() <= 1 && (given.rank() == 0 || given.shape().d[0] == 1), ErrorCode::kINVALID_NODE,
            "input 1 (K) has shape ", shapeText(given.shape()), "; it must hold one value");
        auto& scalar = ctx.added(ctx.network().addShuffle(castTo(ctx, ctx.tensor(given), DataType::kINT64)));
        scalar.setReshapeDimensions(Dims{0, {}});
        runtimeK = scalar.getOutput(0);
    }
    if (runtimeK == nullptr)
    {
        require(k >= 0, ErrorCode::kINVALID_NODE, "k is ", k, "; it must be at least 0");
        require(extent < 0 || k <= extent, ErrorCode::kINVALID_NODE, "k is ", k, " but the input ", shapeText(dims),
            " has only ", extent, " elements along axis ", axis);
        require(k <= std::numeric_limits<int32_t>::max(), ErrorCode::kUNSUPPORTED_NODE_INPUT, "k is ", k,
            "; kiln takes k up to 2^31 - 1");
    }
    auto& layer = ctx.added(ctx.network().addTopK(
        x, op, static_cast<int32_t>(runtimeK != nullptr ? 0 : k), 1U << static_cast<uint32_t>(axis), DataType::kINT64));
    if (runtimeK != nullptr)
    {
        layer.setInput(1, *runtimeK);
    }
    return {output(layer.getOutput(0)), output(layer.getOutput(1))};
}

} // namespace

void registerTopKOps(OpRegistry& registry)
{
    registry.add("TopK", importTopK, checkTopK);
}

} // namespace kiln::onnx_import
