// SPDX-License-Identifier: Apache-2.0
// The Reduce* ops onto IReduceLayer (the L1, L2, log and square forms with unary and element-wise layers around it),
// and ArgMax / ArgMin composed from a reduction, an equality, an index ramp (constant or IFillLayer) and a select.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include <limits>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

//! Which axes a Reduce* node reduces; noop when it reduces none (the op's element-wise part still applies).
struct Reduction
{
    uint32_t axes{0};
    bool keep{true};
    bool noop{false};
};

//! The axes: the attribute, else input 1 (ReduceSum from opset 13, the others from 18), which must be a constant.
Reduction readReduction(Node const& node, int32_t rank)
{
    Attributes const& attrs = node.attrs;
    std::vector<int64_t> axes = attrs.get<std::vector<int64_t>>("axes", {});
    if (!attrs.has("axes") && node.has(1))
    {
        axes = constantInts(node, 1, "axes");
    }
    Reduction r;
    r.keep = attrs.get<int64_t>("keepdims", 1) != 0;
    if (axes.empty())
    {
        r.noop = attrs.get<int64_t>("noop_with_empty_axes", 0) != 0;
        r.axes = r.noop ? 0U : (1U << rank) - 1U;
    }
    for (int64_t axis : axes)
    {
        r.axes |= 1U << normalizeAxis(axis, rank, "axes value");
    }
    r.noop = r.noop || r.axes == 0U;
    return r;
}

ITensor& reduce(ImportContext& ctx, ITensor& x, ReduceOperation op, Reduction const& r)
{
    if (r.noop)
    {
        return x;
    }
    return *ctx.added(ctx.network().addReduce(x, op, r.axes, r.keep)).getOutput(0);
}

ITensor& square(ImportContext& ctx, ITensor& x)
{
    return binary(ctx, x, x, ElementWiseOperation::kPROD);
}

//! The element-wise part before the reduction, the reduction, and the part after.
enum class Form
{
    kPLAIN,
    kL1,
    kL2,
    kLOG_SUM,
    kSUM_SQUARE
};

template <ReduceOperation op, Form form>
std::vector<Value> importReduce(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    Reduction const r = readReduction(node, x.getDimensions().nbDims);
    if (form == Form::kPLAIN && r.noop)
    {
        return {node.input(0)};
    }
    ITensor* before = &x;
    if (form == Form::kL1)
    {
        before = &unary(ctx, x, UnaryOperation::kABS);
    }
    else if (form == Form::kL2 || form == Form::kSUM_SQUARE)
    {
        before = &square(ctx, x);
    }
    ITensor* y = &reduce(ctx, *before, op, r);
    if (form == Form::kL2)
    {
        y = &unary(ctx, *y, UnaryOperation::kSQRT);
    }
    else if (form == Form::kLOG_SUM)
    {
        y = &unary(ctx, *y, UnaryOperation::kLOG);
    }
    return {output(y)};
}

//! log(sum(exp(x - max))) + max, which stays finite for large inputs.
std::vector<Value> importReduceLogSumExp(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    Reduction const r = readReduction(node, x.getDimensions().nbDims);
    Reduction kept = r;
    kept.keep = true;
    ITensor& maxKept = reduce(ctx, x, ReduceOperation::kMAX, kept);
    ITensor& shifted = binary(ctx, x, maxKept, ElementWiseOperation::kSUB);
    ITensor& sum = reduce(ctx, unary(ctx, shifted, UnaryOperation::kEXP), ReduceOperation::kSUM, r);
    ITensor& max = r.keep ? maxKept : reduce(ctx, x, ReduceOperation::kMAX, r);
    return {output(&binary(ctx, unary(ctx, sum, UnaryOperation::kLOG), max, ElementWiseOperation::kSUM))};
}

//! ArgMax (kMAX) or ArgMin (kMIN): the first (or last) index along axis where x equals its extreme, as INT64.
template <ReduceOperation op>
std::vector<Value> importArgExtreme(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 1, ErrorCode::kUNSUPPORTED_NODE_SHAPE, node.opType(), " needs an input of rank 1 or more");
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", 0), rank);
    bool const keep = node.attrs.get<int64_t>("keepdims", 1) != 0;
    bool const last = node.attrs.get<int64_t>("select_last_index", 0) != 0;
    uint32_t const mask = 1U << axis;
    ITensor& extreme = *ctx.added(ctx.network().addReduce(x, op, mask, true)).getOutput(0);
    ITensor& hit = binary(ctx, x, extreme, ElementWiseOperation::kEQUAL);
    // Indices where x hits the extreme, a sentinel elsewhere that the final min (first) or max (last) ignores.
    ShapedWeights sentinel = ctx.int64Weights({last ? -1 : std::numeric_limits<int64_t>::max()});
    sentinel.shape = Dims{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        sentinel.shape.d[i] = 1;
    }
    ITensor& other = ctx.tensor(Value::weights(sentinel));
    ITensor& candidates
        = *ctx.added(ctx.network().addSelect(hit, axisPositions(ctx, x, 1U << axis), other)).getOutput(0);
    ReduceOperation const pick = last ? ReduceOperation::kMAX : ReduceOperation::kMIN;
    return {output(ctx.added(ctx.network().addReduce(candidates, pick, mask, keep)).getOutput(0))};
}

} // namespace

void registerReduceOps(OpRegistry& registry)
{
    registry.add("ReduceSum", importReduce<ReduceOperation::kSUM, Form::kPLAIN>);
    registry.add("ReduceMean", importReduce<ReduceOperation::kAVG, Form::kPLAIN>);
    registry.add("ReduceMax", importReduce<ReduceOperation::kMAX, Form::kPLAIN>);
    registry.add("ReduceMin", importReduce<ReduceOperation::kMIN, Form::kPLAIN>);
    registry.add("ReduceProd", importReduce<ReduceOperation::kPROD, Form::kPLAIN>);
    registry.add("ReduceL1", importReduce<ReduceOperation::kSUM, Form::kL1>);
    registry.add("ReduceL2", importReduce<ReduceOperation::kSUM, Form::kL2>);
    registry.add("ReduceLogSum", importReduce<ReduceOperation::kSUM, Form::kLOG_SUM>);
    registry.add("ReduceSumSquare", importReduce<ReduceOperation::kSUM, Form::kSUM_SQUARE>);
    registry.add("ReduceLogSumExp", importReduceLogSumExp);
    registry.add("ArgMax", importArgExtreme<ReduceOperation::kMAX>);
    registry.add("ArgMin", importArgExtreme<ReduceOperation::kMIN>);
}

} // namespace kiln::onnx_import
