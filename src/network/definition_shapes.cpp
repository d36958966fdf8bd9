// SPDX-License-Identifier: Apache-2.0
#include "network/definition_shapes.h"

#include "network/checks.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kiln
{
namespace
{

//! How many layers of shape arithmetic are followed back from the layer asked about.
constexpr int32_t kMaxDepth = 8;

class DefinitionShapes
{
public:
    explicit DefinitionShapes(ExprContext& exprs)
        : mExprs(exprs)
    {
    }

    Expected<std::vector<SymbolicTensor>> layer(Layer const& layer, int32_t depth)
    {
        std::vector<SymbolicTensor> inputs;
        for (Tensor const* input : layer.inputs())
        {
            inputs.push_back(input != nullptr ? tensor(*input, depth) : SymbolicTensor{});
        }
        ShapeRuleContext context(
            mExprs, layer.name(), layer.type(), std::move(inputs), static_cast<int32_t>(layer.outputs().size()));
        return std::visit([&](auto const& params) { return inferOutputShapes(params, context); }, layer.params());
    }

private:
    //! tensor with its values when a layer computes them from shapes or values, else as Tensor::dims reports it.
    SymbolicTensor tensor(Tensor const& tensor, int32_t depth)
    {
        if (auto found = mDone.find(&tensor); found != mDone.end())
        {
            return found->second;
        }
        SymbolicTensor result;
        Layer const* producer = tensor.producer();
        bool const valued = isIndexType(tensor.type()) || tensor.type() == DataType::kBOOL;
        if (producer != nullptr && depth > 0 && valued && producer->computesShapeValues())
        {
            auto outputs = layer(*producer, depth - 1);
            auto const index = static_cast<std::size_t>(tensor.producerOutput());
            if (outputs && index < outputs.value().size() && outputs.value()[index].present())
            {
                result = std::move(outputs.value()[index]);
                result.type = tensor.type();
            }
        }
        if (!result.present())
        {
            result = fromDims(tensor);
        }
        mDone.emplace(&tensor, result);
        return result;
    }

    //! The shape Tensor::dims reports, each unknown extent a symbol of the tensor and axis; no values.
    SymbolicTensor fromDims(Tensor const& tensor)
    {
        Dims const dims = tensor.dims();
        SymbolicTensor result{SymbolicDims{}, std::nullopt, tensor.type()};
        for (int32_t i = 0; i < dims.nbDims; ++i)
        {
            if (dims.d[i] >= 0)
            {
                result.shape->push_back(mExprs.constant(dims.d[i]));
                continue;
            }
            DimExpr const*& extent = mExtents[{&tensor, i}];
            if (extent == nullptr)
            {
                extent = mExprs.symbol(tensor.name() + ".d" + std::to_string(i), SymbolKind::kINPUT_EXTENT);
            }
            result.shape->push_back(extent);
        }
        if (dims.nbDims < 0)
        {
            result.shape.reset(); // an unknown rank: the rule sees an absent input and refuses
        }
        return result;
    }

    ExprContext& mExprs;
    std::map<std::pair<Tensor const*, int32_t>, DimExpr const*> mExtents;
    std::map<Tensor const*, SymbolicTensor> mDone;
};

} // namespace

Expected<std::vector<SymbolicTensor>> inferFromDefinition(Layer const& layer, ExprContext& exprs)
{
    return DefinitionShapes(exprs).layer(layer, kMaxDepth);
}

} // namespace kiln
