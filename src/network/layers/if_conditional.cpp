// SPDX-License-Identifier: Apache-2.0
// If-conditionals (IIfConditional) and their boundary layers: the condition (kCONDITION), the inputs
// (kCONDITIONAL_INPUT) and the outputs (kCONDITIONAL_OUTPUT). The layers of the two branches are ordinary layers.
//
// What kiln checks: the condition is a 0-D kBOOL tensor, set once; the two values of an output have the same type and
// rank; a conditional whose outputs are built has a condition. The condition layer has one output the API does not
// show, a copy of the condition; every output layer reads it as a third input the API does not show, so that the
// builder orders the condition first and the run time reads the condition once it is known (runtime/executor.h,
// "Branches"). An output's extents are the true branch's where both branches agree, else c * t + (1 - c) * f with c
// the condition's value, known once the condition layer has run.
#include "core/data_type.h"
#include "network/network.h"
#include "network/shape_rules.h"

namespace kiln
{

namespace
{

//! The API's conditional of a boundary layer.
nvinfer1::IIfConditional* conditionalOf(Layer const& layer, int32_t index) noexcept
{
    return layer.network().conditional(index);
}

//! The part of the three boundary kinds' descriptors they share.
class BoundaryKind : public nvinfer1::apiv::VConditionalBoundaryLayer, public KindBase
{
public:
    using KindBase::KindBase;

protected:
    template <typename P>
    nvinfer1::IIfConditional* conditional() const noexcept
    {
        return conditionalOf(mLayer, mLayer.paramsAs<P>().conditional);
    }
};

//! Whether dims can be a condition's: 0-D, or not yet known.
bool conditionDims(Dims const& dims) noexcept
{
    return dims.nbDims <= 0;
}

} // namespace

template <>
class KindImpl<LayerType::kCONDITION> final : public nvinfer1::apiv::VConditionLayer, public BoundaryKind
{
public:
    using BoundaryKind::BoundaryKind;

    nvinfer1::IIfConditional* getConditional() const noexcept override { return conditional<ConditionParams>(); }

    //! The one (hidden) output: the condition.
    DataType outputType(int32_t /*index*/) const noexcept { return DataType::kBOOL; }
    Dims outputDims(int32_t /*index*/) const noexcept { return Dims{0, {}}; }
};

template <>
class KindImpl<LayerType::kCONDITIONAL_INPUT> final : public nvinfer1::apiv::VConditionalInputLayer, public BoundaryKind
{
public:
    using BoundaryKind::BoundaryKind;

    nvinfer1::IIfConditional* getConditional() const noexcept override
    {
        return conditional<IfConditionalInputParams>();
    }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }
};

template <>
class KindImpl<LayerType::kCONDITIONAL_OUTPUT> final : public nvinfer1::apiv::VConditionalOutputLayer,
                                                       public BoundaryKind
{
public:
    using BoundaryKind::BoundaryKind;

    nvinfer1::IIfConditional* getConditional() const noexcept override
    {
        return conditional<IfConditionalOutputParams>();
    }

    //! The true branch's type; the shape where the branches agree, -1 for the extents where they differ.
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        Dims const a = inputDims(0);
        Dims const b = inputDims(1);
        if (a.nbDims < 0 || a.nbDims != b.nbDims)
        {
            return a.nbDims == b.nbDims ? a : kUnsetDims;
        }
        Dims dims = a;
        for (int32_t i = 0; i < a.nbDims; ++i)
        {
            dims.d[i] = a.d[i] == b.d[i] ? a.d[i] : -1;
        }
        return dims;
    }
};

// ---- IfConditional ------------------------------------------------------------------------------------------------

IfConditional::IfConditional(Network& network, int32_t index, std::string name)
    : mNetwork(network)
    , mIndex(index)
    , mName(std::move(name))
{
    mImpl = &mApi;
}

