// SPDX-License-Identifier: Apache-2.0
// MatMul (numpy rules: 1-D operands are vectors, batch axes broadcast) and Gemm (alpha * A' B' + beta * C) onto
// IMatrixMultiplyLayer.
#include "onnx/importers/helpers.h"
#include "onnx/importers/importers.h"

#include "core/data_type.h"

#include <tuple>

namespace kiln::onnx_import
{

namespace
{

using nvinfer1::ElementWiseOperation;
using nvinfer1::MatrixOperation;

//! Fails unless both operands have one floating-point type (kiln multiplies no integer matrices).
void checkTypes(ITensor const& a, ITensor const& b)
{
    require(isFloatType(a.getType()), ErrorCode::kUNSUPPORTED_NODE_DATATYPE, "input A is ", dataTypeName(a.getType()),
        "; kiln multiplies floating-point matrices only");
    require(a.getType() == b.getType(), ErrorCode::kINVALID_NODE, "inputs A (", dataTypeName(a.getType()), ") and B (",
        dataTypeName(b.getType()), ") have different types");
}

ITensor& multiply(ImportContext& ctx, ITensor& a, MatrixOperation opA, ITensor& b, MatrixOperation opB)
{
    return *ctx.added(ctx.network().addMatrixMultiply(a, opA, b, opB)).getOutput(0);
}

std::vector<Value> importMatMul(ImportContext& ctx, Node& node)
{
    ITensor* a = &inputTensor(ctx, node, 0);
    ITensor* b = &inputTensor(ctx, node, 1);
    checkTypes(*a, *b);
    int32_t const rankA = a->getDimensions().nbDims;
    int32_t const rankB = b->getDimensions().nbDims;
    require(rankA >= 1 && rankB >= 1, ErrorCode::kINVALID_NODE, "MatMul takes no scalars (input ranks ", rankA, " and ",
        rankB, ")");
    MatrixOperation const opA = rankA == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    MatrixOperation const opB = rankB == 1 ? MatrixOperation::kVECTOR : MatrixOperation::kNONE;
    // The layer needs as many batch axes on both sides: a vector gets those of the other matrix (as extents of 1).
    if (rankA == 1 && rankB > 1)
    {
        a = &expandRank(ctx, *a, rankB - 1);
    }
    else if (rankB == 1 && rankA > 1)
    {
        b = &expandRank(ctx, *b, rankA - 1);
    }
    else
    {
        std::tie(a, b) = broadcastPair(ctx, *a, *b);
    }
    return {output(&multiply(ctx, *a, opA, *b, opB))};
}

//! x times a scalar (no layer for 1).
ITensor& scaled(ImportContext& ctx, ITensor& x, double factor)
{
    if (factor == 1.0)
    {
        return x;
    }
    ITensor& constant = scalarConstant(ctx, factor, x.getType(), x.getDimensions().nbDims);
    return *ctx.added(ctx.network().addElementWise(x, constant, ElementWiseOperation::kPROD)).getOutput(0);
}

//! beta * C, folded at parse time when C is weights.
ITensor& scaledBias(ImportContext& ctx, Value const& c, double beta)
{
    if (!c.isWeights() || beta == 1.0)
    {
        return scaled(ctx, ctx.tensor(c), beta);
    }
    ShapedWeights const& w = c.weights();
    std::vector<double> values(static_cast<size_t>(w.count));
    for (int64_t i = 0; i < w.count; ++i)
    {
        values[static_cast<size_t>(i)] = beta * w.number(i);
    }
    ShapedWeights folded = ctx.weightsFrom(w.type, Dims{1, {w.count}}, values);
    folded.shape = w.shape;
    return ctx.tensor(Value::weights(folded));
}

std::vector<Value> importGemm(ImportContext& ctx, Node& node)
{
    ITensor& a = inputTensor(ctx, node, 0);
    ITensor& b = inputTensor(ctx, node, 1);
    checkTypes(a, b);
    require(a.getDimensions().nbDims == 2 && b.getDimensions().nbDims == 2, ErrorCode::kINVALID_NODE,
        "inputs A and B must be 2-D (they have ", a.getDimensions().nbDims, " and ", b.getDimensions().nbDims,
        " dimensions)");
    Attributes const& attrs = node.attrs;
    auto const op = [&](char const* name) {
        return attrs.get<int64_t>(name, 0) != 0 ? MatrixOperation::kTRANSPOSE : MatrixOperation::kNONE;
    };
    ITensor* y = &scaled(ctx, multiply(ctx, a, op("transA"), b, op("transB")), attrs.get<float>("alpha", 1.0F));
    auto const beta = static_cast<double>(attrs.get<float>("beta", 1.0F));
    if (node.has(2) && beta != 0.0)
    {
        Value const& c = node.input(2);
        require(c.rank() <= 2, ErrorCode::kINVALID_NODE, "input C has ", c.rank(),
            " dimensions; it must broadcast to the 2-D product");
        ITensor& bias = expandRank(ctx, scaledBias(ctx, c, beta), 2);
        require(bias.getType() == y->getType(), ErrorCode::kINVALID_NODE, "input C has type ",
            dataTypeName(bias.getType()), " but A and B have ", dataTypeName(y->getType()));
        y = ctx.added(ctx.network().addElementWise(*y, bias, ElementWiseOperation::kSUM)).getOutput(0);
    }
    return {output(y)};
}

} // namespace

void registerMatrixMultiplyOps(OpRegistry& registry)
{
    registry.add("MatMul", importMatMul);
    registry.add("Gemm", importGemm);
}

} // namespace kiln::onnx_import
