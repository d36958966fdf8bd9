// SPDX-License-Identifier: Apache-2.0
#include "onnx/importers/helpers.h"

#include "core/data_type.h"
#include "onnx/weights.h"

namespace kiln::onnx_import
{

ITensor& inputTensor(ImportContext& ctx, Node const& node, size_t i)
{
    return ctx.tensor(node.input(i));
}

Value output(ITensor* tensor)
{
    require(tensor != nullptr, ErrorCode::kINTERNAL_ERROR, "a layer has no output tensor");
    return Value::tensor(*tensor);
}

int32_t normalizeAxis(int64_t axis, int32_t rank, char const* what)
{
    require(axis >= -rank && axis < rank, ErrorCode::kINVALID_NODE, what, " ", axis,
        " is out of range for an input of ", rank, " dimensions");
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

ITensor& expandRank(ImportContext& ctx, ITensor& tensor, int32_t rank)
{
    Dims const dims = tensor.getDimensions();
    if (dims.nbDims >= rank || dims.nbDims < 0)
    {
        return tensor;
    }
    // 1s in front of the input's extents: the extents themselves when known, else its shape at run time.
    int32_t const extra = rank - dims.nbDims;
    auto& shuffle = ctx.added(ctx.network().addShuffle(tensor));
    if (isStatic(dims))
    {
        Dims reshape{rank, {}};
        for (int32_t i = 0; i < rank; ++i)
        {
            reshape.d[i] = i < extra ? 1 : dims.d[i - extra];
        }
        shuffle.setZeroIsPlaceholder(false); // a 0 is an empty extent here, not "copy"
        shuffle.setReshapeDimensions(reshape);
    }
    else
    {
        ITensor* parts[]
            = {&int64Constant(ctx, std::vector<int64_t>(static_cast<size_t>(extra), 1)), &shapeOf(ctx, tensor)};
        auto& shape = ctx.added(ctx.network().addConcatenation(parts, 2));
        shuffle.setInput(1, *shape.getOutput(0));
    }
    return *shuffle.getOutput(0);
}

std::pair<ITensor*, ITensor*> broadcastPair(ImportContext& ctx, ITensor& a, ITensor& b)
{
    int32_t const rank = std::max(a.getDimensions().nbDims, b.getDimensions().nbDims);
    return {&expandRank(ctx, a, rank), &expandRank(ctx, b, rank)};
}

ITensor& castTo(ImportContext& ctx, ITensor& tensor, DataType type)
{
    DataType const from = tensor.getType();
    if (from == type)
    {
        return tensor;
    }
    bool const uint8Pair = from == DataType::kUINT8 || type == DataType::kUINT8;
    bool const direct = !uint8Pair || from == DataType::kFLOAT || from == DataType::kHALF || type == DataType::kFLOAT
        || type == DataType::kHALF;
    ITensor& source = direct ? tensor : castTo(ctx, tensor, DataType::kFLOAT);
    ITensor& result = *ctx.added(ctx.network().addCast(source, type)).getOutput(0);
    if (type == DataType::kINT8 && !ctx.network().getFlag(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED))
    {
        // Plain integers, not quantized values: scale 1 (see markPlainInt8 in model_importer.cpp).
        KILN_IGNORE_DEPRECATED_BEGIN
        result.setDynamicRange(-127.0F, 127.0F);
        KILN_IGNORE_DEPRECATED_END
    }
    return result;
}

bool isFloating(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

DataType floatingTypeAttribute(Node const& node, char const* name, int64_t fallback)
{
    int64_t const code = node.attrs.get<int64_t>(name, fallback);
    std::optional<DataType> const type = dataTypeFromOnnx(static_cast<int32_t>(code));
    require(type.has_value() && isFloating(*type), ErrorCode::kUNSUPPORTED_NODE_ATTR, "attribute ", name, " ", code,
        " is not a floating-point type");
    return *type;
}

ITensor& floatingInput(ImportContext& ctx, Node const& node)
{
    DataType const type = node.input(0).type();
    require(isFloating(type), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(type),
        "; ", node.opType(), " takes floating-point inputs");
    return inputTensor(ctx, node, 0);
}

ITensor& unary(ImportContext& ctx, ITensor& x, nvinfer1::UnaryOperation op)
{
    return *ctx.added(ctx.network().addUnary(x, op)).getOutput(0);
}

ITensor& binary(ImportContext& ctx, ITensor& a, ITensor& b, nvinfer1::ElementWiseOperation op)
{
    auto [x, y] = broadcastPair(ctx, a, b);
    return *ctx.added(ctx.network().addElementWise(*x, *y, op)).getOutput(0);
}

std::vector<int64_t> stridesOf(Dims const& dims)
{
    std::vector<int64_t> strides(static_cast<size_t>(std::max(dims.nbDims, 0)), 1);
    for (int32_t i = dims.nbDims - 2; i >= 0; --i)
    {
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i) + 1] * dims.d[i + 1];
    }
    return strides;
}

std::string shapeText(Dims const& dims)
{
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

ITensor& scalarConstant(ImportContext& ctx, double value, DataType type, int32_t rank)
{
    Dims shape{rank, {}};
    for (int32_t i = 0; i < rank; ++i)
    {
        shape.d[i] = 1;
    }
    return ctx.tensor(Value::weights(ctx.weightsFrom(type, shape, {value})));
}

ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values)
{
    return ctx.tensor(Value::weights(ctx.int64Weights(values)));
}

ITensor& int64Constant(ImportContext& ctx, std::vector<int64_t> const& values, Dims const& shape)
{
    ShapedWeights weights = ctx.int64Weights(values);
    weights.shape = shape;
    return ctx.tensor(Value::weights(weights));
}

ITensor& axisPositions(ImportContext& ctx, ITensor& x, uint32_t axes)
{
    Dims const dims = x.getDimensions();
    Dims shape{dims.nbDims, {}};
    int64_t count = 1;
    bool known = true;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        bool const inside = (axes >> i) & 1U;
        shape.d[i] = inside ? dims.d[i] : 1;
        known = known && shape.d[i] >= 0;
        count *= inside ? std::max<int64_t>(dims.d[i], 0) : 1;
    }
    if (known)
    {
        std::vector<int64_t> values(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i)
        {
            values[static_cast<size_t>(i)] = i;
        }
        return int64Constant(ctx, values, shape);
    }
    require((axes & (axes - 1U)) == 0U, ErrorCode::kUNSUPPORTED_NODE_DYNAMIC,
        "Hardmax over several axes needs their extents at build time");
    int32_t const axis = std::countr_zero(axes);
    auto& extent = ctx.added(ctx.network().addSlice(shapeOf(ctx, x), Dims{1, {axis}}, Dims{1, {1}}, Dims{1, {1}}));
    auto& fill = ctx.added(ctx.network().addFill(Dims{1, {0}}, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64));
    fill.setInput(0, *extent.getOutput(0));
    fill.setAlphaInt64(0);
    fill.setBetaInt64(1);
    auto& reshape = ctx.added(ctx.network().addShuffle(*fill.getOutput(0)));
    reshape.setReshapeDimensions(shape);
    return *reshape.getOutput(0);
}

