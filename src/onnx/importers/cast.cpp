// SPDX-License-Identifier: Apache-2.0
// Cast and CastLike onto ICastLayer; small weights are converted at parse time, and a cast to the input's own type
// is no layer at all.
#include "onnx/importers/importers.h"
#include "onnx/importers/shape_helpers.h"
#include "onnx/weights.h"

namespace kiln::onnx_import
{

namespace
{

//! Whether weights of type can be read and made at parse time.
bool parseTimeType(DataType type)
{
    switch (type)
    {
    case DataType::kFLOAT:
    case DataType::kHALF:
    case DataType::kBF16:
    case DataType::kINT8:
    case DataType::kUINT8:
    case DataType::kBOOL:
    case DataType::kINT32:
    case DataType::kINT64: return true;
    default: return false;
    }
}

Value castValue(ImportContext& ctx, Value const& input, DataType type)
{
    if (input.type() == type)
    {
        return input;
    }
    if (foldable(input) && parseTimeType(input.type()) && parseTimeType(type))
    {
        return Value::weights(castWeights(ctx, input.weights(), type));
    }
    return output(&castTo(ctx, ctx.tensor(input), type));
}

//! The kiln type of the 'to' attribute.
DataType targetType(Attributes const& attrs)
{
    auto const to = static_cast<int32_t>(attrs.required<int64_t>("to"));
    std::optional<DataType> const type = dataTypeFromOnnx(to);
    require(type.has_value(), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the target type 'to' is ", onnxTypeName(to),
        ", which kiln does not support");
    return *type;
}

void checkCast(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    targetType(attrs);
}

std::vector<Value> importCast(ImportContext& ctx, Node& node)
{
    DataType const type = targetType(node.attrs);
    auto const to = static_cast<int32_t>(node.attrs.required<int64_t>("to"));
    if (to == ::onnx::TensorProto::DOUBLE)
    {
        ctx.warn("Cast to DOUBLE computes FLOAT instead");
    }
    return {castValue(ctx, node.input(0), type)};
}

std::vector<Value> importCastLike(ImportContext& ctx, Node& node)
{
    return {castValue(ctx, node.input(0), node.input(1).type())};
}

} // namespace

void registerCastOps(OpRegistry& registry)
{
    registry.add("Cast", importCast, checkCast);
    registry.add("CastLike", importCastLike);
}

} // namespace kiln::onnx_import
