// SPDX-License-Identifier: Apache-2.0
// Concatenation of its inputs along one axis.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kCONCATENATION> final : public nvinfer1::apiv::VConcatenationLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setAxis(int32_t axis) noexcept override
    {
        int32_t const rank = inputDims(0).nbDims;
        if (axis < 0 || (rank >= 0 && axis >= rank))
        {
            mLayer.fail("setAxis", "axis ", axis, " is out of range for inputs of rank ", rank);
            return;
        }
        edit().axis = axis;
    }
    int32_t getAxis() const noexcept override { return p().axis; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims result = inputDims(0);
        int32_t const axis = p().axis;
        if (result.nbDims <= axis)
        {
            return result;
        }
        int64_t total = 0;
        for (Tensor const* input : mLayer.inputs())
        {
            Dims const dims = input != nullptr ? input->dims() : kUnsetDims;
            if (dims.nbDims != result.nbDims || dims.d[axis] < 0 || total < 0)
            {
                total = -1;
                continue;
            }
            total += dims.d[axis];
        }
        result.d[axis] = total;
        return result;
    }

private:
    ConcatenationParams const& p() const noexcept { return mLayer.paramsAs<ConcatenationParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ConcatenationParams& edit() noexcept { return mLayer.editParams<ConcatenationParams>(); }
};

nvinfer1::IConcatenationLayer* NetworkApi::addConcatenation(nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addConcatenation";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IConcatenationLayer*>(nullptr), [&]() -> nvinfer1::IConcatenationLayer* {
            if (nbInputs < 1)
            {
                return mNetwork.fail(kWhere, "nbInputs is ", nbInputs, "; a concatenation needs at least one input");
            }
            auto all = mNetwork.ownAll(inputs, nbInputs, kWhere, "inputs");
            if (!all)
            {
                return nullptr;
            }
            std::vector<Tensor*> owned = std::move(*all);
            int32_t const rank = owned.front()->dims().nbDims;
            for (Tensor const* tensor : owned)
            {
                int32_t const other = tensor->dims().nbDims;
                if (rank >= 0 && other >= 0 && other != rank)
                {
                    return mNetwork.fail(kWhere, "input ", quotedText(tensor->name()), " has rank ", other, " but ",
                        quotedText(owned.front()->name()), " has rank ", rank, "; concatenated tensors have one rank");
                }
            }
            auto const axis = defaultChannelAxis(rank);
            return &mNetwork.addLayer<LayerType::kCONCATENATION>(std::move(owned), ConcatenationParams{axis}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ConcatenationParams const& params, ShapeRuleContext& context)
{
    if (context.nbInputs() == 0 || !context.input(0).present())
    {
        return context.error("a concatenation needs at least one input");
    }
    int32_t const rank = context.input(0).rank();
    int32_t const axis = params.axis;
    if (axis < 0 || axis >= rank)
    {
        return context.error("axis ", axis, " is out of range for inputs of rank ", rank);
    }
    SymbolicDims out = *context.input(0).shape;
    for (int32_t i = 1; i < context.nbInputs(); ++i)
    {
        SymbolicTensor const& input = context.input(i);
        if (input.rank() != rank)
        {
            return context.error("input ", i, " has ", input.rank(), " dimensions and input 0 has ", rank,
                "; concatenated inputs have one rank");
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            auto const k = static_cast<std::size_t>(d);
            if (d == axis)
            {
                out[k] = context.add(out[k], (*input.shape)[k]);
                continue;
            }
            DimExpr const* other = (*input.shape)[k];
            if (isConstantExpr(other) && !isConstantExpr(out[k]))
            {
                std::swap(out[k], other);
            }
            context.requireEqual(out[k], other,
                "dimension " + std::to_string(d) + " is " + context.str((*context.input(0).shape)[k])
                    + " in input 0 and " + context.str((*input.shape)[k]) + " in input " + std::to_string(i)
                    + "; concatenated inputs must agree on every dimension but the axis " + std::to_string(axis));
        }
    }
    SymbolicTensor result{out, std::nullopt, {}};
    if (rank == 1)
    {
        SymbolicDims values;
        bool known = true;
        for (SymbolicTensor const& input : context.inputs())
        {
            known = known && input.values.has_value();
            if (known)
            {
                values.insert(values.end(), input.values->begin(), input.values->end());
            }
        }
        if (known && values.size() <= kMaxShapeValues)
        {
            result.values = std::move(values);
        }
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
