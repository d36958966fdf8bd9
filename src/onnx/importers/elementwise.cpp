// SPDX-License-Identifier: Apache-2.0
// Element-wise ops with numpy broadcasting onto IElementWiseLayer (and ISelectLayer for Where): arithmetic (Add, Sub,
// Mul, Div, Pow, Mod), variadic Max, Min, Sum, Mean, comparisons, And, Or, Xor. BitShift stays unsupported.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include "core/data_type.h"

#include <algorithm>

namespace kiln::onnx_import
{

namespace
{

using Op = nvinfer1::ElementWiseOperation;
using nvinfer1::UnaryOperation;

//! The type kiln computes ONNX arithmetic of type in. Its element-wise kernels take floating types, INT32 and INT64;
//! their kINT8 is a scaled type (it rounds and saturates), so int8 runs as INT32; uint8 casts only to and from
//! floating types, so it runs as FLOAT. Other types (bool) fail, naming the input.
DataType arithmeticType(Node const& node, size_t input)
{
    DataType const type = node.input(input).type();
    bool const known = isFloating(type) || type == DataType::kINT32 || type == DataType::kINT64
        || type == DataType::kINT8 || type == DataType::kUINT8;
    require(known, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input ", input, " has type ", dataTypeShortName(type), "; ",
        node.opType(), " takes floating-point, int8, uint8, int32 or int64 inputs");
    if (type == DataType::kINT8)
    {
        return DataType::kINT32;
    }
    return type == DataType::kUINT8 ? DataType::kFLOAT : type;
}

//! The type comparisons run in: the arithmetic one, with bool as INT32 (Equal takes bool).
DataType comparisonType(Node const& node, size_t input)
{
    return node.input(input).type() == DataType::kBOOL ? DataType::kINT32 : arithmeticType(node, input);
}

//! Fails unless every input of node has the type of input 0 (ONNX's T).
void requireOneType(Node const& node)
{
    DataType const type = node.input(0).type();
    for (size_t i = 1; i < node.inputCount(); ++i)
    {
        require(node.input(i).type() == type, ErrorCode::kINVALID_NODE, "input ", i, " has type ",
            dataTypeShortName(node.input(i).type()), " but input 0 has type ", dataTypeShortName(type), "; ",
            node.opType(), " takes inputs of one type");
    }
}

//! The inputs of node converted to compute, all of one type.
std::vector<ITensor*> operands(ImportContext& ctx, Node const& node, DataType compute)
{
    requireOneType(node);
    std::vector<ITensor*> tensors;
    for (size_t i = 0; i < node.inputCount(); ++i)
    {
        tensors.push_back(&castTo(ctx, inputTensor(ctx, node, i), compute));
    }
    return tensors;
}

//! Add, Sub, Mul, Div: computed in the arithmetic type, cast back to the inputs' type.
template <Op op>
std::vector<Value> importArithmetic(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    std::vector<ITensor*> in = operands(ctx, node, arithmeticType(node, 0));
    require(in.size() == 2, ErrorCode::kINVALID_NODE, node.opType(), " takes 2 inputs, not ", in.size());
    return {output(&castTo(ctx, binary(ctx, *in[0], *in[1], op), type))};
}

//! Max, Min, Sum: op folded over 1 to N inputs.
template <Op op>
std::vector<Value> importVariadic(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    DataType const compute = arithmeticType(node, 0);
    if (node.inputCount() == 1)
    {
        // An identity layer, so that the output is a tensor of its own even when the input is a graph input.
        return {output(ctx.added(ctx.network().addIdentity(inputTensor(ctx, node, 0))).getOutput(0))};
    }
    std::vector<ITensor*> in = operands(ctx, node, compute);
    ITensor* result = in[0];
    for (size_t i = 1; i < in.size(); ++i)
    {
        result = &binary(ctx, *result, *in[i], op);
    }
    return {output(&castTo(ctx, *result, type))};
}

//! Mean: the sum of 1 to N floating-point inputs over N.
std::vector<Value> importMean(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    require(isFloating(type), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input 0 has type ", dataTypeShortName(type),
        "; Mean takes floating-point inputs");
    std::vector<Value> sum = importVariadic<Op::kSUM>(ctx, node);
    if (node.inputCount() == 1)
    {
        return sum;
    }
    ITensor& total = ctx.tensor(sum[0]);
    ITensor& count = scalarConstant(ctx, static_cast<double>(node.inputCount()), type, total.getDimensions().nbDims);
    return {output(&binary(ctx, total, count, Op::kDIV))};
}

//! Pow: the result has the base's type. A floating exponent with an integer base runs in FLOAT.
std::vector<Value> importPow(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    DataType const base = arithmeticType(node, 0);
    DataType const exponent = arithmeticType(node, 1);
    DataType const compute = !isFloating(base) && isFloating(exponent) ? DataType::kFLOAT : base;
    ITensor& x = castTo(ctx, inputTensor(ctx, node, 0), compute);
    ITensor& y = castTo(ctx, inputTensor(ctx, node, 1), compute);
    return {output(&castTo(ctx, binary(ctx, x, y, Op::kPOW), type))};
}

void checkMod(ImportContext&, ::onnx::NodeProto const&, Attributes const& attrs)
{
    int64_t const fmod = attrs.get<int64_t>("fmod", 0);
    require(fmod == 0 || fmod == 1, ErrorCode::kINVALID_NODE, "attribute fmod is ", fmod, "; it must be 0 or 1");
}

//! a / b rounded toward zero, for floating a and b: sign(q) * floor(|q|).
ITensor& truncatedQuotient(ImportContext& ctx, ITensor& a, ITensor& b)
{
    ITensor& q = binary(ctx, a, b, Op::kDIV);
    ITensor& whole = unary(ctx, unary(ctx, q, UnaryOperation::kABS), UnaryOperation::kFLOOR);
    return binary(ctx, unary(ctx, q, UnaryOperation::kSIGN), whole, Op::kPROD);
}

//! Mod: a - b * q, with q = a / b rounded toward zero (fmod 1, C's fmod) or down (fmod 0, the divisor's sign).
//! Half and bfloat16 run in FLOAT, so that remainders stay exact.
std::vector<Value> importMod(ImportContext& ctx, Node& node)
{
    DataType const type = node.input(0).type();
    DataType compute = arithmeticType(node, 0);
    compute = isFloating(compute) ? DataType::kFLOAT : compute;
    std::vector<ITensor*> in = operands(ctx, node, compute);
    require(in.size() == 2, ErrorCode::kINVALID_NODE, "Mod takes 2 inputs, not ", in.size());
    auto [a, b] = broadcastPair(ctx, *in[0], *in[1]);
    bool const truncate = node.attrs.get<int64_t>("fmod", 0) == 1;
    ITensor* q = nullptr;
    if (!truncate)
    {
        q = &binary(ctx, *a, *b, Op::kFLOOR_DIV);
    }
    else
    {
        // Integer kDIV truncates already.
        q = isFloating(compute) ? &truncatedQuotient(ctx, *a, *b) : &binary(ctx, *a, *b, Op::kDIV);
    }
    ITensor& r = binary(ctx, *a, binary(ctx, *b, *q, Op::kPROD), Op::kSUB);
    return {output(&castTo(ctx, r, type))};
}

//! Equal, Greater, Less, and with orEqual GreaterOrEqual, LessOrEqual (op or kEQUAL, right for NaN too).
template <Op op, bool orEqual>
std::vector<Value> importComparison(ImportContext& ctx, Node& node)
{
    std::vector<ITensor*> in = operands(ctx, node, comparisonType(node, 0));
    require(in.size() == 2, ErrorCode::kINVALID_NODE, node.opType(), " takes 2 inputs, not ", in.size());
    auto [a, b] = broadcastPair(ctx, *in[0], *in[1]);
    ITensor* result = &binary(ctx, *a, *b, op);
    if (orEqual)
    {
        result = &binary(ctx, *result, binary(ctx, *a, *b, Op::kEQUAL), Op::kOR);
    }
    return {output(result)};
}

void requireBool(Node const& node, size_t input, char const* what)
{
    DataType const type = node.input(input).type();
    require(type == DataType::kBOOL, ErrorCode::kUNSUPPORTED_NODE_DATATYPE, what, " has type ", dataTypeShortName(type),
        "; ", node.opType(), " takes bool");
}

//! And, Or, Xor on bool inputs.
template <Op op>
std::vector<Value> importLogical(ImportContext& ctx, Node& node)
{
    requireBool(node, 0, "input 0");
    requireBool(node, 1, "input 1");
    return {output(&binary(ctx, inputTensor(ctx, node, 0), inputTensor(ctx, node, 1), op))};
}

//! Where: condition ? X : Y, the three broadcast together.
std::vector<Value> importWhere(ImportContext& ctx, Node& node)
{
    requireBool(node, 0, "the condition (input 0)");
    require(node.input(1).type() == node.input(2).type(), ErrorCode::kINVALID_NODE, "X has type ",
        dataTypeShortName(node.input(1).type()), " and Y ", dataTypeShortName(node.input(2).type()),
        "; Where takes X and Y of one type");
    int32_t const rank = std::max({node.input(0).rank(), node.input(1).rank(), node.input(2).rank()});
    ITensor& condition = expandRank(ctx, inputTensor(ctx, node, 0), rank);
    ITensor& x = expandRank(ctx, inputTensor(ctx, node, 1), rank);
    ITensor& y = expandRank(ctx, inputTensor(ctx, node, 2), rank);
    return {output(ctx.added(ctx.network().addSelect(condition, x, y)).getOutput(0))};
}

} // namespace

void registerElementwiseOps(OpRegistry& registry)
{
    registry.add("Add", importArithmetic<Op::kSUM>);
    registry.add("Sub", importArithmetic<Op::kSUB>);
    registry.add("Mul", importArithmetic<Op::kPROD>);
    registry.add("Div", importArithmetic<Op::kDIV>);
    registry.add("Pow", importPow);
    registry.add("Mod", importMod, checkMod);
    registry.add("Max", importVariadic<Op::kMAX>);
    registry.add("Min", importVariadic<Op::kMIN>);
    registry.add("Sum", importVariadic<Op::kSUM>);
    registry.add("Mean", importMean);
    registry.add("Equal", importComparison<Op::kEQUAL, false>);
    registry.add("Greater", importComparison<Op::kGREATER, false>);
    registry.add("GreaterOrEqual", importComparison<Op::kGREATER, true>);
    registry.add("Less", importComparison<Op::kLESS, false>);
    registry.add("LessOrEqual", importComparison<Op::kLESS, true>);
    registry.add("And", importLogical<Op::kAND>);
    registry.add("Or", importLogical<Op::kOR>);
    registry.add("Xor", importLogical<Op::kXOR>);
    registry.add("Where", importWhere);
}

} // namespace kiln::onnx_import
