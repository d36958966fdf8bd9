// SPDX-License-Identifier: Apache-2.0
// Einsum: an Einstein summation of its inputs by an equation (network/einsum_equation.h has the rules). TensorRT's
// IEinsumLayer reference: one or more inputs of rank >= 0; labels of one letter per axis, "..." for broadcast axes,
// repeated labels for diagonals, "->" for an explicit output; axes of one label must match or broadcast.
//
// What kiln checks, and where it differs from TensorRT: one or two inputs (kiln's kernels take no more), of one type,
// kFLOAT, kHALF or kBF16 (the output has that type; TensorRT documents mixed kFLOAT / kHALF inputs); the equation's
// syntax and its fit to the inputs' ranks at addEinsum and setEquation (refused with the equation unchanged) and in
// the shape rule, which also checks that the axes of one label have one extent or 1 (an extent of 1 broadcasts).
#include "core/data_type.h"
#include "network/checks.h"
#include "network/einsum_equation.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <string>
#include <vector>

namespace kiln
{

namespace
{

//! Whether type is one an Einsum takes.
bool isEinsumType(DataType type) noexcept
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

//! The labels of equation bound to the ranks of shapes (an unknown rank fails).
Expected<EinsumLabels> bindTo(std::string const& equation, std::vector<Dims> const& shapes)
{
    Expected<EinsumEquation> const parsed = parseEinsum(equation);
    if (!parsed)
    {
        return parsed.error();
    }
    std::vector<int32_t> ranks;
    for (Dims const& dims : shapes)
    {
        ranks.push_back(dims.nbDims);
    }
    return bindEinsum(parsed.value(), ranks);
}

} // namespace

template <>
class KindImpl<LayerType::kEINSUM> final : public nvinfer1::apiv::VEinsumLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool setEquation(char const* equation) noexcept override
    {
        if (equation == nullptr)
        {
            mLayer.fail("setEquation", "the equation is null");
            return false;
        }
        Expected<EinsumLabels> const bound = bindTo(equation, inputShapes());
        if (!bound)
        {
            mLayer.fail("setEquation", "the equation ", quotedText(equation),
                " does not fit the inputs: ", bound.error().message);
            return false;
        }
        edit().equation = equation;
        return true;
    }
    char const* getEquation() const noexcept override { return p().equation.c_str(); }

    //! Inputs: the operands, one per term of the equation.
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    //! The output shape from the inputs' static extents: per label, an extent other than 1 if an axis has one, 1 if
    //! all have 1, else -1.
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        std::vector<Dims> const shapes = inputShapes();
        Expected<EinsumLabels> const bound = bindTo(p().equation, shapes);
        if (!bound)
        {
            return kUnsetDims;
        }
        EinsumLabels const& labels = bound.value();
        std::vector<int64_t> extents(static_cast<std::size_t>(labels.nbLabels), 1);
        for (std::size_t i = 0; i < shapes.size(); ++i)
        {
            for (std::size_t a = 0; a < labels.inputAxes[i].size(); ++a)
            {
                int64_t const extent = shapes[i].d[a];
                int64_t& known = extents[static_cast<std::size_t>(labels.inputAxes[i][a])];
                if (extent < 0)
                {
                    known = known == 1 ? -1 : known;
                }
                else if (extent != 1)
                {
                    known = extent;
                }
            }
        }
        Dims out{labels.nbOutput, {}};
        for (int32_t k = 0; k < labels.nbOutput; ++k)
        {
            out.d[k] = extents[static_cast<std::size_t>(k)];
        }
        return out;
    }

private:
    EinsumParams const& p() const noexcept { return mLayer.paramsAs<EinsumParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    EinsumParams& edit() noexcept { return mLayer.editParams<EinsumParams>(); }
    std::vector<Dims> inputShapes() const
    {
        std::vector<Dims> shapes;
        for (std::size_t i = 0; i < mLayer.inputs().size(); ++i)
        {
            shapes.push_back(inputDims(static_cast<int32_t>(i)));
        }
        return shapes;
    }
};

