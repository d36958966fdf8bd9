// SPDX-License-Identifier: Apache-2.0
// MaxPool, AveragePool and LpPool onto IPoolingLayer (2-D, 3-D, and 1-D through a reshape to 2-D); GlobalAveragePool,
// GlobalMaxPool and GlobalLpPool onto IReduceLayer over the spatial axes.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::PaddingMode;
using nvinfer1::PoolingType;
using nvinfer1::ReduceOperation;
using nvinfer1::UnaryOperation;

//! A pooling window as the layer takes it (2-D for 1-D pooling).
struct Window
{
    Dims size;
    Dims stride;
    Dims pre;
    Dims post;
    Dims overhang; //!< What ceil_mode adds after post (not padding that count_include_pad counts).
    PaddingMode mode{PaddingMode::kEXPLICIT_ROUND_DOWN};
};

void checkPool(ImportContext&, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    std::string const autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    require(autoPad == "NOTSET" || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" || autoPad == "VALID",
        ErrorCode::kUNSUPPORTED_NODE_ATTR, "auto_pad '", autoPad,
        "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    require(attrs.has("kernel_shape"), ErrorCode::kINVALID_NODE, "the required attribute 'kernel_shape' is missing");
    for (int64_t dilation : attrs.get<std::vector<int64_t>>("dilations", {}))
    {
        require(dilation == 1, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute dilations must be all 1s; kiln pools ",
            "without dilation");
    }
    require(node.output_size() < 2 || node.output(1).empty(), ErrorCode::kUNSUPPORTED_NODE,
        "the Indices output (output 1) is not supported");
}

//! n values of an attribute (fallback when absent).
std::vector<int64_t> spatialValues(Attributes const& attrs, char const* name, size_t n, int64_t fallback)
{
    std::vector<int64_t> values = attrs.get<std::vector<int64_t>>(name, std::vector<int64_t>(n, fallback));
    require(values.size() == n, ErrorCode::kINVALID_NODE, "attribute ", name, " has ", values.size(), " values for ", n,
        " spatial dimensions");
    return values;
}

//! Dims of the values, with a leading 1-extent value when the pooling is a 1-D one run as 2-D.
Dims windowDims(std::vector<int64_t> values, bool oneD, int64_t first)
{
    if (oneD)
    {
        values.insert(values.begin(), first);
    }
    return toDims(values);
}

//! Rounds the output size up (ceil_mode) on the axes whose last window starts inside the input or its left padding,
//! as ONNX asks, by an overhang after the end padding; needs the input's spatial extents, else rounds up everywhere.
void applyCeilMode(Window& w, Dims const& input, int32_t first)
{
    for (int32_t i = 0; i < w.size.nbDims; ++i)
    {
        int64_t const in = input.d[first + i];
        if (in < 0)
        {
            w.mode = PaddingMode::kEXPLICIT_ROUND_UP;
            w.overhang = Dims{w.size.nbDims, {}};
            return;
        }
        int64_t const span = in + w.pre.d[i] + w.post.d[i] - w.size.d[i];
        int64_t const remainder = span >= 0 ? span % w.stride.d[i] : 0;
        int64_t const steps = (span + w.stride.d[i] - 1) / w.stride.d[i];
        if (span >= 0 && remainder != 0 && steps * w.stride.d[i] < in + w.pre.d[i])
        {
            w.overhang.d[i] = w.stride.d[i] - remainder;
        }
    }
}

//! The window of a MaxPool, AveragePool or LpPool node over an input of rank (1-D pooling as 2-D).
Window readWindow(Attributes const& attrs, Dims const& input)
{
    auto const n = static_cast<size_t>(input.nbDims - 2);
    bool const oneD = n == 1;
    std::vector<int64_t> const kernel = attrs.required<std::vector<int64_t>>("kernel_shape");
    require(kernel.size() == n, ErrorCode::kINVALID_NODE, "attribute kernel_shape has ", kernel.size(),
        " values for an input of ", input.nbDims, " dimensions");
    Window w;
    w.size = windowDims(kernel, oneD, 1);
    w.stride = windowDims(spatialValues(attrs, "strides", n, 1), oneD, 1);
    for (int32_t i = 0; i < w.size.nbDims; ++i)
    {
        require(w.size.d[i] >= 1 && w.stride.d[i] >= 1, ErrorCode::kINVALID_NODE,
            "attributes kernel_shape and strides must hold values of at least 1");
    }
    std::vector<int64_t> const pads = spatialValues(attrs, "pads", 2 * n, 0);
    w.pre = windowDims(std::vector<int64_t>(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n)), oneD, 0);
    w.post = windowDims(std::vector<int64_t>(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end()), oneD, 0);
    std::string const autoPad = attrs.get<std::string>("auto_pad", "NOTSET");
    if (autoPad != "NOTSET")
    {
        w.pre = windowDims(std::vector<int64_t>(n, 0), oneD, 0);
        w.post = w.pre;
    }
    w.overhang = windowDims(std::vector<int64_t>(n, 0), oneD, 0);
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
    {
        w.mode = autoPad == "SAME_UPPER" ? PaddingMode::kSAME_UPPER : PaddingMode::kSAME_LOWER;
    }
    else if (attrs.get<int64_t>("ceil_mode", 0) != 0)
    {
        Dims spatialInput = input;
        if (oneD)
        {
            spatialInput = Dims{4, {input.d[0], input.d[1], 1, input.d[2]}};
        }
        applyCeilMode(w, spatialInput, 2);
    }
    return w;
}