ITensor& shapeOf(ImportContext& ctx, ITensor& tensor)
{
    return *ctx.added(ctx.network().addShape(tensor)).getOutput(0);
}

bool isStatic(Dims const& dims)
{
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        if (dims.d[i] < 0)
        {
            return false;
        }
    }
    return true;
}

std::vector<int64_t> constantInts(Node const& node, size_t i, char const* what)
{
    Value const& value = node.input(i);
    require(value.isWeights(), ErrorCode::kUNSUPPORTED_NODE_INPUT, "input ", i, " (", what,
        ") must be known when the model is parsed: an initializer or the output of a Constant node");
    ShapedWeights const& weights = value.weights();
    std::vector<int64_t> values(static_cast<size_t>(weights.count));
    for (int64_t k = 0; k < weights.count; ++k)
    {
        values[static_cast<size_t>(k)] = weights.integer(k);
    }
    return values;
}

std::vector<double> constantNumbers(Node const& node, size_t i, char const* what)
{
    Value const& value = node.input(i);
    require(value.isWeights(), ErrorCode::kUNSUPPORTED_NODE_INPUT, "input ", i, " (", what,
        ") must be known when the model is parsed: an initializer or the output of a Constant node");
    ShapedWeights const& weights = value.weights();
    std::vector<double> values(static_cast<size_t>(weights.count));
    for (int64_t k = 0; k < weights.count; ++k)
    {
        values[static_cast<size_t>(k)] = weights.number(k);
    }
    return values;
}

Dims toDims(std::vector<int64_t> const& values)
{
    require(values.size() <= static_cast<size_t>(Dims::MAX_DIMS), ErrorCode::kUNSUPPORTED_NODE_SHAPE, values.size(),
        " dimensions; at most ", Dims::MAX_DIMS, " are supported");
    Dims dims{static_cast<int32_t>(values.size()), {}};
    for (size_t i = 0; i < values.size(); ++i)
    {
        dims.d[i] = values[i];
    }
    return dims;
}

} // namespace kiln::onnx_import
