// SPDX-License-Identifier: Apache-2.0
// Select: condition ? then : else, element-wise over three broadcast inputs of one rank.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kSELECT> final : public nvinfer1::apiv::VSelectLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(1); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        return broadcastDims({inputDims(0), inputDims(1), inputDims(2)});
    }
};

nvinfer1::ISelectLayer* NetworkApi::addSelect(
    nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addSelect";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ISelectLayer*>(nullptr), [&]() -> nvinfer1::ISelectLayer* {
            Tensor* test = mNetwork.own(&condition, kWhere, "condition");
            Tensor* whenTrue = test != nullptr ? mNetwork.own(&thenInput, kWhere, "then input") : nullptr;
            Tensor* whenFalse = whenTrue != nullptr ? mNetwork.own(&elseInput, kWhere, "else input") : nullptr;
            if (whenFalse == nullptr)
            {
                return nullptr;
            }
            if (test->type() != DataType::kBOOL)
            {
                return mNetwork.fail(kWhere, "condition ", quotedText(test->name()), " has type ", test->type(),
                    "; a condition is kBOOL");
            }
            int32_t rank = -1;
            for (Tensor const* tensor : {test, whenTrue, whenFalse})
            {
                int32_t const other = tensor->dims().nbDims;
                if (rank >= 0 && other >= 0 && other != rank)
                {
                    return mNetwork.fail(kWhere, "input ", quotedText(tensor->name()), " has rank ", other,
                        " but another input has rank ", rank, "; select inputs have one rank");
                }
                rank = other >= 0 ? other : rank;
            }
            return &mNetwork.addLayer<LayerType::kSELECT>({test, whenTrue, whenFalse}, SelectParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(SelectParams const& /*params*/, ShapeRuleContext& context)
{
    static char const* const kNames[3] = {"input 0 (condition)", "input 1 (then)", "input 2 (else)"};
    for (int32_t i = 0; i < 3; ++i)
    {
        if (!context.input(i).present())
        {
            return context.error(kNames[i], " is missing");
        }
        if (context.input(i).rank() != context.input(0).rank())
        {
            return context.error(kNames[i], " has ", context.input(i).rank(), " dimensions and ", kNames[0], " has ",
                context.input(0).rank(), "; the inputs of a select have one rank");
        }
    }
    SymbolicDims out = *context.input(0).shape;
    for (std::size_t d = 0; d < out.size(); ++d)
    {
        for (int32_t i = 1; i < 3; ++i)
        {
            out[d] = context.broadcast(out[d], (*context.input(i).shape)[d], "dimension " + std::to_string(d),
                i == 1 ? kNames[0] : "the broadcast of inputs 0 and 1", kNames[i]);
        }
    }
    SymbolicTensor result{out, std::nullopt, {}};
    SymbolicTensor const& c = context.input(0);
    SymbolicTensor const& t = context.input(1);
    SymbolicTensor const& e = context.input(2);
    if (out.size() <= 1 && c.values && t.values && e.values)
    {
        std::size_t const n = out.empty() ? 1
            : c.values->size() > 1        ? c.values->size()
                                          : std::max(t.values->size(), e.values->size());
        SymbolicDims values;
        for (std::size_t i = 0; i < n; ++i)
        {
            auto pick = [&](SymbolicDims const& v) { return v[v.size() == 1 ? 0 : std::min(i, v.size() - 1)]; };
            // select(c, t, e) = e + (c != 0) * (t - e)
            DimExpr const* nonZero = context.sub(context.constant(1), context.eq(pick(*c.values), context.constant(0)));
            values.push_back(
                context.add(pick(*e.values), context.mul(nonZero, context.sub(pick(*t.values), pick(*e.values)))));
        }
        result.values = std::move(values);
    }
    return context.finish({std::move(result)});
}

} // namespace kiln