//! A reshape of the input to dims (0 copies the input's extent).
ITensor& reshaped(ImportContext& ctx, ITensor& tensor, Dims const& dims)
{
    auto& shuffle = ctx.added(ctx.network().addShuffle(tensor));
    shuffle.setReshapeDimensions(dims);
    return *shuffle.getOutput(0);
}

bool hasOverhang(Window const& w)
{
    for (int32_t i = 0; i < w.overhang.nbDims; ++i)
    {
        if (w.overhang.d[i] != 0)
        {
            return true;
        }
    }
    return false;
}

//! x with its spatial axes padded with zeros by the window's padding (a kFILL slice); x's shape must be static.
ITensor& zeroPadded(ImportContext& ctx, ITensor& x, Window const& w)
{
    Dims const dims = x.getDimensions();
    int32_t const first = dims.nbDims - w.size.nbDims;
    Dims start{dims.nbDims, {}};
    Dims size = dims;
    Dims stride{dims.nbDims, {}};
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        bool const spatialAxis = i >= first;
        start.d[i] = spatialAxis ? -w.pre.d[i - first] : 0;
        size.d[i] += spatialAxis ? w.pre.d[i - first] + w.post.d[i - first] : 0;
        stride.d[i] = 1;
    }
    auto& slice = ctx.added(ctx.network().addSlice(x, start, size, stride));
    slice.setMode(nvinfer1::SampleMode::kFILL);
    return *slice.getOutput(0);
}

//! Pools x ([N, C, spatial...], 1 to 3 spatial axes) over the node's window.
ITensor& pool(ImportContext& ctx, Node const& node, ITensor& x, PoolingType type, bool excludePadding)
{
    Dims const dims = x.getDimensions();
    require(dims.nbDims >= 3 && dims.nbDims <= 5, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the input has ", dims.nbDims,
        " dimensions; ", node.opType(), " takes 3-D, 4-D or 5-D inputs (1 to 3 spatial axes)");
    Window w = readWindow(node.attrs, dims);
    bool const oneD = dims.nbDims == 3;
    ITensor* input = oneD ? &reshaped(ctx, x, Dims{4, {0, 0, 1, -1}}) : &x;
    // Averages that count the padding but not ceil_mode's overhang: zeros padded by hand and nothing excluded but
    // the overhang (the layer would count both).
    if (type == PoolingType::kAVERAGE && !excludePadding && hasOverhang(w) && isStatic(input->getDimensions()))
    {
        input = &zeroPadded(ctx, *input, w);
        w.pre = Dims{w.size.nbDims, {}};
        w.post = w.pre;
        excludePadding = true;
    }
    for (int32_t i = 0; i < w.size.nbDims; ++i)
    {
        w.post.d[i] += w.overhang.d[i];
    }
    auto& layer = ctx.added(ctx.network().addPoolingNd(*input, type, w.size));
    layer.setStrideNd(w.stride);
    layer.setPrePadding(w.pre);
    layer.setPostPadding(w.post);
    layer.setPaddingMode(w.mode);
    layer.setAverageCountExcludesPadding(excludePadding);
    ITensor& y = *layer.getOutput(0);
    return oneD ? reshaped(ctx, y, Dims{3, {0, 0, -1}}) : y;
}