nvinfer1::IConditionLayer* IfConditional::Api::setCondition(nvinfer1::ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "IIfConditional::setCondition";
    IfConditional& c = mConditional;
    Network& network = c.mNetwork;
    return network.reporter().guard(
        kWhere, static_cast<nvinfer1::IConditionLayer*>(nullptr), [&]() -> nvinfer1::IConditionLayer* {
            Tensor* condition = network.own(&tensor, kWhere, "condition");
            if (condition == nullptr)
            {
                return nullptr;
            }
            if (c.mCondition != nullptr)
            {
                return network.fail(kWhere, "conditional ", quotedText(c.mName), " already has a condition (layer ",
                    quotedText(c.mCondition->name()), ")");
            }
            if (condition->type() != DataType::kBOOL || !conditionDims(condition->dims()))
            {
                return network.fail(kWhere, "conditional ", quotedText(c.mName), ": the condition ",
                    quotedText(condition->name()), " is ", dataTypeName(condition->type()), " ", condition->dims(),
                    "; it must be a 0-D kBOOL tensor");
            }
            for (Layer* output : c.mOutputs)
            {
                if (network.dependsOn(*condition, *output))
                {
                    return network.fail(kWhere, "conditional ", quotedText(c.mName), ": the condition ",
                        quotedText(condition->name()), " is computed from the conditional's output layer ",
                        quotedText(output->name()), "; that would make a cycle");
                }
            }
            auto& layer
                = network.addLayer<LayerType::kCONDITION>({condition}, ConditionParams{c.mIndex}, 0, nullptr, 1);
            c.mCondition = &layer;
            for (Layer* output : c.mOutputs)
            {
                output->appendHiddenInput(*layer.outputs().front());
            }
            return &layer;
        });
}

nvinfer1::IIfConditionalInputLayer* IfConditional::Api::addInput(nvinfer1::ITensor& tensor) noexcept
{
    constexpr char const* kWhere = "IIfConditional::addInput";
    IfConditional& c = mConditional;
    Network& network = c.mNetwork;
    return network.reporter().guard(kWhere, static_cast<nvinfer1::IIfConditionalInputLayer*>(nullptr),
        [&]() -> nvinfer1::IIfConditionalInputLayer* {
            Tensor* input = network.own(&tensor, kWhere, "input");
            if (input == nullptr)
            {
                return nullptr;
            }
            return &network.addLayer<LayerType::kCONDITIONAL_INPUT>({input}, IfConditionalInputParams{c.mIndex}, 1);
        });
}

nvinfer1::IIfConditionalOutputLayer* IfConditional::Api::addOutput(
    nvinfer1::ITensor& trueTensor, nvinfer1::ITensor& falseTensor) noexcept
{
    constexpr char const* kWhere = "IIfConditional::addOutput";
    IfConditional& c = mConditional;
    Network& network = c.mNetwork;
    return network.reporter().guard(kWhere, static_cast<nvinfer1::IIfConditionalOutputLayer*>(nullptr),
        [&]() -> nvinfer1::IIfConditionalOutputLayer* {
            Tensor* onTrue = network.own(&trueTensor, kWhere, "true branch's output");
            Tensor* onFalse = onTrue == nullptr ? nullptr : network.own(&falseTensor, kWhere, "false branch's output");
            if (onFalse == nullptr)
            {
                return nullptr;
            }
            if (onTrue->type() != onFalse->type())
            {
                return network.fail(kWhere, "conditional ", quotedText(c.mName), ": the true branch's output ",
                    quotedText(onTrue->name()), " is ", dataTypeName(onTrue->type()), " but the false branch's ",
                    quotedText(onFalse->name()), " is ", dataTypeName(onFalse->type()), "; they must have one type");
            }
            int32_t const trueRank = onTrue->dims().nbDims;
            int32_t const falseRank = onFalse->dims().nbDims;
            if (trueRank >= 0 && falseRank >= 0 && trueRank != falseRank)
            {
                return network.fail(kWhere, "conditional ", quotedText(c.mName), ": the true branch's output ",
                    quotedText(onTrue->name()), " has rank ", trueRank, " but the false branch's ",
                    quotedText(onFalse->name()), " has rank ", falseRank, "; they must have one rank");
            }
            auto& layer = network.addLayer<LayerType::kCONDITIONAL_OUTPUT>(
                {onTrue, onFalse}, IfConditionalOutputParams{c.mIndex}, 1);
            if (c.mCondition != nullptr)
            {
                layer.appendHiddenInput(*c.mCondition->outputs().front());
            }
            c.mOutputs.push_back(&layer);
            return &layer;
        });
}

