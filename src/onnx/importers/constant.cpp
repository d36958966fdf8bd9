// SPDX-License-Identifier: Apache-2.0
// Constant, ConstantOfShape, Range, EyeLike, Shape, Size and Trilu. Values known at parse time become weights;
// otherwise shape layers, IFillLayer ramps, stride-0 slices and selects compute them.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"
#include "onnx/weights.h"

#include "core/data_type.h"

#include <cmath>
#include <cstring>

namespace kiln::onnx_import
{

namespace
{

using Op = ElementWiseOperation;

void checkConstant(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    for (char const* name : {"sparse_value", "value_string", "value_strings"})
    {
        require(!attrs.has(name), ErrorCode::kUNSUPPORTED_NODE_ATTR, "the ", name,
            " attribute is not supported (kiln supports value, value_float(s) and value_int(s))");
    }
}

std::vector<Value> importConstant(ImportContext& ctx, Node& node)
{
    Attributes const& attrs = node.attrs;
    if (auto const* tensor = attrs.get<::onnx::TensorProto const*>("value", nullptr))
    {
        ShapedWeights weights = importTensor(ctx, *tensor);
        weights.name = node.outputCount() > 0 ? node.proto.output(0) : std::string{};
        return {Value::weights(weights)};
    }
    if (attrs.has("value_float"))
    {
        return {Value::weights(ctx.weightsFrom(DataType::kFLOAT, Dims{0, {}}, {attrs.get<float>("value_float", 0)}))};
    }
    if (attrs.has("value_floats"))
    {
        std::vector<float> const v = attrs.get<std::vector<float>>("value_floats", {});
        Dims const shape{1, {static_cast<int64_t>(v.size())}};
        return {Value::weights(ctx.weightsFrom(DataType::kFLOAT, shape, std::vector<double>(v.begin(), v.end())))};
    }
    if (attrs.has("value_int"))
    {
        return {Value::weights(ctx.int64Weights({attrs.get<int64_t>("value_int", 0)}, true))};
    }
    if (attrs.has("value_ints"))
    {
        return {int64Value(ctx, attrs.get<std::vector<int64_t>>("value_ints", {}))};
    }
    fail(ErrorCode::kINVALID_NODE, "Constant has none of the attributes value, value_float(s), value_int(s)");
    unreachableAfterFail();
}

std::vector<Value> importConstantOfShape(ImportContext& ctx, Node& node)
{
    Value const& shape = node.input(0);
    int32_t const rank = knownLength(shape, "shape (input 0)");
    ShapedWeights value = ctx.weightsFrom(DataType::kFLOAT, Dims{0, {}}, {0.0});
    if (auto const* tensor = node.attrs.get<::onnx::TensorProto const*>("value", nullptr))
    {
        value = importTensor(ctx, *tensor);
        require(value.count == 1, ErrorCode::kINVALID_NODE, "value holds ", value.count, " elements; it must hold one");
    }
    int64_t const bytes = dataTypeBits(value.type) / 8;
    if (shape.isWeights())
    {
        Dims const dims = toDims(integers(shape.weights()));
        require(isStatic(dims), ErrorCode::kINVALID_NODE, "the shape has a negative extent");
        if (volume(dims) * bytes <= kFoldBytes)
        {
            ShapedWeights out = ctx.allocate(value.type, dims);
            for (int64_t i = 0; i < out.count; ++i)
            {
                std::memcpy(static_cast<std::byte*>(const_cast<void*>(out.data)) + i * bytes, value.data,
                    static_cast<size_t>(bytes));
            }
            return {Value::weights(out)};
        }
    }
    Dims ones{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        ones.d[i] = 1;
    }
    ITensor& small = ctx.tensor(Value::weights(withShape(value, ones)));
    return {output(&broadcastTo(ctx, small, shape))};
}

//! The number of elements of Range(start, limit, delta) for known operands.
int64_t rangeCount(ShapedWeights const& start, ShapedWeights const& limit, ShapedWeights const& delta)
{
    if (isIntegerType(start.type))
    {
        int64_t const s = start.integer(0);
        int64_t const d = delta.integer(0);
        require(d != 0, ErrorCode::kINVALID_NODE, "delta is 0");
        int64_t const span = limit.integer(0) - s;
        int64_t const n = span / d + ((span % d != 0 && ((span < 0) == (d < 0))) ? 1 : 0);
        return std::max<int64_t>(n, 0);
    }
    double const d = delta.number(0);
    require(d != 0.0, ErrorCode::kINVALID_NODE, "delta is 0");
    return std::max<int64_t>(static_cast<int64_t>(std::ceil((limit.number(0) - start.number(0)) / d)), 0);
}

//! The element count of Range computed at run time, as a 1-D INT64 tensor of one element.
ITensor& rangeCountTensor(ImportContext& ctx, ITensor& start, ITensor& limit, ITensor& delta)
{
    ITensor* n = nullptr;
    if (isIntegerType(start.getType()))
    {
        // ceil((limit - start) / delta) = -floor((start - limit) / delta)
        ITensor& s = castTo(ctx, start, DataType::kINT64);
        ITensor& l = castTo(ctx, limit, DataType::kINT64);
        ITensor& d = castTo(ctx, delta, DataType::kINT64);
        ITensor& q = binary(ctx, binary(ctx, s, l, Op::kSUB), d, Op::kFLOOR_DIV);
        n = &binary(ctx, scalarConstant(ctx, 0, DataType::kINT64, 0), q, Op::kSUB);
    }
    else
    {
        ITensor& q = binary(ctx, binary(ctx, limit, start, Op::kSUB), delta, Op::kDIV);
        ITensor& up = *ctx.added(ctx.network().addUnary(q, nvinfer1::UnaryOperation::kCEIL)).getOutput(0);
        n = &castTo(ctx, up, DataType::kINT64);
    }
    n = &binary(ctx, *n, scalarConstant(ctx, 0, DataType::kINT64, 0), Op::kMAX);
    return reshapeValue(ctx, Value::tensor(*n), {DimPart::fixed(1)}).tensor();
}

std::vector<Value> importRange(ImportContext& ctx, Node& node)
{
    Value const& start = node.input(0);
    Value const& limit = node.input(1);
    Value const& delta = node.input(2);
    for (size_t i = 0; i < 3; ++i)
    {
        require(volume(node.input(i).shape()) == 1, ErrorCode::kINVALID_NODE, "input ", i, " must be a scalar");
    }
    DataType const type = start.type();
    if (start.isWeights() && limit.isWeights() && delta.isWeights())
    {
        int64_t const n = rangeCount(start.weights(), limit.weights(), delta.weights());
        if (n * (dataTypeBits(type) / 8) <= kFoldBytes)
        {
            std::vector<double> values(static_cast<size_t>(n));
            std::vector<int64_t> ints(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i)
            {
                ints[static_cast<size_t>(i)] = start.weights().integer(0) + i * delta.weights().integer(0);
                values[static_cast<size_t>(i)] = start.weights().number(0) + i * delta.weights().number(0);
            }
            if (isIntegerType(type))
            {
                return {Value::weights(castWeights(ctx, ctx.int64Weights(ints), type))};
            }
            return {Value::weights(ctx.weightsFrom(type, Dims{1, {n}}, values))};
        }
    }
    require(type == DataType::kFLOAT || type == DataType::kINT32 || type == DataType::kINT64,
        ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "a Range computed at run time must be FLOAT, INT32 or INT64, not ",
        dataTypeName(type));
    ITensor& s = ctx.tensor(start);
    ITensor& d = ctx.tensor(delta);
    ITensor& count = rangeCountTensor(ctx, s, ctx.tensor(limit), d);
    auto& fill = ctx.added(ctx.network().addFill(Dims{1, {1}}, nvinfer1::FillOperation::kLINSPACE, type));
    fill.setInput(0, count);
    fill.setInput(1, reshapeValue(ctx, Value::tensor(s), {}).tensor());
    fill.setInput(2, reshapeValue(ctx, Value::tensor(d), {DimPart::fixed(1)}).tensor());
    return {output(fill.getOutput(0))};
}

std::vector<Value> importEyeLike(ImportContext& ctx, Node& node)
{
    Value const& input = node.input(0);
    Dims const dims = input.shape();
    require(dims.nbDims == 2, ErrorCode::kINVALID_NODE, "the input has ", dims.nbDims, " dimensions; EyeLike takes 2");
    require(isStatic(dims), ErrorCode::kUNSUPPORTED_NODE_DYNAMIC, "the input's shape must be known at build time");
    DataType type = input.type();
    if (node.attrs.has("dtype"))
    {
        auto const onnxType = static_cast<int32_t>(node.attrs.get<int64_t>("dtype", 0));
        std::optional<DataType> const mapped = dataTypeFromOnnx(onnxType);
        require(mapped.has_value(), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "dtype ", onnxTypeName(onnxType),
            " is not supported");
        type = *mapped;
    }
    int64_t const k = node.attrs.get<int64_t>("k", 0);
    std::vector<double> values(static_cast<size_t>(volume(dims)), 0.0);
    for (int64_t i = 0; i < dims.d[0]; ++i)
    {
        int64_t const j = i + k;
        if (j >= 0 && j < dims.d[1])
        {
            values[static_cast<size_t>(i * dims.d[1] + j)] = 1.0;
        }
    }
    return {Value::weights(ctx.weightsFrom(type, dims, values))};
}

std::vector<Value> importShape(ImportContext& ctx, Node& node)
{
    Value const& input = node.input(0);
    Dims const dims = input.shape();
    int64_t const rank = dims.nbDims;
    auto const bound = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    int64_t const start = bound(node.attrs.get<int64_t>("start", 0));
    int64_t const end = std::max(start, bound(node.attrs.get<int64_t>("end", rank)));
    std::vector<int64_t> extents(dims.d + start, dims.d + end);
    if (std::all_of(extents.begin(), extents.end(), [](int64_t e) { return e >= 0; }))
    {
        return {int64Value(ctx, extents)};
    }
    ITensor& shape = shapeOf(ctx, input.tensor());
    if (start == 0 && end == rank)
    {
        return {output(&shape)};
    }
    std::vector<int64_t> indices;
    for (int64_t i = start; i < end; ++i)
    {
        indices.push_back(i);
    }
    return {pick(ctx, Value::tensor(shape), indices)};
}

std::vector<Value> importSize(ImportContext& ctx, Node& node)
{
    Value const& input = node.input(0);
    if (isStatic(input.shape()))
    {
        return {Value::weights(ctx.int64Weights({volume(input.shape())}, true))};
    }
    ITensor& shape = shapeOf(ctx, input.tensor());
    auto& reduce = ctx.added(ctx.network().addReduce(shape, nvinfer1::ReduceOperation::kPROD, 1U, false));
    return {output(reduce.getOutput(0))};
}

std::vector<Value> importTrilu(ImportContext& ctx, Node& node)
{
    Value const& input = node.input(0);
    Dims const dims = input.shape();
    int32_t const rank = dims.nbDims;
    require(rank >= 2, ErrorCode::kINVALID_NODE, "the input has ", rank, " dimensions; Trilu takes 2 or more");
    bool const upper = node.attrs.get<int64_t>("upper", 1) != 0;
    int64_t const rows = dims.d[rank - 2];
    int64_t const cols = dims.d[rank - 1];
    ITensor& x = ctx.tensor(input);
    ITensor& zero = scalarConstant(ctx, 0, x.getType(), rank);
    // keep(i, j): j - i >= k for the upper part, j - i <= k for the lower.
    if ((!node.has(1) || node.input(1).isWeights()) && rows >= 0 && cols >= 0)
    {
        int64_t const k = node.has(1) ? constantInts(node, 1, "k").at(0) : 0;
        std::vector<double> keep(static_cast<size_t>(rows * cols));
        for (int64_t i = 0; i < rows; ++i)
        {
            for (int64_t j = 0; j < cols; ++j)
            {
                keep[static_cast<size_t>(i * cols + j)] = (upper ? j - i >= k : j - i <= k) ? 1.0 : 0.0;
            }
        }
        ITensor& mask = ctx.tensor(Value::weights(ctx.weightsFrom(DataType::kBOOL, Dims{2, {rows, cols}}, keep)));
        auto& select = ctx.added(ctx.network().addSelect(expandRank(ctx, mask, rank), x, zero));
        return {output(select.getOutput(0))};
    }
    // j - i over the last two extents, as a ramp with deltas -1 (rows) and 1 (columns).
    ITensor* diff = nullptr;
    if (rows >= 0 && cols >= 0)
    {
        std::vector<int64_t> values(static_cast<size_t>(rows * cols));
        for (int64_t i = 0; i < rows * cols; ++i)
        {
            values[static_cast<size_t>(i)] = i % cols - i / cols;
        }
        diff = &ctx.tensor(Value::weights(withShape(ctx.int64Weights(values), Dims{2, {rows, cols}})));
    }
    else
    {
        auto& fill
            = ctx.added(ctx.network().addFill(Dims{2, {1, 1}}, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64));
        fill.setInput(0, ctx.tensor(pick(ctx, shapeValue(ctx, input), {rank - 2, rank - 1})));
        fill.setInput(1, ctx.tensor(Value::weights(ctx.int64Weights({0}, true))));
        fill.setInput(2, int64Constant(ctx, {-1, 1}));
        diff = fill.getOutput(0);
    }
    ITensor* k = &scalarConstant(ctx, 0, DataType::kINT64, 0);
    if (node.has(1))
    {
        k = &reshapeValue(ctx, Value::tensor(castTo(ctx, ctx.tensor(node.input(1)), DataType::kINT64)), {}).tensor();
    }
    ITensor& drop = binary(ctx, *diff, *k, upper ? Op::kLESS : Op::kGREATER);
    auto& select = ctx.added(ctx.network().addSelect(expandRank(ctx, drop, rank), zero, x));
    return {output(select.getOutput(0))};
}

} // namespace

void registerConstantOps(OpRegistry& registry)
{
    registry.add("Constant", importConstant, checkConstant);
    registry.add("ConstantOfShape", importConstantOfShape);
    registry.add("Range", importRange);
    registry.add("EyeLike", importEyeLike);
    registry.add("Shape", importShape);
    registry.add("Size", importSize);
    registry.add("Trilu", importTrilu);
}

} // namespace kiln::onnx_import
