// SPDX-License-Identifier: Apache-2.0
#include "plan/engine_model.h"

#include "network/report.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <variant>

namespace kiln
{

bool isPointwiseOp(PointwiseStep::Kind kind, int32_t op) noexcept
{
    using nvinfer1::ElementWiseOperation;
    using nvinfer1::UnaryOperation;
    switch (kind)
    {
    case PointwiseStep::Kind::kELEMENTWISE:
    {
        auto const e = static_cast<ElementWiseOperation>(op);
        return e == ElementWiseOperation::kSUM || e == ElementWiseOperation::kPROD || e == ElementWiseOperation::kMAX
            || e == ElementWiseOperation::kMIN || e == ElementWiseOperation::kSUB || e == ElementWiseOperation::kDIV
            || e == ElementWiseOperation::kPOW || e == ElementWiseOperation::kFLOOR_DIV;
    }
    case PointwiseStep::Kind::kUNARY:
    {
        auto const u = static_cast<UnaryOperation>(op);
        return isValidEnum(u) && u != UnaryOperation::kNOT && u != UnaryOperation::kISINF
            && u != UnaryOperation::kISNAN;
    }
    case PointwiseStep::Kind::kACTIVATION: return isValidEnum(static_cast<nvinfer1::ActivationType>(op));
    }
    return false;
}

std::optional<std::string> pointwiseProgramProblem(std::span<PointwiseStep const> program, std::size_t nbInputs)
{
    if (program.empty() || program.size() > kMaxPointwiseSteps)
    {
        return "has a fused point-wise program of " + std::to_string(program.size()) + " steps; programs have 1 to "
            + std::to_string(kMaxPointwiseSteps);
    }
    if (nbInputs == 0 || nbInputs > kMaxPointwiseInputs)
    {
        return "has a fused point-wise program with " + std::to_string(nbInputs) + " inputs; programs take 1 to "
            + std::to_string(kMaxPointwiseInputs);
    }
    for (std::size_t k = 0; k < program.size(); ++k)
    {
        PointwiseStep const& step = program[k];
        std::string const where = "has a fused point-wise program whose step " + std::to_string(k);
        if (!isPointwiseOp(step.kind, step.op))
        {
            return where + " is of kind " + std::to_string(static_cast<int32_t>(step.kind)) + " with operation "
                + std::to_string(step.op) + ", which a point-wise program does not compute";
        }
        bool const binary = step.kind == PointwiseStep::Kind::kELEMENTWISE;
        std::array<int32_t, 2> const operands{step.a, step.b};
        for (int32_t const operand : std::span(operands).first(binary ? 2 : 1))
        {
            bool const input = operand >= 0 && static_cast<std::size_t>(operand) < nbInputs;
            bool const earlier = operand < 0 && static_cast<std::size_t>(-1 - static_cast<int64_t>(operand)) < k;
            if (!input && !earlier)
            {
                return where + " reads operand " + std::to_string(operand) + ", which is neither one of the "
                    + std::to_string(nbInputs) + " inputs nor an earlier step";
            }
        }
        if (!binary && step.b != 0)
        {
            return where + " has a second operand, but only element-wise steps take one";
        }
    }
    return std::nullopt;
}

int32_t EngineModel::findTensor(std::string const& tensorName) const noexcept
{
    for (std::size_t i = 0; i < tensors.size(); ++i)
    {
        if (tensors[i].name == tensorName)
        {
            return static_cast<int32_t>(i);
        }
    }
    return kNoTensor;
}

Weights EngineModel::weightsOf(int32_t index) const noexcept
{
    if (index < 0 || static_cast<std::size_t>(index) >= weights.size())
    {
        return Weights{DataType::kFLOAT, nullptr, 0};
    }
    WeightsBlob const& blob = weights[static_cast<std::size_t>(index)];
    return Weights{blob.type, blob.view().data(), blob.count};
}

std::vector<int32_t> aliasRoots(EngineModel const& model)
{
    std::vector<int32_t> roots(model.tensors.size());
    for (std::size_t t = 0; t < roots.size(); ++t)
    {
        roots[t] = static_cast<int32_t>(t);
    }
    // Layers run in order, so an aliased input's root is final before its output is looked at.
    for (LayerRecord const& layer : model.layers)
    {
        auto const* v3 = std::get_if<PluginV3Params>(&layer.params);
        if (v3 == nullptr)
        {
            continue;
        }
        for (std::size_t o = 0; o < v3->plan.aliasedInputs.size() && o < layer.outputs.size(); ++o)
        {
            int32_t const input = v3->plan.aliasedInputs[o];
            if (input >= 0 && static_cast<std::size_t>(input) < layer.inputs.size())
            {
                int32_t const source = layer.inputs[static_cast<std::size_t>(input)];
                roots[static_cast<std::size_t>(layer.outputs[o])] = roots[static_cast<std::size_t>(source)];
            }
        }
    }
    return roots;
}

int32_t chosenTactic(LayerRecord const& layer, std::span<std::string const> names) noexcept
{
    auto const count = static_cast<int32_t>(names.size());
    bool const inRange = layer.tactic >= 0 && layer.tactic < count;
    if (layer.tacticName.empty())
    {
        return inRange ? layer.tactic : 0;
    }
    if (inRange && names[static_cast<std::size_t>(layer.tactic)] == layer.tacticName)
    {
        return layer.tactic;
    }
    auto const found = std::find(names.begin(), names.end(), layer.tacticName);
    return found == names.end() ? 0 : static_cast<int32_t>(found - names.begin());
}

namespace
{

//! "[d0,d1,...]", or "[-]" for rank -1.
std::string dimsText(Dims const& dims)
{
    if (dims.nbDims < 0)
    {
        return "[-]";
    }
    std::string text = "[";
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        text += (i == 0 ? "" : ",") + std::to_string(dims.d[i]);
    }
    return text + "]";
}

//! The geometry a convolution's or deconvolution's kernels read (both parameter structs have these members).
template <typename Params>
std::string geometryText(Params const& p)
{
    return "maps " + std::to_string(p.nbOutputMaps) + " kernel " + dimsText(p.kernelSize) + " stride "
        + dimsText(p.stride) + " pre " + dimsText(p.prePadding) + " post " + dimsText(p.postPadding) + " dilation "
        + dimsText(p.dilation) + " padding " + std::to_string(static_cast<int32_t>(p.paddingMode)) + " groups "
        + std::to_string(p.nbGroups) + " weights " + std::to_string(static_cast<int32_t>(p.kernel.type)) + ":"
        + std::to_string(p.kernel.count) + " bias " + std::to_string(static_cast<int32_t>(p.bias.type)) + ":"
        + std::to_string(p.bias.count);
}

} // namespace

