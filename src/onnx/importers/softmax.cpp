// SPDX-License-Identifier: Apache-2.0
// Softmax, LogSoftmax and Hardmax. From opset 13 they act along one axis (default -1); before, over the input coerced
// to 2-D at axis (default 1), i.e. over every axis from axis on, which reductions do without a reshape.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <algorithm>
#include <bit>
#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

//! The axes the node normalizes over, as a bit mask of x's axes.
uint32_t softmaxAxes(ImportContext& ctx, Node const& node, int32_t rank)
{
    require(rank >= 1, ErrorCode::kUNSUPPORTED_NODE_SHAPE, node.opType(), " needs an input of rank 1 or more");
    bool const single = ctx.opset() >= 13;
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", single ? -1 : 1), rank);
    return single ? 1U << axis : ((1U << rank) - 1U) & ~((1U << axis) - 1U);
}

ITensor& reduce(ImportContext& ctx, ITensor& x, ReduceOperation op, uint32_t axes)
{
    return *ctx.added(ctx.network().addReduce(x, op, axes, true)).getOutput(0);
}

//! x minus its maximum over axes (so that exp does not overflow).
ITensor& shiftedByMax(ImportContext& ctx, ITensor& x, uint32_t axes)
{
    return binary(ctx, x, reduce(ctx, x, ReduceOperation::kMAX, axes), ElementWiseOperation::kSUB);
}

std::vector<Value> importSoftmax(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    uint32_t const axes = softmaxAxes(ctx, node, x.getDimensions().nbDims);
    if ((axes & (axes - 1U)) == 0U)
    {
        auto& layer = ctx.added(ctx.network().addSoftMax(x));
        layer.setAxes(axes);
        return {output(layer.getOutput(0))};
    }
    ITensor& e = unary(ctx, shiftedByMax(ctx, x, axes), UnaryOperation::kEXP);
    return {output(&binary(ctx, e, reduce(ctx, e, ReduceOperation::kSUM, axes), ElementWiseOperation::kDIV))};
}

//! (x - max) - log(sum(exp(x - max))).
std::vector<Value> importLogSoftmax(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    uint32_t const axes = softmaxAxes(ctx, node, x.getDimensions().nbDims);
    ITensor& shifted = shiftedByMax(ctx, x, axes);
    ITensor& sum = reduce(ctx, unary(ctx, shifted, UnaryOperation::kEXP), ReduceOperation::kSUM, axes);
    return {output(&binary(ctx, shifted, unary(ctx, sum, UnaryOperation::kLOG), ElementWiseOperation::kSUB))};
}

//! 1 where x first reaches its maximum over the axes, 0 elsewhere.
std::vector<Value> importHardmax(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    uint32_t const axes = softmaxAxes(ctx, node, rank);
    ITensor& hit = binary(ctx, x, reduce(ctx, x, ReduceOperation::kMAX, axes), ElementWiseOperation::kEQUAL);
    ITensor& where = axisPositions(ctx, x, axes);
    Dims ones{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        ones.d[i] = 1;
    }
    ITensor& none = int64Constant(ctx, {std::numeric_limits<int64_t>::max()}, ones);
    ITensor& candidates = *ctx.added(ctx.network().addSelect(hit, where, none)).getOutput(0);
    ITensor& first = reduce(ctx, candidates, ReduceOperation::kMIN, axes);
    ITensor& chosen = binary(ctx, where, first, ElementWiseOperation::kEQUAL);
    ITensor& one = scalarConstant(ctx, 1.0, x.getType(), rank);
    ITensor& zero = scalarConstant(ctx, 0.0, x.getType(), rank);
    return {output(ctx.added(ctx.network().addSelect(chosen, one, zero)).getOutput(0))};
}

} // namespace

void registerSoftmaxOps(OpRegistry& registry)
{
    registry.add("Softmax", importSoftmax);
    registry.add("LogSoftmax", importLogSoftmax);
    registry.add("Hardmax", importHardmax);
}

} // namespace kiln::onnx_import
