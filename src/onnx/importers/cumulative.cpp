// SPDX-License-Identifier: Apache-2.0
// CumSum onto ICumulativeLayer (kSUM). The axis (input 1, a 0-D or one-element 1-D integer tensor) must be known when
// the model is parsed, as the layer needs it at build time; it becomes a 0-D INT64 constant, its value as given
// (negative values count from the end; the layer checks the range). exclusive and reverse (0 or 1) are the layer's.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

void checkCumSum(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    for (char const* name : {"exclusive", "reverse"})
    {
        int64_t const value = attrs.get<int64_t>(name, 0);
        require(value == 0 || value == 1, ErrorCode::kINVALID_NODE, "attribute ", name, " is ", value,
            "; it must be 0 or 1");
    }
}

std::vector<Value> importCumSum(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    DataType const type = x.getType();
    require(isFloating(type) || type == DataType::kINT32 || type == DataType::kINT64,
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "CumSum takes FLOAT, FLOAT16, BFLOAT16, INT32 or INT64 inputs");
    int32_t const rank = x.getDimensions().nbDims;
    require(rank != 0, ErrorCode::kINVALID_NODE, "CumSum needs an input of rank 1 or more");
    Value const& given = node.input(1);
    require(given.rank() <= 1, ErrorCode::kINVALID_NODE, "input 1 (axis) has shape ", shapeText(given.shape()),
        "; it must be 0-D");
    std::vector<int64_t> const axis = constantInts(node, 1, "axis");
    require(
        axis.size() == 1, ErrorCode::kINVALID_NODE, "input 1 (axis) has ", axis.size(), " values; it must have one");
    require(rank < 0 || (axis.front() >= -rank && axis.front() < rank), ErrorCode::kINVALID_NODE, "the axis is ",
        axis.front(), "; for an input of rank ", rank, " it must be in [", -rank, ", ", rank - 1, "]");
    ITensor& axisTensor = int64Constant(ctx, axis, Dims{0, {}});
    Attributes const& attrs = node.attrs;
    auto& layer = ctx.added(ctx.network().addCumulative(x, axisTensor, nvinfer1::CumulativeOperation::kSUM,
        attrs.get<int64_t>("exclusive", 0) != 0, attrs.get<int64_t>("reverse", 0) != 0));
    return {output(layer.getOutput(0))};
}

} // namespace

void registerCumulativeOps(OpRegistry& registry)
{
    registry.add("CumSum", importCumSum, checkCumSum);
}

} // namespace kiln::onnx_import
