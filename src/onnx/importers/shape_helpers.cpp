// SPDX-License-Identifier: Apache-2.0
#include "onnx/importers/shape_helpers.h"

#include "core/data_type.h"

#include <cmath>
#include <cstring>

namespace kiln::onnx_import
{

namespace
{

int64_t elementBytes(DataType type)
{
    int32_t const bits = dataTypeBits(type);
    return bits % 8 == 0 ? bits / 8 : 0;
}

//! Calls visit(coords, index) for every element of dims in row-major order.
void forEachElement(Dims const& dims, std::function<void(Coords const&, int64_t)> const& visit)
{
    int64_t const count = volume(dims);
    Coords c{};
    for (int64_t o = 0; o < count; ++o)
    {
        visit(c, o);
        for (int32_t i = dims.nbDims - 1; i >= 0; --i)
        {
            if (++c[static_cast<size_t>(i)] < dims.d[i])
            {
                break;
            }
            c[static_cast<size_t>(i)] = 0;
        }
    }
}

//! Stores an integer into element i of out, a buffer of an integer or boolean type.
void storeInteger(void* out, DataType type, int64_t i, int64_t v)
{
    switch (type)
    {
    case DataType::kINT8: static_cast<int8_t*>(out)[i] = static_cast<int8_t>(v); break;
    case DataType::kUINT8: static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(v); break;
    case DataType::kBOOL: static_cast<uint8_t*>(out)[i] = v != 0 ? 1 : 0; break;
    case DataType::kINT32: static_cast<int32_t*>(out)[i] = static_cast<int32_t>(v); break;
    case DataType::kINT64: static_cast<int64_t*>(out)[i] = v; break;
    default: fail(ErrorCode::kINTERNAL_ERROR, "storeInteger called for ", dataTypeName(type));
    }
}

bool isIdentity(std::vector<int32_t> const& perm)
{
    for (size_t i = 0; i < perm.size(); ++i)
    {
        if (perm[i] != static_cast<int32_t>(i))
        {
            return false;
        }
    }
    return true;
}

Dims zeros(int32_t n)
{
    Dims dims{n, {}};
    return dims;
}

//! The operand of a slice as Dims (placeholder zeros of the right length when a tensor gives it).
Dims sliceDims(Value const& operand, char const* what)
{
    if (operand.isWeights())
    {
        return toDims(integers(operand.weights()));
    }
    return zeros(knownLength(operand, what));
}

} // namespace

bool foldable(Value const& value)
{
    if (!value.isWeights())
    {
        return false;
    }
    ShapedWeights const& w = value.weights();
    int64_t const bytes = elementBytes(w.type);
    return bytes > 0 && w.count * bytes <= kFoldBytes;
}

std::vector<int64_t> integers(ShapedWeights const& weights)
{
    std::vector<int64_t> values(static_cast<size_t>(weights.count));
    for (int64_t i = 0; i < weights.count; ++i)
    {
        values[static_cast<size_t>(i)] = weights.integer(i);
    }
    return values;
}

ShapedWeights withShape(ShapedWeights weights, Dims const& shape)
{
    require(volume(shape) == weights.count, ErrorCode::kINTERNAL_ERROR, "reshaping weights of ", weights.count,
        " elements to ", volume(shape));
    weights.shape = shape;
    weights.name.clear();
    return weights;
}

ShapedWeights remapWeights(ImportContext& ctx, ShapedWeights const& input, Dims const& shape,
    std::function<int64_t(Coords const&)> const& source)
{
    int64_t const bytes = elementBytes(input.type);
    require(bytes > 0, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "weights of type ", dataTypeName(input.type),
        " cannot be rearranged at parse time");
    ShapedWeights out = ctx.allocate(input.type, shape);
    auto* dst = static_cast<std::byte*>(const_cast<void*>(out.data));
    auto const* src = static_cast<std::byte const*>(input.data);
    forEachElement(shape, [&](Coords const& c, int64_t o) {
        int64_t const from = source(c);
        require(from >= 0 && from < input.count, ErrorCode::kINVALID_NODE, "element ", o, " reads index ", from,
            " of weights with ", input.count, " elements");
        std::memcpy(dst + o * bytes, src + from * bytes, static_cast<size_t>(bytes));
    });
    return out;
}

ShapedWeights transposeWeights(ImportContext& ctx, ShapedWeights const& weights, std::vector<int32_t> const& perm)
{
    Dims shape{static_cast<int32_t>(perm.size()), {}};
    std::vector<int64_t> strides(perm.size(), 1);
    for (int32_t i = static_cast<int32_t>(perm.size()) - 2; i >= 0; --i)
    {
        strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i) + 1] * weights.shape.d[i + 1];
    }
    for (size_t i = 0; i < perm.size(); ++i)
    {
        shape.d[i] = weights.shape.d[perm[i]];
    }
    return remapWeights(ctx, weights, shape, [&](Coords const& c) {
        int64_t index = 0;
        for (size_t i = 0; i < perm.size(); ++i)
        {
            index += c[i] * strides[static_cast<size_t>(perm[i])];
        }
        return index;
    });
}

