// SPDX-License-Identifier: Apache-2.0
// Gather, GatherElements and GatherND onto IGatherLayer (negative indices wrapped at parse time when known, else by
// a select), and OneHot as an equality of the indices with a constant range, then a select.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::GatherMode;
using Op = ElementWiseOperation;

//! Indices known at parse time, wrapped: index i (in row-major order) is wrapped by extent(i), when known.
Value wrapConstant(ImportContext& ctx, ShapedWeights const& indices, std::function<int64_t(int64_t)> const& extent)
{
    std::vector<int64_t> values = integers(indices);
    for (size_t i = 0; i < values.size(); ++i)
    {
        int64_t const d = extent(static_cast<int64_t>(i));
        if (values[i] < 0 && d >= 0)
        {
            values[i] += d;
        }
        require(d < 0 || (values[i] >= 0 && values[i] < d), ErrorCode::kINVALID_NODE, "index ", values[i],
            " is out of range for an extent of ", d);
    }
    ShapedWeights out = ctx.int64Weights(values);
    return Value::weights(withShape(out, indices.shape));
}

//! Indices known only at run time, wrapped: index + extent where index < 0. extents is 1-D: one extent, or one per
//! position of the indices' last dimension.
ITensor& wrapTensor(ImportContext& ctx, ITensor& indices, ITensor& extents)
{
    int32_t const rank = indices.getDimensions().nbDims;
    ITensor* d = &castTo(ctx, extents, indices.getType());
    if (rank == 0)
    {
        d = &reshapeValue(ctx, Value::tensor(*d), {}).tensor();
    }
    d = &expandRank(ctx, *d, rank);
    ITensor& negative = binary(ctx, indices, scalarConstant(ctx, 0, indices.getType(), rank), Op::kLESS);
    ITensor& wrapped = binary(ctx, indices, *d, Op::kSUM);
    return *ctx.added(ctx.network().addSelect(negative, wrapped, indices)).getOutput(0);
}

//! Extents [begin, begin + count) of data as a 1-D INT64 tensor.
ITensor& extentsOf(ImportContext& ctx, Value const& data, int32_t begin, int32_t count)
{
    std::vector<int64_t> indices;
    for (int32_t i = 0; i < count; ++i)
    {
        indices.push_back(begin + i);
    }
    return ctx.tensor(pick(ctx, shapeValue(ctx, data), indices));
}

Value gatherWeights(ImportContext& ctx, ShapedWeights const& data, ShapedWeights const& indices, int32_t axis)
{
    Dims out{0, {}};
    for (int32_t i = 0; i < axis; ++i)
    {
        out.d[out.nbDims++] = data.shape.d[i];
    }
    for (int32_t i = 0; i < indices.shape.nbDims; ++i)
    {
        out.d[out.nbDims++] = indices.shape.d[i];
    }
    for (int32_t i = axis + 1; i < data.shape.nbDims; ++i)
    {
        out.d[out.nbDims++] = data.shape.d[i];
    }
    std::vector<int64_t> const strides = stridesOf(data.shape);
    std::vector<int64_t> const indexStrides = stridesOf(indices.shape);
    int32_t const q = indices.shape.nbDims;
    return Value::weights(remapWeights(ctx, data, out, [&](Coords const& c) {
        int64_t position = 0;
        for (int32_t i = 0; i < q; ++i)
        {
            position += c[static_cast<size_t>(axis + i)] * indexStrides[static_cast<size_t>(i)];
        }
        int64_t index = indices.integer(position) * strides[static_cast<size_t>(axis)];
        for (int32_t i = 0; i < data.shape.nbDims; ++i)
        {
            if (i != axis)
            {
                index += c[static_cast<size_t>(i < axis ? i : i - 1 + q)] * strides[static_cast<size_t>(i)];
            }
        }
        return index;
    }));
}

std::vector<Value> importGather(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", 0), data.rank());
    int64_t const extent = data.shape().d[axis];
    Value indices = node.input(1);
    if (indices.isWeights())
    {
        indices = wrapConstant(ctx, indices.weights(), [&](int64_t) { return extent; });
        // Folded while the result stays small (at most kFoldBytes of 8-byte elements).
        if (foldable(data) && extent > 0 && data.weights().count / extent * indices.weights().count <= kFoldBytes / 8)
        {
            return {gatherWeights(ctx, data.weights(), indices.weights(), axis)};
        }
    }
    ITensor* index = &ctx.tensor(indices);
    if (!indices.isWeights() || extent < 0)
    {
        index = &wrapTensor(ctx, *index, extentsOf(ctx, data, axis, 1));
    }
    auto& layer = ctx.added(ctx.network().addGather(ctx.tensor(data), *index, axis));
    return {output(layer.getOutput(0))};
}