void IfConditional::Api::setName(char const* name) noexcept
{
    IfConditional& c = mConditional;
    if (name == nullptr)
    {
        c.mNetwork.fail("IIfConditional::setName", "conditional ", quotedText(c.mName), ": the name is null");
        return;
    }
    c.mNetwork.reporter().guard("IIfConditional::setName", 0, [&] {
        c.mName = name;
        return 0;
    });
}

char const* IfConditional::Api::getName() const noexcept
{
    return mConditional.mName.c_str();
}

nvinfer1::IIfConditional* NetworkApi::addIfConditional() noexcept
{
    return mNetwork.reporter().guard(
        "INetworkDefinition::addIfConditional", static_cast<nvinfer1::IIfConditional*>(nullptr), [&] {
            auto const index = static_cast<int32_t>(mNetwork.mConditionals.size());
            mNetwork.mConditionals.push_back(std::make_unique<IfConditional>(
                mNetwork, index, "(Unnamed IfConditional " + std::to_string(index) + ")"));
            return static_cast<nvinfer1::IIfConditional*>(mNetwork.mConditionals.back().get());
        });
}

// ---- Shape rules (network/shape_rules.h) ----------------------------------------------------------------------------

//! The hidden output: the 0-D condition, with its value where it is known.
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ConditionParams const& /*params*/, ShapeRuleContext& context)
{
    SymbolicTensor const& condition = context.input(0);
    if (!condition.present())
    {
        return context.error("input 0 (the condition) is missing");
    }
    if (condition.type != DataType::kBOOL || condition.rank() != 0)
    {
        return context.error("the condition is ", dataTypeName(condition.type), " of rank ", condition.rank(),
            "; it must be a 0-D kBOOL tensor");
    }
    if (context.nbOutputs() != 1)
    {
        return context.error("the layer has ", context.nbOutputs(), " outputs; a condition layer has 1 (hidden)");
    }
    return context.finish({SymbolicTensor{SymbolicDims{}, condition.values, DataType::kBOOL}});
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(
    IfConditionalInputParams const& /*params*/, ShapeRuleContext& context)
{
    SymbolicTensor const& input = context.input(0);
    if (!input.present())
    {
        return context.error("input 0 is missing");
    }
    return context.finish({input});
}

Expected<std::vector<SymbolicTensor>> inferOutputShapes(
    IfConditionalOutputParams const& /*params*/, ShapeRuleContext& context)
{
    SymbolicTensor const& onTrue = context.input(0);
    SymbolicTensor const& onFalse = context.input(1);
    SymbolicTensor const& condition = context.input(2);
    if (!onTrue.present() || !onFalse.present())
    {
        return context.error("the true and the false branch's outputs (inputs 0 and 1) are both required");
    }
    if (!condition.present())
    {
        return context.error("its if-conditional has no condition; call IIfConditional::setCondition");
    }
    if (onTrue.type != onFalse.type)
    {
        return context.error("the true branch's output is ", dataTypeName(onTrue.type), " but the false branch's is ",
            dataTypeName(onFalse.type), "; they must have one type");
    }
    if (onTrue.rank() != onFalse.rank())
    {
        return context.error("the true branch's output has rank ", onTrue.rank(), " but the false branch's has rank ",
            onFalse.rank(), "; they must have one rank");
    }
    DimExpr const* chosen = condition.values && condition.values->size() == 1 ? condition.values->front() : nullptr;
    SymbolicDims shape;
    for (std::size_t j = 0; j < onTrue.shape->size(); ++j)
    {
        DimExpr const* t = (*onTrue.shape)[j];
        DimExpr const* f = (*onFalse.shape)[j];
        int64_t a = 0;
        int64_t b = 0;
        if (t == f || (isConstantExpr(t, &a) && isConstantExpr(f, &b) && a == b))
        {
            shape.push_back(t);
            continue;
        }
        if (chosen == nullptr)
        {
            return context.error("the branches' outputs differ in extent ", j, " (", context.str(t), " and ",
                context.str(f), ") and the condition's value cannot be followed");
        }
        int64_t value = 0;
        if (isConstantExpr(chosen, &value))
        {
            shape.push_back(value != 0 ? t : f);
            continue;
        }
        // f + c * (t - f): the extent of the branch the condition chooses.
        shape.push_back(context.add(f, context.mul(chosen, context.sub(t, f))));
    }
    return context.finish({SymbolicTensor{std::move(shape), std::nullopt, onTrue.type}});
}

} // namespace kiln
