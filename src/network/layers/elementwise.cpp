// SPDX-License-Identifier: Apache-2.0
// Element-wise binary operations on two inputs of equal rank, broadcasting extents of 1. Comparisons give kBOOL.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

using nvinfer1::ElementWiseOperation;

template <>
class KindImpl<LayerType::kELEMENTWISE> final : public nvinfer1::apiv::VElementWiseLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(ElementWiseOperation op) noexcept override
    {
        if (mLayer.checkEnum("setOperation", "operation", op))
        {
            edit().op = op;
        }
    }
    ElementWiseOperation getOperation() const noexcept override { return p().op; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept
    {
        ElementWiseOperation const op = p().op;
        bool const comparison = op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
            || op == ElementWiseOperation::kLESS;
        return comparison ? DataType::kBOOL : inputType(0);
    }
    Dims outputDims(int32_t /*index*/) const noexcept { return broadcastDims({inputDims(0), inputDims(1)}); }

private:
    ElementWiseParams const& p() const noexcept { return mLayer.paramsAs<ElementWiseParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ElementWiseParams& edit() noexcept { return mLayer.editParams<ElementWiseParams>(); }
};

nvinfer1::IElementWiseLayer* NetworkApi::addElementWise(
    nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, ElementWiseOperation op) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addElementWise";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IElementWiseLayer*>(nullptr), [&]() -> nvinfer1::IElementWiseLayer* {
            Tensor* first = mNetwork.own(&input1, kWhere, "first input");
            Tensor* second = first != nullptr ? mNetwork.own(&input2, kWhere, "second input") : nullptr;
            if (second == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(op))
            {
                return mNetwork.fail(kWhere, "operation ", op, " is not a valid ElementWiseOperation");
            }
            int32_t const rank1 = first->dims().nbDims;
            int32_t const rank2 = second->dims().nbDims;
            if (rank1 >= 0 && rank2 >= 0 && rank1 != rank2)
            {
                return mNetwork.fail(kWhere, "inputs ", quotedText(first->name()), " ", first->dims(), " and ",
                    quotedText(second->name()), " ", second->dims(),
                    " differ in rank; element-wise inputs have one rank (broadcast with a shuffle first)");
            }
            return &mNetwork.addLayer<LayerType::kELEMENTWISE>({first, second}, ElementWiseParams{op}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
namespace
{

//! The values of op on shape-tensor values a and b, or nullopt for an operation kiln does not track.
std::optional<DimExpr const*> elementValue(
    ShapeRuleContext& context, ElementWiseOperation op, DimExpr const* a, DimExpr const* b)
{
    switch (op)
    {
    case ElementWiseOperation::kSUM: return context.add(a, b);
    case ElementWiseOperation::kSUB: return context.sub(a, b);
    case ElementWiseOperation::kPROD: return context.mul(a, b);
    case ElementWiseOperation::kMAX: return context.max(a, b);
    case ElementWiseOperation::kMIN: return context.min(a, b);
    case ElementWiseOperation::kFLOOR_DIV: return context.floorDiv(a, b);
    case ElementWiseOperation::kEQUAL: return context.eq(a, b);
    case ElementWiseOperation::kLESS: return context.less(a, b);
    case ElementWiseOperation::kGREATER: return context.less(b, a);
    case ElementWiseOperation::kDIV:
    {
        // Integer kDIV truncates toward zero: floor division, plus 1 when the signs differ and it is inexact.
        DimExpr const* floor = context.floorDiv(a, b);
        if (isNonNegative(context.exprs(), a) && isNonNegative(context.exprs(), b))
        {
            return floor;
        }
        DimExpr const* zero = context.constant(0);
        DimExpr const* one = context.constant(1);
        DimExpr const* inexact = context.sub(one, context.eq(context.sub(a, context.mul(floor, b)), zero));
        DimExpr const* aNegative = context.less(a, zero);
        DimExpr const* bNegative = context.less(b, zero);
        DimExpr const* signsDiffer = context.sub(
            context.add(aNegative, bNegative), context.mul(context.constant(2), context.mul(aNegative, bNegative)));
        return context.add(floor, context.mul(inexact, signsDiffer));
    }
    default: return std::nullopt;
    }
}

} // namespace

Expected<std::vector<SymbolicTensor>> inferOutputShapes(ElementWiseParams const& params, ShapeRuleContext& context)
{
    SymbolicTensor const& a = context.input(0);
    SymbolicTensor const& b = context.input(1);
    if (!a.present() || !b.present())
    {
        return context.error("an element-wise layer has two inputs");
    }
    if (a.rank() != b.rank())
    {
        return context.error(
            "input 0 has ", a.rank(), " dimensions and input 1 has ", b.rank(), "; element-wise inputs have one rank");
    }
    SymbolicDims out;
    for (std::size_t i = 0; i < a.shape->size(); ++i)
    {
        out.push_back(
            context.broadcast((*a.shape)[i], (*b.shape)[i], "dimension " + std::to_string(i), "input 0", "input 1"));
    }
    SymbolicTensor result{out, std::nullopt, {}};
    // Shape-tensor values: 0-D or 1-D operands whose values are known, broadcast elementwise.
    if (a.values && b.values && out.size() <= 1)
    {
        std::size_t const n = std::max(a.values->size(), b.values->size());
        bool const fits
            = (a.values->size() == n || a.values->size() == 1) && (b.values->size() == n || b.values->size() == 1);
        SymbolicDims values;
        for (std::size_t i = 0; fits && i < n; ++i)
        {
            auto value = elementValue(context, params.op, (*a.values)[a.values->size() == 1 ? 0 : i],
                (*b.values)[b.values->size() == 1 ? 0 : i]);
            if (!value)
            {
                break;
            }
            values.push_back(*value);
        }
        if (fits && values.size() == n)
        {
            result.values = std::move(values);
        }
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