//! Pools kUINT8 inputs (which the pooling layer lacks) as kFLOAT: the maximum is exact.
std::vector<Value> importMaxPool(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    DataType const type = x.getType() == DataType::kUINT8 ? DataType::kFLOAT : x.getType();
    ITensor& y = pool(ctx, node, castTo(ctx, x, type), PoolingType::kMAX, true);
    return {output(&castTo(ctx, y, x.getType()))};
}

std::vector<Value> importAveragePool(ImportContext& ctx, Node& node)
{
    bool const includePadding = node.attrs.get<int64_t>("count_include_pad", 0) != 0;
    return {output(&pool(ctx, node, inputTensor(ctx, node, 0), PoolingType::kAVERAGE, !includePadding))};
}

//! |x| to the power p.
ITensor& powerOfAbs(ImportContext& ctx, ITensor& x, int64_t p)
{
    int32_t const rank = x.getDimensions().nbDims;
    if (p == 2)
    {
        return binary(ctx, x, x, ElementWiseOperation::kPROD);
    }
    ITensor& a = unary(ctx, x, UnaryOperation::kABS);
    if (p == 1)
    {
        return a;
    }
    return binary(ctx, a, scalarConstant(ctx, static_cast<double>(p), x.getType(), rank), ElementWiseOperation::kPOW);
}

//! x to the power 1 / p.
ITensor& rootOf(ImportContext& ctx, ITensor& x, int64_t p)
{
    if (p == 1)
    {
        return x;
    }
    if (p == 2)
    {
        return unary(ctx, x, UnaryOperation::kSQRT);
    }
    int32_t const rank = x.getDimensions().nbDims;
    return binary(
        ctx, x, scalarConstant(ctx, 1.0 / static_cast<double>(p), x.getType(), rank), ElementWiseOperation::kPOW);
}

int64_t lpOrder(Node const& node)
{
    int64_t const p = node.attrs.get<int64_t>("p", 2);
    require(p >= 1, ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute p is ", p, "; it must be at least 1");
    return p;
}

//! LpPool: the window's sum of |x|^p (the padded average times the window's volume), to the power 1 / p.
std::vector<Value> importLpPool(ImportContext& ctx, Node& node)
{
    int64_t const p = lpOrder(node);
    ITensor& x = inputTensor(ctx, node, 0);
    ITensor& average = pool(ctx, node, powerOfAbs(ctx, x, p), PoolingType::kAVERAGE, false);
    int64_t volume = 1;
    for (int64_t k : node.attrs.required<std::vector<int64_t>>("kernel_shape"))
    {
        volume *= k;
    }
    int32_t const rank = average.getDimensions().nbDims;
    ITensor& sum = binary(
        ctx, average, scalarConstant(ctx, static_cast<double>(volume), x.getType(), rank), ElementWiseOperation::kPROD);
    return {output(&rootOf(ctx, sum, p))};
}

//! A reduction of x over its spatial axes (2 and up), keeping them as extents of 1.
ITensor& reduceSpatial(ImportContext& ctx, Node const& node, ITensor& x, ReduceOperation op)
{
    int32_t const rank = x.getDimensions().nbDims;
    require(rank >= 3, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the input has ", rank, " dimensions; ", node.opType(),
        " needs batch, channel and spatial dimensions");
    uint32_t const axes = ((1U << rank) - 1U) & ~3U;
    return *ctx.added(ctx.network().addReduce(x, op, axes, true)).getOutput(0);
}

template <ReduceOperation op>
std::vector<Value> importGlobalPool(ImportContext& ctx, Node& node)
{
    return {output(&reduceSpatial(ctx, node, inputTensor(ctx, node, 0), op))};
}

std::vector<Value> importGlobalLpPool(ImportContext& ctx, Node& node)
{
    int64_t const p = lpOrder(node);
    ITensor& powered = powerOfAbs(ctx, inputTensor(ctx, node, 0), p);
    return {output(&rootOf(ctx, reduceSpatial(ctx, node, powered, ReduceOperation::kSUM), p))};
}

} // namespace

void registerPoolingOps(OpRegistry& registry)
{
    registry.add("MaxPool", importMaxPool, checkPool);
    registry.add("AveragePool", importAveragePool, checkPool);
    registry.add("LpPool", importLpPool, checkPool);
    registry.add("GlobalAveragePool", importGlobalPool<ReduceOperation::kAVG>);
    registry.add("GlobalMaxPool", importGlobalPool<ReduceOperation::kMAX>);
    registry.add("GlobalLpPool", importGlobalLpPool);
}

} // namespace kiln::onnx_import
