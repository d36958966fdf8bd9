// SPDX-License-Identifier: Apache-2.0
// Matrix multiply: op0(input 0) x op1(input 1), each a (batch of) matrix, transposed matrix or vector; batch
// extents of 1 broadcast.
#include "network/checks.h"
#include "network/network.h"

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
            p().ops[index] = op;
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
    MatrixMultiplyParams& p() const noexcept { return mLayer.paramsAs<MatrixMultiplyParams>(); }
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

} // namespace kiln