std::string tacticProblemText(LayerRecord const& layer, EngineModel const& model, std::span<Dims const> inputDims,
    Dims const& outputDims, std::span<std::string const> names)
{
    std::string text = "kiln layer " + std::to_string(static_cast<int32_t>(layer.type));
    if (auto const* convolution = std::get_if<ConvolutionParams>(&layer.params))
    {
        text += "|" + geometryText(*convolution);
    }
    else if (auto const* deconvolution = std::get_if<DeconvolutionParams>(&layer.params))
    {
        text += "|" + geometryText(*deconvolution);
    }
    else if (auto const* product = std::get_if<MatrixMultiplyParams>(&layer.params))
    {
        text += "|ops " + std::to_string(static_cast<int32_t>(product->ops[0])) + ","
            + std::to_string(static_cast<int32_t>(product->ops[1]));
    }
    if (layer.epilogue)
    {
        text += "|epilogue " + std::to_string(static_cast<int32_t>(layer.epilogue->type)) + " "
            + std::to_string(layer.epilogue->alpha) + " " + std::to_string(layer.epilogue->beta);
    }
    text += "|scale " + std::to_string(layer.scale);
    // A tensor as its kernels see it: type, format and extents ("-" for an absent optional input).
    auto const tensorText = [&](int32_t index, Dims const& dims) {
        if (index < 0 || static_cast<std::size_t>(index) >= model.tensors.size())
        {
            return std::string("-");
        }
        TensorRecord const& tensor = model.tensors[static_cast<std::size_t>(index)];
        return std::to_string(static_cast<int32_t>(tensor.type)) + ":"
            + std::to_string(static_cast<int32_t>(tensor.format)) + ":" + dimsText(dims);
    };
    for (std::size_t i = 0; i < layer.inputs.size(); ++i)
    {
        text += "|in " + tensorText(layer.inputs[i], i < inputDims.size() ? inputDims[i] : Dims{-1, {}});
    }
    for (int32_t const output : layer.outputs)
    {
        text += "|out " + tensorText(output, outputDims);
    }
    text += "|variants " + std::to_string(names.size());
    for (std::string const& name : names)
    {
        text += "|" + name;
    }
    return text;
}

} // namespace kiln
