// SPDX-License-Identifier: Apache-2.0
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, DepthToSpace, SpaceToDepth onto IShuffleLayer; weights are
// reshaped (and small ones transposed) at parse time.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"

#include <algorithm>

namespace kiln::onnx_import
{

namespace
{

std::vector<Value> importReshape(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    bool const allowZero = node.attrs.get<int64_t>("allowzero", 0) != 0;
    bool const fromAttribute = ctx.opset() < 5;
    if (!fromAttribute && !node.input(1).isWeights())
    {
        // A shape known only at run time.
        auto& shuffle = ctx.added(ctx.network().addShuffle(ctx.tensor(data)));
        shuffle.setInput(1, castTo(ctx, ctx.tensor(node.input(1)), DataType::kINT64));
        shuffle.setZeroIsPlaceholder(!allowZero);
        return {output(shuffle.getOutput(0))};
    }
    std::vector<int64_t> const shape
        = fromAttribute ? node.attrs.required<std::vector<int64_t>>("shape") : constantInts(node, 1, "shape");
    std::vector<DimPart> parts;
    int32_t const rank = data.rank();
    for (size_t i = 0; i < shape.size(); ++i)
    {
        int64_t const v = shape[i];
        require(v >= -1, ErrorCode::kINVALID_NODE, "shape value ", i, " is ", v, "; values are -1, 0 or positive");
        if (v == 0 && !allowZero)
        {
            require(static_cast<int32_t>(i) < rank, ErrorCode::kINVALID_NODE, "shape value ", i,
                " is 0, which copies input dimension ", i, ", but the input has ", rank, " dimensions");
            parts.push_back(DimPart::copy(static_cast<int32_t>(i)));
        }
        else
        {
            parts.push_back(DimPart::fixed(v));
        }
    }
    require(
        std::count(shape.begin(), shape.end(), -1) <= 1, ErrorCode::kINVALID_NODE, "the shape has more than one -1");
    return {reshapeValue(ctx, data, parts)};
}

//! The product of extents [begin, end) of dims, or -1 when one is unknown.
int64_t knownProduct(Dims const& dims, int32_t begin, int32_t end)
{
    int64_t product = 1;
    for (int32_t i = begin; i < end; ++i)
    {
        if (dims.d[i] < 0)
        {
            return -1;
        }
        product *= dims.d[i];
    }
    return product;
}

//! The product of extents [begin, end) of x's shape as a 1-element INT64 tensor.
ITensor& productTensor(ImportContext& ctx, ITensor& x, int32_t begin, int32_t end)
{
    std::vector<int64_t> indices;
    for (int32_t i = begin; i < end; ++i)
    {
        indices.push_back(i);
    }
    ITensor& extents = pick(ctx, Value::tensor(shapeOf(ctx, x)), indices).tensor();
    return *ctx.added(ctx.network().addReduce(extents, nvinfer1::ReduceOperation::kPROD, 1U, true)).getOutput(0);
}

std::vector<Value> importFlatten(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    Dims const dims = data.shape();
    int32_t const rank = dims.nbDims;
    int64_t axis = node.attrs.get<int64_t>("axis", 1);
    require(axis >= -rank && axis <= rank, ErrorCode::kINVALID_NODE, "axis ", axis, " is out of range for an input of ",
        rank, " dimensions");
    auto const a = static_cast<int32_t>(axis < 0 ? axis + rank : axis);
    int64_t const left = knownProduct(dims, 0, a);
    int64_t const right = knownProduct(dims, a, rank);
    if ((left >= 0 && right >= 0) || (left > 0) || (right > 0))
    {
        return {reshapeValue(ctx, data, {DimPart::fixed(left), DimPart::fixed(right)})};
    }
    ITensor& x = ctx.tensor(data);
    std::array<ITensor*, 2> pieces{&productTensor(ctx, x, 0, a), &productTensor(ctx, x, a, rank)};
    ITensor& shape = *ctx.added(ctx.network().addConcatenation(pieces.data(), 2)).getOutput(0);
    auto& shuffle = ctx.added(ctx.network().addShuffle(x));
    shuffle.setInput(1, shape);
    shuffle.setZeroIsPlaceholder(false);
    return {output(shuffle.getOutput(0))};
}

//! The axes of Squeeze or Unsqueeze: the attribute before opset 13, input 1 from then on; nullopt when absent.
std::optional<std::vector<int64_t>> axesOf(ImportContext& ctx, Node const& node)
{
    if (ctx.opset() < 13)
    {
        if (!node.attrs.has("axes"))
        {
            return std::nullopt;
        }
        return node.attrs.get<std::vector<int64_t>>("axes", {});
    }
    if (!node.has(1))
    {
        return std::nullopt;
    }
    return constantInts(node, 1, "axes");
}

//! Axes normalised against rank, checked for repeats.
std::vector<bool> axisSet(std::vector<int64_t> const& axes, int32_t rank)
{
    std::vector<bool> chosen(static_cast<size_t>(rank), false);
    for (int64_t axis : axes)
    {
        int32_t const a = normalizeAxis(axis, rank, "axes value");
        require(!chosen[static_cast<size_t>(a)], ErrorCode::kINVALID_NODE, "axis ", axis, " is repeated in axes");
        chosen[static_cast<size_t>(a)] = true;
    }
    return chosen;
}

std::vector<Value> importSqueeze(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    Dims const dims = data.shape();
    std::optional<std::vector<int64_t>> axes = axesOf(ctx, node);
    std::vector<bool> squeezed(static_cast<size_t>(dims.nbDims), false);
    if (axes)
    {
        squeezed = axisSet(*axes, dims.nbDims);
    }
    else
    {
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            squeezed[static_cast<size_t>(i)] = dims.d[i] == 1;
            if (dims.d[i] < 0)
            {
                ctx.warn("Squeeze without axes: dimension ", i, " is known only at run time; it is kept");
            }
        }
    }
    std::vector<DimPart> parts;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (squeezed[static_cast<size_t>(i)])
        {
            require(dims.d[i] == 1 || dims.d[i] < 0, ErrorCode::kINVALID_NODE, "dimension ", i, " has extent ",
                dims.d[i], "; Squeeze removes only extents of 1");
            continue;
        }
        parts.push_back(DimPart::copy(i));
    }
    return {reshapeValue(ctx, data, parts)};
}