ShapedWeights castWeights(ImportContext& ctx, ShapedWeights const& weights, DataType type)
{
    if (weights.type == type)
    {
        return weights;
    }
    bool const toInteger = isIntegerType(type) || type == DataType::kBOOL;
    if (!toInteger)
    {
        std::vector<double> values(static_cast<size_t>(weights.count));
        for (int64_t i = 0; i < weights.count; ++i)
        {
            values[static_cast<size_t>(i)] = weights.number(i);
        }
        return ctx.weightsFrom(type, weights.shape, values);
    }
    ShapedWeights out = ctx.allocate(type, weights.shape);
    void* dst = const_cast<void*>(out.data);
    bool const fromFloat = isFloatType(weights.type);
    for (int64_t i = 0; i < weights.count; ++i)
    {
        int64_t v = 0;
        if (fromFloat)
        {
            double const d = weights.number(i);
            v = type == DataType::kBOOL ? (d != 0.0 ? 1 : 0) : (std::isfinite(d) ? static_cast<int64_t>(d) : 0);
        }
        else
        {
            v = weights.integer(i);
        }
        storeInteger(dst, type, i, v);
    }
    return out;
}

Value int64Value(ImportContext& ctx, std::vector<int64_t> const& values)
{
    return Value::weights(ctx.int64Weights(values));
}

Value unsqueezeAxis(ImportContext& ctx, Value const& value, int32_t axis)
{
    std::vector<DimPart> parts;
    for (int32_t j = 0; j <= value.rank(); ++j)
    {
        if (j == axis)
        {
            parts.push_back(DimPart::fixed(1));
        }
        if (j < value.rank())
        {
            parts.push_back(DimPart::copy(j));
        }
    }
    return reshapeValue(ctx, value, parts);
}

Value squeezeAxis(ImportContext& ctx, Value const& value, int32_t axis)
{
    std::vector<DimPart> parts;
    for (int32_t j = 0; j < value.rank(); ++j)
    {
        if (j != axis)
        {
            parts.push_back(DimPart::copy(j));
        }
    }
    return reshapeValue(ctx, value, parts);
}

Value shapeValue(ImportContext& ctx, Value const& value)
{
    Dims const dims = value.shape();
    if (isStatic(dims))
    {
        return int64Value(ctx, std::vector<int64_t>(dims.d, dims.d + dims.nbDims));
    }
    return Value::tensor(shapeOf(ctx, value.tensor()));
}

Value pick(ImportContext& ctx, Value const& vector, std::vector<int64_t> const& indices)
{
    if (vector.isWeights())
    {
        ShapedWeights const& w = vector.weights();
        return Value::weights(remapWeights(ctx, w, Dims{1, {static_cast<int64_t>(indices.size())}},
            [&](Coords const& c) { return indices[static_cast<size_t>(c[0])]; }));
    }
    ITensor& index = int64Constant(ctx, indices);
    return Value::tensor(*ctx.added(ctx.network().addGather(vector.tensor(), index, 0)).getOutput(0));
}

