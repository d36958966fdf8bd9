// SPDX-License-Identifier: Apache-2.0
// QuantizeLinear and DequantizeLinear (opsets 10, 13, 19, 21) onto IQuantizeLayer and IDequantizeLayer.
//
// How ONNX's inputs and attributes map onto the layers:
// - The scale (input 1) must be known when the model is parsed (an initializer or a Constant output), as TensorRT
//   requires: FLOAT, FLOAT16 or BFLOAT16, positive. A scalar (or a one-element 1-D scale) is per tensor; a 1-D scale
//   per index of `axis` (opset 13, default 1); with `block_size` (opset 21, > 0) the scale has the input's rank and
//   each scale covers block_size elements along `axis` (the layer's block shape: block_size there, 1 elsewhere).
// - The zero point (input 2) must be known at parse time and zero, as TensorRT requires (only symmetric quantization
//   is supported). Its type gives the quantized type: INT8, FLOAT8E4M3FN (opset 19) or INT4 (opset 21). Without a zero
//   point ONNX quantizes to UINT8; kiln, like TensorRT's parser, quantizes to INT8 then (kiln has no UINT8
//   quantization) unless `output_dtype` (opset 21) names the type.
// - DequantizeLinear's output has the scale's type.
// Refused, with the reason: UINT8, UINT4, UINT16, INT16, INT32 and the other FLOAT8 types (kiln quantizes to INT8,
// FLOAT8E4M3FN and INT4 only; TensorRT refuses UINT8 Q/DQ too); a non-zero zero point; a scale or zero point computed
// at run time; saturate = 0 for FLOAT8 (kiln's FP8 quantization saturates); a block size that does not fit the
// shapes.
#include "core/data_type.h"
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"
#include "onnx/weights.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace kiln::onnx_import
{

namespace
{

//! ONNX TensorProto element types kiln's libonnx may predate (ONNX 1.14 added FLOAT8, 1.16 INT4).
constexpr int64_t kOnnxInt8 = 3;
constexpr int64_t kOnnxFloat8E4M3FN = 17;
constexpr int64_t kOnnxInt4 = 22;

//! Why the layers cannot take type as the quantized type, or nullptr.
char const* codeTypeProblem(DataType type)
{
    if (type == DataType::kINT8 || type == DataType::kFP8 || type == DataType::kINT4)
    {
        return nullptr;
    }
    if (type == DataType::kUINT8)
    {
        return "UINT8 quantization is not supported (kiln, like TensorRT, quantizes to INT8, FLOAT8E4M3FN or INT4)";
    }
    return "kiln quantizes to INT8, FLOAT8E4M3FN or INT4 only";
}

//! The checks that need no input: attribute values and opsets.
void checkQdq(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs)
{
    int64_t const opset = ctx.opset();
    if (opset >= 21 || attrs.has("block_size"))
    {
        int64_t const blockSize = attrs.get<int64_t>("block_size", 0);
        require(blockSize >= 0, ErrorCode::kINVALID_NODE, "block_size is ", blockSize, "; it must be 0 or positive");
    }
    if (node.op_type() == "QuantizeLinear" && attrs.has("output_dtype"))
    {
        int64_t const dtype = attrs.get<int64_t>("output_dtype", 0);
        require(dtype == 0 || dtype == kOnnxInt8 || dtype == kOnnxFloat8E4M3FN || dtype == kOnnxInt4,
            ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "output_dtype is ", onnxTypeName(static_cast<int32_t>(dtype)),
            "; kiln quantizes to INT8, FLOAT8E4M3FN or INT4 only",
            dtype == 2 ? " (UINT8 quantization is not supported, as in TensorRT)" : "");
    }
}

//! Input i (the scale or zero point), which must be known at parse time.
ShapedWeights const& parseTimeInput(Node const& node, size_t i, char const* what)
{
    Value const& value = node.input(i);
    require(value.isWeights(), ErrorCode::kUNSUPPORTED_NODE_INPUT, "input ", i, " (", what,
        ") must be an initializer or a Constant: kiln, like TensorRT, needs quantization ", what, "s at build time");
    return value.weights();
}

//! weights reshaped to 0-D when they hold one value and are at most 1-D (a per-tensor scale or zero point).
ShapedWeights perTensorForm(ShapedWeights weights)
{
    if (weights.shape.nbDims == 1 && weights.count == 1)
    {
        weights.shape = Dims{0, {}};
        weights.name.clear(); // a reshaped view, not the initializer
    }
    return weights;
}

//! The node's quantization parameters: the scale and zero point as the layer takes them, the axis, the block shape.
struct Quantization
{
    ShapedWeights scale;
    std::optional<ShapedWeights> zeroPoint;
    int32_t axis{-1};
    Dims blockShape{-1, {}};
};

//! Reads and checks the scale, zero point, axis and block size of a node whose input 0 has shape dims. codeType is
//! the quantized type (the zero point must have it).
Quantization quantizationOf(ImportContext& ctx, Node const& node, Dims const& dims, DataType codeType)
{
    Quantization q;
    q.scale = perTensorForm(parseTimeInput(node, 1, "scale"));
    require(isFloating(q.scale.type), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the scale is ",
        dataTypeName(q.scale.type), "; it must be FLOAT, FLOAT16 or BFLOAT16");
    for (int64_t i = 0; i < q.scale.count; ++i)
    {
        double const value = q.scale.number(i);
        require(std::isfinite(value) && value > 0.0, ErrorCode::kINVALID_NODE, "the scale holds ", value, " at index ",
            i, "; scales must be positive and finite");
    }
    if (node.has(2))
    {
        ShapedWeights const zeroPoint = perTensorForm(parseTimeInput(node, 2, "zero point"));
        require(zeroPoint.type == codeType, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the zero point is ",
            dataTypeName(zeroPoint.type), " but the quantized type is ", dataTypeName(codeType));
        for (int64_t i = 0; i < zeroPoint.count; ++i)
        {
            require(zeroPoint.number(i) == 0.0, ErrorCode::kUNSUPPORTED_NODE, "the zero point holds ",
                zeroPoint.number(i), " at index ", i,
                "; kiln, like TensorRT, supports only symmetric quantization (every zero point 0)");
        }
        require(zeroPoint.shape.nbDims == q.scale.shape.nbDims
                && std::equal(zeroPoint.shape.d, zeroPoint.shape.d + zeroPoint.shape.nbDims, q.scale.shape.d),
            ErrorCode::kINVALID_NODE, "the zero point ", shapeText(zeroPoint.shape), " must have the scale's shape ",
            shapeText(q.scale.shape));
        q.zeroPoint = zeroPoint;
    }
    int32_t const rank = dims.nbDims;
    int64_t const blockSize = ctx.opset() >= 21 ? node.attrs.get<int64_t>("block_size", 0) : 0;
    int32_t const scaleRank = q.scale.shape.nbDims;
    if (blockSize > 0)
    {
        require(scaleRank == rank, ErrorCode::kINVALID_NODE, "block_size is ", blockSize, " but the scale ",
            shapeText(q.scale.shape), " does not have the input's rank (the input is ", shapeText(dims), ")");
        q.axis = normalizeAxis(node.attrs.get<int64_t>("axis", 1), rank);
        q.blockShape = Dims{rank, {}};
        for (int32_t i = 0; i < rank; ++i)
        {
            q.blockShape.d[i] = i == q.axis ? blockSize : 1;
        }
        return q;
    }
    if (scaleRank == 1)
    {
        require(ctx.opset() >= 13 || q.scale.count == 1, ErrorCode::kINVALID_NODE,
            "a 1-D scale of several values (per-axis quantization) needs opset 13");
        q.axis = normalizeAxis(node.attrs.get<int64_t>("axis", 1), rank);
        require(dims.d[q.axis] < 0 || dims.d[q.axis] == q.scale.shape.d[0], ErrorCode::kINVALID_NODE, "the scale has ",
            q.scale.shape.d[0], " values but the input ", shapeText(dims), " has ", dims.d[q.axis], " along axis ",
            q.axis);
        return q;
    }
    require(scaleRank == 0, ErrorCode::kINVALID_NODE, "the scale ", shapeText(q.scale.shape),
        " must be a scalar or 1-D (or of the input's rank with block_size)");
    return q;
}

//! Sets the layer's axis, block shape and zero point.
template <typename Layer>
void configure(ImportContext& ctx, Layer& layer, Quantization const& q)
{
    layer.setAxis(q.axis);
    if (q.blockShape.nbDims >= 0)
    {
        require(layer.setBlockShape(q.blockShape), ErrorCode::kINVALID_NODE, "the layer refused the block shape ",
            shapeText(q.blockShape), "; its error is in the log");
    }
    if (q.zeroPoint)
    {
        layer.setInput(2, ctx.tensor(Value::weights(*q.zeroPoint)));
    }
}

std::vector<Value> importQuantizeLinear(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    require(isFloating(x.getType()), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "QuantizeLinear's input is ",
        dataTypeName(x.getType()), "; kiln quantizes FLOAT, FLOAT16 and BFLOAT16 inputs");

    // The quantized type: output_dtype, else the zero point's type, else INT8 (see the file comment).
    DataType codeType = DataType::kINT8;
    if (int64_t const dtype = ctx.opset() >= 21 ? node.attrs.get<int64_t>("output_dtype", 0) : 0; dtype != 0)
    {
        codeType = *dataTypeFromOnnx(static_cast<int32_t>(dtype)); // checkQdq took only INT8, FLOAT8E4M3FN and INT4
    }
    else if (node.has(2))
    {
        codeType = node.input(2).type();
    }
    if (char const* problem = codeTypeProblem(codeType))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the quantized type is ", dataTypeName(codeType), ": ", problem);
    }
    if (codeType == DataType::kFP8 && ctx.opset() >= 19)
    {
        require(node.attrs.get<int64_t>("saturate", 1) != 0, ErrorCode::kUNSUPPORTED_NODE_ATTR,
            "saturate is 0; kiln's FLOAT8 quantization always saturates (as TensorRT's does)");
    }
    Quantization const q = quantizationOf(ctx, node, x.getDimensions(), codeType);
    auto& layer = ctx.added(ctx.network().addQuantize(x, ctx.tensor(Value::weights(q.scale)), codeType));
    configure(ctx, layer, q);
    return {output(layer.getOutput(0))};
}

std::vector<Value> importDequantizeLinear(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    DataType const codeType = x.getType();
    if (char const* problem = codeTypeProblem(codeType))
    {
        fail(ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "DequantizeLinear's input is ", dataTypeName(codeType), ": ",
            problem);
    }
    Quantization const q = quantizationOf(ctx, node, x.getDimensions(), codeType);
    auto& layer = ctx.added(ctx.network().addDequantize(x, ctx.tensor(Value::weights(q.scale)), q.scale.type));
    configure(ctx, layer, q);
    return {output(layer.getOutput(0))};
}

} // namespace

void registerQuantizeOps(OpRegistry& registry)
{
    registry.add("QuantizeLinear", importQuantizeLinear, checkQdq);
    registry.add("DequantizeLinear", importDequantizeLinear, checkQdq);
}

} // namespace kiln::onnx_import