nvinfer1::IEinsumLayer* NetworkApi::addEinsum(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addEinsum";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IEinsumLayer*>(nullptr), [&]() -> nvinfer1::IEinsumLayer* {
            if (nbInputs < 1 || nbInputs > 2)
            {
                return mNetwork.fail(kWhere, "nbInputs is ", nbInputs, "; kiln's Einsum takes one or two inputs");
            }
            if (equation == nullptr)
            {
                return mNetwork.fail(kWhere, "the equation is null");
            }
            auto all = mNetwork.ownAll(inputs, nbInputs, kWhere, "inputs");
            if (!all)
            {
                return nullptr;
            }
            std::vector<Tensor*> owned = std::move(*all);
            DataType const type = owned.front()->type();
            std::vector<Dims> shapes;
            for (Tensor const* tensor : owned)
            {
                if (!isEinsumType(tensor->type()) || tensor->type() != type)
                {
                    return mNetwork.fail(kWhere, "input ", quotedText(tensor->name()), " is ",
                        dataTypeName(tensor->type()), "; an Einsum takes inputs of one type, kFLOAT, kHALF or kBF16");
                }
                shapes.push_back(tensor->dims());
            }
            Expected<EinsumLabels> const bound = bindTo(equation, shapes);
            if (!bound)
            {
                return mNetwork.fail(
                    kWhere, "the equation ", quotedText(equation), " does not fit the inputs: ", bound.error().message);
            }
            return &mNetwork.addLayer<LayerType::kEINSUM>(std::move(owned), EinsumParams{equation}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h): each label's extent is the broadcast of its axes' extents.
Expected<std::vector<SymbolicTensor>> inferOutputShapes(EinsumParams const& params, ShapeRuleContext& context)
{
    if (context.nbInputs() < 1 || context.nbInputs() > 2)
    {
        return context.error("an Einsum has one or two inputs; this one has ", context.nbInputs());
    }
    std::vector<int32_t> ranks;
    DataType const type = context.input(0).type;
    for (SymbolicTensor const& input : context.inputs())
    {
        if (!input.present())
        {
            return context.error("an input is missing");
        }
        if (!isEinsumType(input.type) || input.type != type)
        {
            return context.error("the inputs are ", dataTypeName(type), " and ", dataTypeName(input.type),
                "; an Einsum takes inputs of one type, kFLOAT, kHALF or kBF16");
        }
        ranks.push_back(input.rank());
    }
    Expected<EinsumEquation> const parsed = parseEinsum(params.equation);
    if (!parsed)
    {
        return context.error("the equation ", quotedText(params.equation), ": ", parsed.error().message);
    }
    Expected<EinsumLabels> const bound = bindEinsum(parsed.value(), ranks);
    if (!bound)
    {
        return context.error("the equation ", quotedText(params.equation), ": ", bound.error().message);
    }
    EinsumLabels const& labels = bound.value();
    std::vector<DimExpr const*> extents(static_cast<std::size_t>(labels.nbLabels), nullptr);
    std::vector<std::string> names(static_cast<std::size_t>(labels.nbLabels));
    for (std::size_t i = 0; i < ranks.size(); ++i)
    {
        SymbolicDims const& shape = *context.input(static_cast<int32_t>(i)).shape;
        for (std::size_t a = 0; a < shape.size(); ++a)
        {
            auto const label = static_cast<std::size_t>(labels.inputAxes[i][a]);
            std::string const name = "input " + std::to_string(i) + " axis " + std::to_string(a);
            if (extents[label] == nullptr)
            {
                extents[label] = shape[a];
                names[label] = name;
                continue;
            }
            extents[label] = context.broadcast(extents[label], shape[a], "the extent of one label", names[label], name);
        }
    }
    SymbolicDims out;
    for (int32_t k = 0; k < labels.nbOutput; ++k)
    {
        out.push_back(extents[static_cast<std::size_t>(k)]);
    }
    return context.finish({SymbolicTensor{out, std::nullopt, type}});
}

} // namespace kiln