Value reshapeValue(ImportContext& ctx, Value const& value, std::vector<DimPart> const& parts)
{
    Dims const in = value.shape();
    std::vector<int64_t> known(parts.size(), -1); // the extent, or -1 when unknown or inferred
    int32_t unknown = 0;
    bool placeholders = true; // every unknown extent copies the input extent at its own index
    bool positive = true;     // every known extent is above 0
    for (size_t i = 0; i < parts.size(); ++i)
    {
        DimPart const& part = parts[i];
        int64_t const e = part.from < 0 ? part.extent : in.d[part.from];
        known[i] = e < 0 ? -1 : e * part.mul / part.div;
        unknown += e < 0 ? 1 : 0;
        placeholders = placeholders
            && (e >= 0 || (part.from < 0) || (part.from == static_cast<int32_t>(i) && part.mul == 1 && part.div == 1));
        positive = positive && (e < 0 || known[i] > 0);
    }
    if (value.isWeights())
    {
        Dims shape = toDims(known);
        for (int32_t i = 0; i < shape.nbDims; ++i)
        {
            if (shape.d[i] < 0)
            {
                Dims others = shape;
                others.d[i] = 1;
                int64_t const rest = volume(others);
                require(rest > 0 && value.weights().count % rest == 0, ErrorCode::kINVALID_NODE,
                    "cannot infer the -1 of ", "a reshape of ", value.weights().count, " elements");
                shape.d[i] = value.weights().count / rest;
            }
        }
        require(volume(shape) == value.weights().count, ErrorCode::kINVALID_NODE, "cannot reshape weights of ",
            value.weights().count, " elements to ", volume(shape));
        return Value::weights(withShape(value.weights(), shape));
    }
    ITensor& x = value.tensor();
    auto& shuffle = ctx.added(ctx.network().addShuffle(x));
    if (unknown == 0 || (unknown == 1 && positive))
    {
        shuffle.setZeroIsPlaceholder(false);
        shuffle.setReshapeDimensions(toDims(known));
        return output(shuffle.getOutput(0));
    }
    if (placeholders && positive)
    {
        Dims dims = toDims(known);
        for (size_t i = 0; i < parts.size(); ++i)
        {
            dims.d[i] = known[i] >= 0 ? known[i] : (parts[i].from < 0 ? -1 : 0);
        }
        shuffle.setReshapeDimensions(dims);
        return output(shuffle.getOutput(0));
    }
    // A shape tensor: the input's extents followed by the fixed ones, gathered in order, scaled where asked.
    int32_t const rank = in.nbDims;
    std::vector<int64_t> fixed;
    std::vector<int64_t> order;
    std::vector<int64_t> mul;
    std::vector<int64_t> div;
    bool scaled = false;
    for (size_t i = 0; i < parts.size(); ++i)
    {
        DimPart const& part = parts[i];
        bool const copies = part.from >= 0 && in.d[part.from] < 0;
        if (copies)
        {
            order.push_back(part.from);
        }
        else
        {
            order.push_back(rank + static_cast<int64_t>(fixed.size()));
            fixed.push_back(known[i]);
        }
        mul.push_back(copies ? part.mul : 1);
        div.push_back(copies ? part.div : 1);
        scaled = scaled || (copies && (part.mul != 1 || part.div != 1));
    }
    ITensor* all = &shapeOf(ctx, x);
    if (!fixed.empty())
    {
        std::array<ITensor*, 2> pieces{all, &int64Constant(ctx, fixed)};
        all = ctx.added(ctx.network().addConcatenation(pieces.data(), 2)).getOutput(0);
    }
    ITensor* shape = &pick(ctx, Value::tensor(*all), order).tensor();
    if (scaled)
    {
        shape = &binary(ctx, *shape, int64Constant(ctx, mul), ElementWiseOperation::kPROD);
        shape = &binary(ctx, *shape, int64Constant(ctx, div), ElementWiseOperation::kFLOOR_DIV);
    }
    shuffle.setZeroIsPlaceholder(false);
    shuffle.setInput(1, *shape);
    return output(shuffle.getOutput(0));
}

Value transposeValue(ImportContext& ctx, Value const& value, std::vector<int32_t> const& perm)
{
    if (isIdentity(perm))
    {
        return value;
    }
    if (foldable(value))
    {
        return Value::weights(transposeWeights(ctx, value.weights(), perm));
    }
    auto& shuffle = ctx.added(ctx.network().addShuffle(ctx.tensor(value)));
    nvinfer1::Permutation permutation{};
    for (size_t i = 0; i < perm.size(); ++i)
    {
        permutation.order[i] = perm[i];
    }
    shuffle.setFirstTranspose(permutation);
    return output(shuffle.getOutput(0));
}

nvinfer1::ISliceLayer& addSliceOf(ImportContext& ctx, ITensor& input, Value const& start, Value const& size,
    Value const& stride, std::optional<std::vector<int64_t>> const& axes)
{
    auto& slice = ctx.added(
        ctx.network().addSlice(input, sliceDims(start, "start"), sliceDims(size, "size"), sliceDims(stride, "stride")));
    if (axes)
    {
        slice.setAxes(toDims(*axes));
    }
    int32_t index = 1;
    for (Value const* operand : {&start, &size, &stride})
    {
        if (!operand->isWeights())
        {
            slice.setInput(index, castTo(ctx, operand->tensor(), DataType::kINT64));
        }
        ++index;
    }
    return slice;
}

ITensor& broadcastTo(ImportContext& ctx, ITensor& small, Value const& shape)
{
    int32_t const n = knownLength(shape, "shape");
    Value const none = Value::weights(ctx.int64Weights(std::vector<int64_t>(static_cast<size_t>(n), 0)));
    return *addSliceOf(ctx, small, none, shape, none).getOutput(0);
}

int32_t knownLength(Value const& vector, char const* what)
{
    Dims const dims = vector.shape();
    require(dims.nbDims == 1 && dims.d[0] >= 0 && dims.d[0] <= Dims::MAX_DIMS, ErrorCode::kUNSUPPORTED_NODE_SHAPE,
        "the ", what, " must be a 1-D tensor of known length (at most ", Dims::MAX_DIMS, ")");
    return static_cast<int32_t>(dims.d[0]);
}

} // namespace kiln::onnx_import
