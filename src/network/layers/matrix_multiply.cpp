// SPDX-License-Identifier: Apache-2.0
// Matrix multiply: op0(input 0) x op1(input 1), each a (batch of) matrix, transposed matrix or vector; batch
// extents of 1 broadcast.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>

namespace kiln
{

using nvinfer1::MatrixOperation;

namespace
{

//! The rank op needs at least.
constexpr int32_t minimumRank(MatrixOperation op) noexcept
{
    return op == MatrixOperation::kVECTOR ? 1 : 2;
}

} // namespace

template <>
class KindImpl<LayerType::kMATRIX_MULTIPLY> final : public nvinfer1::apiv::VMatrixMultiplyLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(int32_t index, MatrixOperation op) noexcept override
    {
        if (index < 0 || index > 1)
        {
            mLayer.fail("setOperation", "input index ", index, " is not 0 or 1");
            return;
        }
        if (mLayer.checkEnum("setOperation", "matrix operation", op))
        {
            edit().ops[index] = op;
        }
    }
    MatrixOperation getOperation(int32_t index) const noexcept override
    {
        if (index < 0 || index > 1)
        {
            mLayer.fail("getOperation", "input index ", index, " is not 0 or 1");
            return MatrixOperation::kNONE;
        }
        return p().ops[index];
    }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const a = inputDims(0);
        Dims const b = inputDims(1);
        MatrixOperation const opA = p().ops[0];
        MatrixOperation const opB = p().ops[1];
        if (a.nbDims < minimumRank(opA) || b.nbDims < minimumRank(opB))
        {
            return kUnsetDims;
        }
        int32_t const batchA = a.nbDims - minimumRank(opA);
        int32_t const batchB = b.nbDims - minimumRank(opB);
        int32_t const batch = std::max(batchA, batchB);
        Dims result = filledDims(batch, -1);
        for (int32_t i = 0; i < batch; ++i)
        {
            int64_t const x = i - (batch - batchA) >= 0 ? a.d[i - (batch - batchA)] : 1;
            int64_t const y = i - (batch - batchB) >= 0 ? b.d[i - (batch - batchB)] : 1;
            result.d[i] = x == 1 ? y : (y == 1 || y == x ? x : -1);
        }
        auto const push = [&](int64_t extent) {
            if (result.nbDims < Dims::MAX_DIMS)
            {
                result.d[result.nbDims++] = extent;
            }
        };
        if (opA != MatrixOperation::kVECTOR)
        {
            push(opA == MatrixOperation::kNONE ? a.d[a.nbDims - 2] : a.d[a.nbDims - 1]);
        }
        if (opB != MatrixOperation::kVECTOR)
        {
            push(opB == MatrixOperation::kNONE ? b.d[b.nbDims - 1] : b.d[b.nbDims - 2]);
        }
        return result;
    }

private:
    MatrixMultiplyParams const& p() const noexcept { return mLayer.paramsAs<MatrixMultiplyParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    MatrixMultiplyParams& edit() noexcept { return mLayer.editParams<MatrixMultiplyParams>(); }
};

nvinfer1::IMatrixMultiplyLayer* NetworkApi::addMatrixMultiply(
    nvinfer1::ITensor& input0, MatrixOperation op0, nvinfer1::ITensor& input1, MatrixOperation op1) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addMatrixMultiply";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IMatrixMultiplyLayer*>(nullptr), [&]() -> nvinfer1::IMatrixMultiplyLayer* {
            Tensor* first = mNetwork.own(&input0, kWhere, "first input");
            Tensor* second = first != nullptr ? mNetwork.own(&input1, kWhere, "second input") : nullptr;
            if (second == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(op0) || !isValidEnum(op1))
            {
                return mNetwork.fail(
                    kWhere, "matrix operations ", op0, " and ", op1, " are not both valid MatrixOperations");
            }
            for (auto const& [tensor, op] : {std::pair{first, op0}, std::pair{second, op1}})
            {
                int32_t const rank = tensor->dims().nbDims;
                if (rank >= 0 && rank < minimumRank(op))
                {
                    return mNetwork.fail(kWhere, "input ", quotedText(tensor->name()), " has shape ", tensor->dims(),
                        "; operation ", op, " needs rank ", minimumRank(op), " or more");
                }
            }
            MatrixMultiplyParams params;
            params.ops[0] = op0;
            params.ops[1] = op1;
            return &mNetwork.addLayer<LayerType::kMATRIX_MULTIPLY>({first, second}, params, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(MatrixMultiplyParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& a = context.input(0);
    SymbolicTensor const& b = context.input(1);
    MatrixOperation const opA = params.ops[0];
    MatrixOperation const opB = params.ops[1];
    for (int32_t i = 0; i < 2; ++i)
    {
        SymbolicTensor const& input = context.input(i);
        int32_t const needed = minimumRank(params.ops[i]);
        if (input.rank() < needed)
        {
            return context.error("input ", i, " has ", input.rank(), " dimensions; ",
                params.ops[i] == MatrixOperation::kVECTOR ? "a vector needs at least 1" : "a matrix needs at least 2");
        }
    }
    int32_t const batchA = a.rank() - minimumRank(opA);
    int32_t const batchB = b.rank() - minimumRank(opB);
    int32_t const batch = std::max(batchA, batchB);
    DimExpr const* one = context.constant(1);
    SymbolicDims out;
    for (int32_t i = 0; i < batch; ++i)
    {
        int32_t const ia = i - (batch - batchA);
        int32_t const ib = i - (batch - batchB);
        DimExpr const* x = ia >= 0 ? (*a.shape)[static_cast<std::size_t>(ia)] : one;
        DimExpr const* y = ib >= 0 ? (*b.shape)[static_cast<std::size_t>(ib)] : one;
        out.push_back(context.broadcast(x, y, "batch dimension " + std::to_string(i), "input 0", "input 1"));
    }
    auto const at = [](SymbolicTensor const& t, int32_t fromEnd) { return (*t.shape)[t.shape->size() - fromEnd]; };
    // op0: kNONE [M, K], kTRANSPOSE [K, M], kVECTOR [K]; op1: kNONE [K, N], kTRANSPOSE [N, K], kVECTOR [K].
    DimExpr const* kA = opA == MatrixOperation::kNONE ? at(a, 1)
        : opA == MatrixOperation::kTRANSPOSE          ? at(a, 2)
                                                      : at(a, 1);
    DimExpr const* kB = opB == MatrixOperation::kNONE ? at(b, 2) : at(b, 1);
    context.requireEqual(kA, kB,
        "the inner extents differ: " + context.str(kA) + " in input 0 and " + context.str(kB)
            + " in input 1; they must be equal");
    if (opA != MatrixOperation::kVECTOR)
    {
        out.push_back(opA == MatrixOperation::kNONE ? at(a, 2) : at(a, 1));
    }
    if (opB != MatrixOperation::kVECTOR)
    {
        out.push_back(opB == MatrixOperation::kNONE ? at(b, 1) : at(b, 2));
    }
    return context.finish({SymbolicTensor{std::move(out), std::nullopt, {}}});
}

} // namespace kiln
