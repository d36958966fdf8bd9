// SPDX-License-Identifier: Apache-2.0
// Reduction over the axes of a bit mask, keeping reduced axes as extents of 1 or dropping them.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

using nvinfer1::ReduceOperation;

namespace
{

//! Why op cannot reduce, or nullptr.
char const* reduceOperationProblem(ReduceOperation op) noexcept
{
    if (!isValidEnum(op))
    {
        return "is not a valid ReduceOperation";
    }
    return op == ReduceOperation::kNONE ? "(kNONE) is only for multi-device collectives" : nullptr;
}

//! Whether axes names only axes of a tensor of rank (any axes when the rank is unknown).
bool axesFit(uint32_t axes, int32_t rank) noexcept
{
    return rank < 0 || rank >= 32 || (axes >> rank) == 0;
}

} // namespace

template <>
class KindImpl<LayerType::kREDUCE> final : public nvinfer1::apiv::VReduceLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(ReduceOperation op) noexcept override
    {
        if (char const* problem = reduceOperationProblem(op))
        {
            mLayer.fail("setOperation", "operation ", op, " ", problem);
            return;
        }
        edit().op = op;
    }
    ReduceOperation getOperation() const noexcept override { return p().op; }
    void setReduceAxes(uint32_t reduceAxes) noexcept override
    {
        if (!axesFit(reduceAxes, inputDims(0).nbDims))
        {
            mLayer.fail("setReduceAxes", "the axes mask ", reduceAxes, " names axes beyond the input's rank ",
                inputDims(0).nbDims);
            return;
        }
        edit().axes = reduceAxes;
    }
    uint32_t getReduceAxes() const noexcept override { return p().axes; }
    void setKeepDimensions(bool keepDimensions) noexcept override { edit().keepDimensions = keepDimensions; }
    bool getKeepDimensions() const noexcept override { return p().keepDimensions; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const input = inputDims(0);
        ReduceParams const& params = p();
        if (input.nbDims < 0)
        {
            return kUnsetDims;
        }
        Dims result{0, {}};
        for (int32_t i = 0; i < input.nbDims; ++i)
        {
            bool const reduced = (params.axes >> i) & 1U;
            if (!reduced)
            {
                result.d[result.nbDims++] = input.d[i];
            }
            else if (params.keepDimensions)
            {
                result.d[result.nbDims++] = 1;
            }
        }
        return result;
    }

private:
    ReduceParams const& p() const noexcept { return mLayer.paramsAs<ReduceParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ReduceParams& edit() noexcept { return mLayer.editParams<ReduceParams>(); }
};

nvinfer1::IReduceLayer* NetworkApi::addReduce(
    nvinfer1::ITensor& input, ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addReduce";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IReduceLayer*>(nullptr), [&]() -> nvinfer1::IReduceLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (char const* problem = reduceOperationProblem(operation))
            {
                return mNetwork.fail(kWhere, "operation ", operation, " ", problem);
            }
            if (!axesFit(reduceAxes, data->dims().nbDims))
            {
                return mNetwork.fail(kWhere, "the axes mask ", reduceAxes, " names axes beyond the rank of input ",
                    quotedText(data->name()), " ", data->dims());
            }
            return &mNetwork.addLayer<LayerType::kREDUCE>(
                {data}, ReduceParams{operation, reduceAxes, keepDimensions}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ReduceParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& data = context.input(0);
    if (!data.present())
    {
        return context.error("input 0 is missing");
    }
    int32_t const rank = data.rank();
    if (rank < 32 && (params.axes >> rank) != 0)
    {
        return context.error("the axes bit mask ", params.axes, " names an axis at or beyond the input's rank ", rank);
    }
    SymbolicDims out;
    for (int32_t i = 0; i < rank; ++i)
    {
        if ((params.axes >> i) & 1U)
        {
            if (params.keepDimensions)
            {
                out.push_back(context.constant(1));
            }
        }
        else
        {
            out.push_back((*data.shape)[static_cast<std::size_t>(i)]);
        }
    }
    SymbolicTensor result{out, std::nullopt, {}};
    // Shape-tensor values: a reduction of a 1-D tensor along its only axis.
    if (rank == 1 && params.axes == 1U && data.values && !data.values->empty())
    {
        std::optional<DimensionOperation> op;
        switch (params.op)
        {
        case ReduceOperation::kSUM: op = DimensionOperation::kSUM; break;
        case ReduceOperation::kPROD: op = DimensionOperation::kPROD; break;
        case ReduceOperation::kMAX: op = DimensionOperation::kMAX; break;
        case ReduceOperation::kMIN: op = DimensionOperation::kMIN; break;
        default: break;
        }
        if (op)
        {
            DimExpr const* value = data.values->front();
            for (std::size_t i = 1; i < data.values->size(); ++i)
            {
                value = context.op(*op, value, (*data.values)[i]);
            }
            result.values = SymbolicDims{value};
        }
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