std::vector<Value> importUnsqueeze(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    std::optional<std::vector<int64_t>> axes = axesOf(ctx, node);
    require(axes.has_value(), ErrorCode::kINVALID_NODE, "Unsqueeze needs axes");
    auto const rank = static_cast<int32_t>(data.rank() + axes->size());
    require(rank <= Dims::MAX_DIMS, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the output would have ", rank,
        " dimensions; at most ", Dims::MAX_DIMS, " are supported");
    std::vector<bool> inserted = axisSet(*axes, rank);
    std::vector<DimPart> parts;
    int32_t next = 0;
    for (int32_t i = 0; i < rank; ++i)
    {
        parts.push_back(inserted[static_cast<size_t>(i)] ? DimPart::fixed(1) : DimPart::copy(next++));
    }
    return {reshapeValue(ctx, data, parts)};
}

std::vector<Value> importTranspose(ImportContext& ctx, Node& node)
{
    Value const& data = node.input(0);
    int32_t const rank = data.rank();
    std::vector<int64_t> fallback;
    for (int32_t i = rank - 1; i >= 0; --i)
    {
        fallback.push_back(i);
    }
    std::vector<int64_t> const perm = node.attrs.get<std::vector<int64_t>>("perm", fallback);
    require(static_cast<int32_t>(perm.size()) == rank, ErrorCode::kINVALID_NODE, "perm has ", perm.size(),
        " values for an input of ", rank, " dimensions");
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    std::vector<int32_t> order;
    for (int64_t p : perm)
    {
        require(p >= 0 && p < rank && !seen[static_cast<size_t>(p)], ErrorCode::kINVALID_NODE, "perm value ", p,
            " is out of range or repeated; perm must be a permutation of 0 to ", rank - 1);
        seen[static_cast<size_t>(p)] = true;
        order.push_back(static_cast<int32_t>(p));
    }
    return {transposeValue(ctx, data, order)};
}