std::vector<Value> importGatherElements(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", 0), data.rank());
    require(node.input(1).rank() == data.rank(), ErrorCode::kINVALID_NODE, "the indices have rank ",
        node.input(1).rank(), " and the data ", data.rank(), "; they must be equal");
    int64_t const extent = data.shape().d[axis];
    Value indices = node.input(1);
    ITensor* index = nullptr;
    if (indices.isWeights() && extent >= 0)
    {
        index = &ctx.tensor(wrapConstant(ctx, indices.weights(), [&](int64_t) { return extent; }));
    }
    else
    {
        index = &wrapTensor(ctx, ctx.tensor(indices), extentsOf(ctx, data, axis, 1));
    }
    auto& layer = ctx.added(ctx.network().addGatherV2(ctx.tensor(data), *index, GatherMode::kELEMENT));
    layer.setGatherAxis(axis);
    return {output(layer.getOutput(0))};
}

void checkGatherND(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    int64_t const batchDims = attrs.get<int64_t>("batch_dims", 0);
    require(batchDims == 0 || batchDims == 1, ErrorCode::kUNSUPPORTED_NODE_ATTR, "batch_dims is ", batchDims,
        "; kiln's IGatherLayer (kND) takes 0 or 1 element-wise dimensions");
}

std::vector<Value> importGatherND(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    Value const& indices = node.input(1);
    int64_t const batchDims = node.attrs.get<int64_t>("batch_dims", 0);
    Dims const dims = data.shape();
    Dims const indexDims = indices.shape();
    require(indexDims.nbDims >= 1 && indexDims.d[indexDims.nbDims - 1] >= 1, ErrorCode::kUNSUPPORTED_NODE_SHAPE,
        "the last extent of the indices must be known at build time");
    int64_t const m = indexDims.d[indexDims.nbDims - 1];
    require(batchDims + m <= dims.nbDims, ErrorCode::kINVALID_NODE, "the indices address ", m, " dimensions after ",
        batchDims, " batch dimensions of data of rank ", dims.nbDims);
    bool known = true;
    for (int64_t j = 0; j < m; ++j)
    {
        known = known && dims.d[batchDims + j] >= 0;
    }
    ITensor* index = nullptr;
    if (indices.isWeights() && known)
    {
        index = &ctx.tensor(wrapConstant(ctx, indices.weights(), [&](int64_t i) { return dims.d[batchDims + i % m]; }));
    }
    else
    {
        ITensor& extents = extentsOf(ctx, data, static_cast<int32_t>(batchDims), static_cast<int32_t>(m));
        index = &wrapTensor(ctx, ctx.tensor(indices), extents);
    }
    auto& layer = ctx.added(ctx.network().addGatherV2(ctx.tensor(data), *index, GatherMode::kND));
    layer.setNbElementWiseDims(static_cast<int32_t>(batchDims));
    return {output(layer.getOutput(0))};
}

//! Element i of values (a 2-element tensor or weights) as a tensor of rank with every extent 1.
ITensor& valueAt(ImportContext& ctx, Value const& values, int64_t i, int32_t rank)
{
    Value const one = pick(ctx, values, {i});
    return expandRank(ctx, ctx.tensor(one), rank);
}

std::vector<Value> importOneHot(ImportContext& ctx, Node& node)
{
    Value const& indices = node.input(0);
    std::vector<int64_t> const depthValues = constantInts(node, 1, "depth");
    require(depthValues.size() == 1, ErrorCode::kINVALID_NODE, "depth has ", depthValues.size(),
        " values; it must hold one");
    int64_t const depth = depthValues.front();
    require(depth >= 1, ErrorCode::kINVALID_NODE, "depth is ", depth, "; it must be at least 1");
    Value const& values = node.input(2);
    require(knownLength(values, "values") == 2, ErrorCode::kINVALID_NODE, "values must hold [off_value, on_value]");
    int32_t const rank = indices.rank() + 1;
    int32_t const axis = normalizeAxis(node.attrs.get<int64_t>("axis", -1), rank);

    // Indices as INT64 in [0, depth), with 1 inserted at axis.
    ITensor* index = &castTo(ctx, ctx.tensor(indices), DataType::kINT64);
    ITensor& depthTensor = int64Constant(ctx, {depth});
    index = &wrapTensor(ctx, *index, depthTensor);
    std::vector<DimPart> parts;
    Dims range{rank, {}};
    for (int32_t i = 0, next = 0; i < rank; ++i)
    {
        parts.push_back(i == axis ? DimPart::fixed(1) : DimPart::copy(next++));
        range.d[i] = i == axis ? depth : 1;
    }
    ITensor& column = reshapeValue(ctx, Value::tensor(*index), parts).tensor();
    std::vector<int64_t> iota(static_cast<size_t>(depth));
    for (int64_t i = 0; i < depth; ++i)
    {
        iota[static_cast<size_t>(i)] = i;
    }
    ITensor& positions = ctx.tensor(Value::weights(withShape(ctx.int64Weights(iota), range)));
    ITensor& hot = binary(ctx, column, positions, Op::kEQUAL);
    auto& select
        = ctx.added(ctx.network().addSelect(hot, valueAt(ctx, values, 1, rank), valueAt(ctx, values, 0, rank)));
    return {output(select.getOutput(0))};
}

} // namespace

void registerGatherOps(OpRegistry& registry)
{
    registry.add("Gather", importGather);
    registry.add("GatherElements", importGatherElements);
    registry.add("GatherND", importGatherND, checkGatherND);
    registry.add("OneHot", importOneHot);
}

} // namespace kiln::onnx_import
