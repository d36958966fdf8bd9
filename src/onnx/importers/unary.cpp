// SPDX-License-Identifier: Apache-2.0
// One-input math onto IUnaryLayer: Abs, Neg, Sqrt, Exp, Log, Reciprocal, Floor, Ceil, Round, Sign, Erf, the
// trigonometric and hyperbolic ops, Not, IsInf (detect_positive / detect_negative) and IsNaN.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include "core/data_type.h"

namespace kiln::onnx_import
{

namespace
{

using Op = nvinfer1::UnaryOperation;
using nvinfer1::ElementWiseOperation;

//! The type integer math runs in: INT32 and INT64 as they are, int8 as INT32 (kiln's kINT8 is a scaled type that
//! rounds and saturates), uint8 as FLOAT (it casts only to and from floating types). Other types fail.
DataType integerComputeType(Node const& node)
{
    DataType const type = node.input(0).type();
    bool const known
        = type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kINT8 || type == DataType::kUINT8;
    require(known, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ", dataTypeShortName(type), "; ",
        node.opType(), " takes floating-point, int8, uint8, int32 or int64 inputs");
    return type == DataType::kUINT8 ? DataType::kFLOAT : (type == DataType::kINT8 ? DataType::kINT32 : type);
}

//! Ops ONNX defines for floating-point types only.
template <Op op>
std::vector<Value> importFloatUnary(ImportContext& ctx, Node& node)
{
    return {output(&unary(ctx, floatingInput(ctx, node), op))};
}

//! Abs, Sign, Erf: floating types directly; integers in their compute type, cast back.
template <Op op>
std::vector<Value> importNumericUnary(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    if (isFloating(x.getType()))
    {
        return {output(&unary(ctx, x, op))};
    }
    DataType compute = integerComputeType(node);
    if (op == Op::kABS && x.getType() == DataType::kUINT8)
    {
        return {output(ctx.added(ctx.network().addIdentity(x)).getOutput(0))};
    }
    // kERF takes floating types only.
    compute = op == Op::kERF ? DataType::kFLOAT : compute;
    return {output(&castTo(ctx, unary(ctx, castTo(ctx, x, compute), op), x.getType()))};
}

//! Neg: kNEG for floating types, 0 - x for integers (kNEG takes no integers).
std::vector<Value> importNeg(ImportContext& ctx, Node& node)
{
    ITensor& x = inputTensor(ctx, node, 0);
    if (isFloating(x.getType()))
    {
        return {output(&unary(ctx, x, Op::kNEG))};
    }
    require(x.getType() != DataType::kUINT8, ErrorCode::kUNSUPPORTED_NODE_DATATYPE,
        "the input has type uint8; Neg takes floating-point, int8, int32 or int64 inputs");
    DataType const compute = integerComputeType(node);
    ITensor& zero = scalarConstant(ctx, 0.0, compute, x.getDimensions().nbDims);
    ITensor& negated = binary(ctx, zero, castTo(ctx, x, compute), ElementWiseOperation::kSUB);
    return {output(&castTo(ctx, negated, x.getType()))};
}

std::vector<Value> importNot(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    require(type == DataType::kBOOL, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "the input has type ",
        dataTypeShortName(type), "; Not takes bool");
    return {output(&unary(ctx, inputTensor(ctx, node, 0), Op::kNOT))};
}

//! IsInf: kISINF when both infinities count; x == +inf or x == -inf for one; false everywhere for none.
std::vector<Value> importIsInf(ImportContext& ctx, Node& node)
{
    ITensor& x = floatingInput(ctx, node);
    bool const positive = node.attrs.get<int64_t>("detect_positive", 1) != 0;
    bool const negative = node.attrs.get<int64_t>("detect_negative", 1) != 0;
    ITensor& isInf = unary(ctx, x, Op::kISINF);
    if (positive == negative)
    {
        // Neither: isinf xor isinf is false everywhere, in x's shape.
        return {output(positive ? &isInf : &binary(ctx, isInf, isInf, ElementWiseOperation::kXOR))};
    }
    ITensor& zero = scalarConstant(ctx, 0.0, x.getType(), x.getDimensions().nbDims);
    ElementWiseOperation const side = positive ? ElementWiseOperation::kGREATER : ElementWiseOperation::kLESS;
    return {output(&binary(ctx, isInf, binary(ctx, x, zero, side), ElementWiseOperation::kAND))};
}

} // namespace

void registerUnaryOps(OpRegistry& registry)
{
    registry.add("Abs", importNumericUnary<Op::kABS>);
    registry.add("Neg", importNeg);
    registry.add("Sqrt", importFloatUnary<Op::kSQRT>);
    registry.add("Exp", importFloatUnary<Op::kEXP>);
    registry.add("Log", importFloatUnary<Op::kLOG>);
    registry.add("Reciprocal", importFloatUnary<Op::kRECIP>);
    registry.add("Floor", importFloatUnary<Op::kFLOOR>);
    registry.add("Ceil", importFloatUnary<Op::kCEIL>);
    registry.add("Round", importFloatUnary<Op::kROUND>);
    registry.add("Sign", importNumericUnary<Op::kSIGN>);
    registry.add("Erf", importNumericUnary<Op::kERF>);
    registry.add("Sin", importFloatUnary<Op::kSIN>);
    registry.add("Cos", importFloatUnary<Op::kCOS>);
    registry.add("Tan", importFloatUnary<Op::kTAN>);
    registry.add("Asin", importFloatUnary<Op::kASIN>);
    registry.add("Acos", importFloatUnary<Op::kACOS>);
    registry.add("Atan", importFloatUnary<Op::kATAN>);
    registry.add("Sinh", importFloatUnary<Op::kSINH>);
    registry.add("Cosh", importFloatUnary<Op::kCOSH>);
    registry.add("Asinh", importFloatUnary<Op::kASINH>);
    registry.add("Acosh", importFloatUnary<Op::kACOSH>);
    registry.add("Atanh", importFloatUnary<Op::kATANH>);
    registry.add("Not", importNot);
    registry.add("IsInf", importIsInf);
    registry.add("IsNaN", importFloatUnary<Op::kISNAN>);
}

} // namespace kiln::onnx_import