//! The block size of DepthToSpace and SpaceToDepth, for a 4-D input.
int64_t blockSize(Node const& node)
{
    int64_t const b = node.attrs.required<int64_t>("blocksize");
    require(b >= 1, ErrorCode::kINVALID_NODE, "blocksize is ", b, "; it must be at least 1");
    require(node.input(0).rank() == 4, ErrorCode::kUNSUPPORTED_NODE_SHAPE, "the input has ", node.input(0).rank(),
        " dimensions; ", node.opType(), " takes 4-D inputs");
    return b;
}

void checkDepthToSpace(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    std::string const mode = attrs.get<std::string>("mode", "DCR");
    require(mode == "DCR" || mode == "CRD", ErrorCode::kUNSUPPORTED_NODE_ATTR, "mode '", mode, "' is not DCR or CRD");
}

std::vector<Value> importDepthToSpace(ImportContext& ctx, Node& node)
{
    int64_t const b = blockSize(node);
    std::string const mode = node.attrs.get<std::string>("mode", "DCR");
    Dims const dims = node.input(0).shape();
    require(dims.d[1] < 0 || dims.d[1] % (b * b) == 0, ErrorCode::kINVALID_NODE, "the channels (", dims.d[1],
        ") are not a multiple of blocksize squared (", b * b, ")");
    DimPart const n = DimPart::copy(0);
    DimPart const c = DimPart::copy(1, 1, b * b);
    DimPart const block = DimPart::fixed(b);
    bool const dcr = mode == "DCR";
    Value split = reshapeValue(ctx, node.input(0),
        dcr ? std::vector{n, block, block, c, DimPart::copy(2), DimPart::copy(3)}
            : std::vector{n, c, block, block, DimPart::copy(2), DimPart::copy(3)});
    // Both orders end as [N, C/b^2, H, b, W, b].
    Value moved = transposeValue(ctx, split, dcr ? std::vector{0, 3, 4, 1, 5, 2} : std::vector{0, 1, 4, 2, 5, 3});
    return {reshapeValue(ctx, moved, {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2, b), DimPart::copy(4, b)})};
}

std::vector<Value> importSpaceToDepth(ImportContext& ctx, Node& node)
{
    int64_t const b = blockSize(node);
    Dims const dims = node.input(0).shape();
    for (int32_t i : {2, 3})
    {
        require(dims.d[i] < 0 || dims.d[i] % b == 0, ErrorCode::kINVALID_NODE, "spatial extent ", dims.d[i],
            " is not a multiple of blocksize ", b);
    }
    DimPart const block = DimPart::fixed(b);
    Value split = reshapeValue(ctx, node.input(0),
        {DimPart::copy(0), DimPart::copy(1), DimPart::copy(2, 1, b), block, DimPart::copy(3, 1, b), block});
    // [N, C, H/b, b, W/b, b] -> [N, b, b, C, H/b, W/b]
    Value moved = transposeValue(ctx, split, {0, 3, 5, 1, 2, 4});
    return {reshapeValue(ctx, moved, {DimPart::copy(0), DimPart::copy(3, b * b), DimPart::copy(4), DimPart::copy(5)})};
}

} // namespace

void registerReshapeOps(OpRegistry& registry)
{
    registry.add("Reshape", importReshape);
    registry.add("Flatten", importFlatten);
    registry.add("Squeeze", importSqueeze);
    registry.add("Unsqueeze", importUnsqueeze);
    registry.add("Transpose", importTranspose);
    registry.add("DepthToSpace", importDepthToSpace, checkDepthToSpace);
    registry.add("SpaceToDepth", importSpaceToDepth);
}

} // namespace kiln::onnx_import
