// SPDX-License-Identifier: Apache-2.0
#include "builder/layout.h"

#include "backends/host/reformat.h"
#include "builder/build_passes.h"
#include "builder/weights_blobs.h"
#include "core/data_type.h"
#include "plan/refit.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace kiln
{
namespace
{

using nvinfer1::TensorFormat;

//! The channels-last format of a convolution tensor of rank (4: 2-D, 5: 3-D).
TensorFormat channelsLastFormat(std::size_t rank)
{
    return rank == 5 ? TensorFormat::kDHWC8 : TensorFormat::kHWC8;
}

//! Extent axis of tensor when its expression is a constant.
std::optional<int64_t> constantExtent(EngineModel const& model, TensorRecord const& tensor, std::size_t axis)
{
    if (axis >= tensor.shape.size() || tensor.shape[axis] >= model.exprs.size())
    {
        return std::nullopt;
    }
    ExprRecord const& expr = model.exprs[tensor.shape[axis]];
    return expr.kind == DimExpr::Kind::kCONSTANT ? std::optional(expr.value) : std::nullopt;
}

bool validTensor(EngineModel const& model, int32_t tensor)
{
    return tensor >= 0 && static_cast<std::size_t>(tensor) < model.tensors.size();
}

//! Whether layer is an eligible convolution (layout.h).
bool eligible(EngineModel const& model, LayerRecord const& layer)
{
    auto const* params = std::get_if<ConvolutionParams>(&layer.params);
    if (layer.type != LayerType::kCONVOLUTION || params == nullptr || !layer.pointwise.empty() || layer.inputs.empty()
        || layer.outputs.size() != 1 || params->nbGroups != 1 || params->kernel.count <= 0
        || params->kernel.values == nullptr || (layer.inputs.size() > 1 && layer.inputs[1] != kNoTensor)
        || layer.inputs.size() > kConvolutionResidualInput + 1)
    {
        return false;
    }
    DataType const kernelType = params->kernel.type;
    if (kernelType != DataType::kFLOAT && kernelType != DataType::kHALF && kernelType != DataType::kBF16)
    {
        return false;
    }
    if (!validTensor(model, layer.inputs[0]) || !validTensor(model, layer.outputs[0]))
    {
        return false;
    }
    TensorRecord const& in = model.tensors[static_cast<std::size_t>(layer.inputs[0])];
    TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
    std::size_t const rank = in.shape.size();
    if (in.type != out.type || (in.type != DataType::kHALF && in.type != DataType::kBF16)
        || in.format != TensorFormat::kLINEAR || out.format != TensorFormat::kLINEAR || in.isShapeTensor
        || out.isShapeTensor || (rank != 4 && rank != 5) || out.shape.size() != rank
        || params->kernelSize.nbDims != static_cast<int32_t>(rank) - 2)
    {
        return false;
    }
    if (layer.inputs.size() > kConvolutionResidualInput)
    {
        // A fused residual: the output's type (the fusion checked its shape), linear until this pass chooses.
        int32_t const residual = layer.inputs[kConvolutionResidualInput];
        if (!validTensor(model, residual) || model.tensors[static_cast<std::size_t>(residual)].type != out.type
            || model.tensors[static_cast<std::size_t>(residual)].format != TensorFormat::kLINEAR
            || model.tensors[static_cast<std::size_t>(residual)].isShapeTensor)
        {
            return false;
        }
    }
    std::optional<int64_t> const channels = constantExtent(model, in, 1);
    std::optional<int64_t> const maps = constantExtent(model, out, 1);
    if (!channels || !maps || *channels <= 0 || *maps <= 0 || *channels % 8 != 0 || *maps % 8 != 0
        || *maps != params->nbOutputMaps)
    {
        return false;
    }
    // The kernel must be the [K, C, spatial...] the transposition reads.
    int64_t count = *maps * *channels;
    for (int32_t i = 0; i < params->kernelSize.nbDims; ++i)
    {
        count *= params->kernelSize.d[i];
    }
    return count == params->kernel.count;
}

//! Whether input slot of a convolution reads a tensor of its output's layout: input 0 and a fused residual.
bool activationSlot(std::size_t slot)
{
    return slot == 0 || slot == kConvolutionResidualInput;
}

//! Which layers read each tensor, and as which input.
struct Reader
{
    std::size_t layer{};
    std::size_t slot{};
};

//! The interior tensors (layout.h) of model, given which layers are eligible.
std::vector<bool> interiorTensors(EngineModel const& model, std::vector<bool> const& convolution)
{
    std::vector<std::vector<Reader>> readers(model.tensors.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        std::vector<int32_t> const& inputs = model.layers[l].inputs;
        for (std::size_t i = 0; i < inputs.size(); ++i)
        {
            if (validTensor(model, inputs[i]))
            {
                readers[static_cast<std::size_t>(inputs[i])].push_back(Reader{l, i});
            }
        }
    }
    std::vector<bool> pinned(model.tensors.size(), false); // read by a symbol
    for (SymbolRecord const& symbol : model.symbols)
    {
        if (validTensor(model, symbol.tensor))
        {
            pinned[static_cast<std::size_t>(symbol.tensor)] = true;
        }
    }
    std::vector<bool> interior(model.tensors.size(), false);
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        TensorRecord const& tensor = model.tensors[t];
        int32_t const producer = tensor.producer;
        if (tensor.isInput || tensor.isOutput || pinned[t] || readers[t].empty() || producer < 0
            || static_cast<std::size_t>(producer) >= model.layers.size()
            || !convolution[static_cast<std::size_t>(producer)]
            || model.layers[static_cast<std::size_t>(producer)].outputs.front() != static_cast<int32_t>(t))
        {
            continue;
        }
        interior[t] = std::all_of(readers[t].begin(), readers[t].end(),
            [&](Reader const& reader) { return convolution[reader.layer] && activationSlot(reader.slot); });
    }
    return interior;
}

//! Stores a chosen convolution's kernel [K, C, spatial...] KRSC in type (builder/weights_blobs.h).
void storeKernelChannelsLast(EngineModel& model, ConvolutionParams& params, DataType type)
{
    replaceWeights(model, params.kernel, type, kernelChannelsLast(params, params.kernel, type));
}

} // namespace

int32_t chooseConvolutionLayouts(EngineModel& model, std::vector<int32_t>* twins)
{
    if (model.backend != PlanBackend::kCUDA)
    {
        return 0;
    }
    std::vector<bool> convolution(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        convolution[l] = eligible(model, model.layers[l]);
    }
    std::vector<bool> const interior = interiorTensors(model, convolution);
    auto const isInterior = [&](int32_t tensor) {
        return tensor >= 0 && static_cast<std::size_t>(tensor) < interior.size()
            && interior[static_cast<std::size_t>(tensor)];
    };

    // Chosen: an eligible convolution linked to another through an interior tensor.
    std::vector<bool> chosen(model.layers.size(), false);
    int32_t nbChosen = 0;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        bool const residualInterior
            = layer.inputs.size() > kConvolutionResidualInput && isInterior(layer.inputs[kConvolutionResidualInput]);
        chosen[l] = convolution[l] && (isInterior(layer.inputs[0]) || isInterior(layer.outputs[0]) || residualInterior);
        nbChosen += chosen[l] ? 1 : 0;
    }
    if (nbChosen == 0)
    {
        return 0;
    }
    for (std::size_t t = 0; t < interior.size(); ++t)
    {
        if (interior[t])
        {
            model.tensors[t].format = channelsLastFormat(model.tensors[t].shape.size());
        }
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (chosen[l])
        {
            LayerRecord& layer = model.layers[l];
            DataType const type = model.tensors[static_cast<std::size_t>(layer.inputs[0])].type;
            storeKernelChannelsLast(model, std::get<ConvolutionParams>(layer.params), type);
        }
    }

    // The twins of the boundary tensors, and the reformat layers that make them.
    std::size_t const nbOriginal = model.tensors.size();
    std::vector<int32_t> twinOf(nbOriginal, kNoTensor);
    auto const addTwin = [&](int32_t tensor) {
        TensorRecord record = model.tensors[static_cast<std::size_t>(tensor)];
        record.format = channelsLastFormat(record.shape.size());
        record.name += std::string(" (") + host::formatName(record.format) + ")";
        record.isInput = false;
        record.isOutput = false;
        record.isShapeTensor = false;
        model.tensors.push_back(std::move(record));
        if (twins != nullptr)
        {
            twins->push_back(tensor);
        }
        auto const twin = static_cast<int32_t>(model.tensors.size() - 1);
        twinOf[static_cast<std::size_t>(tensor)] = twin;
        return twin;
    };
    std::vector<LayerRecord> layers;
    std::vector<int32_t> newIndex(model.layers.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& layer = model.layers[l];
        std::optional<LayerRecord> after;
        if (chosen[l])
        {
            // Input 0 and a fused residual read the twin of a tensor that is not interior.
            for (std::size_t slot = 0; slot < layer.inputs.size(); ++slot)
            {
                int32_t& input = layer.inputs[slot];
                if (!activationSlot(slot) || isInterior(input))
                {
                    continue;
                }
                int32_t twin = twinOf[static_cast<std::size_t>(input)];
                if (twin == kNoTensor)
                {
                    twin = addTwin(input);
                    std::string const format = host::formatName(model.tensors[static_cast<std::size_t>(twin)].format);
                    layers.push_back(
                        identityLayer(layer.name + " input " + std::to_string(slot) + " to " + format, input, twin));
                }
                input = twin;
            }
            int32_t& output = layer.outputs[0];
            if (!isInterior(output))
            {
                int32_t const twin = addTwin(output);
                std::string const format = host::formatName(model.tensors[static_cast<std::size_t>(twin)].format);
                after = identityLayer(layer.name + " output 0 from " + format, twin, output);
                output = twin;
            }
        }
        newIndex[l] = static_cast<int32_t>(layers.size());
        layers.push_back(std::move(layer));
        if (after)
        {
            layers.push_back(std::move(*after));
        }
    }
    model.layers = std::move(layers);

    // Producers and assertions follow the layers' new places.
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t output : model.layers[l].outputs)
        {
            if (validTensor(model, output))
            {
                model.tensors[static_cast<std::size_t>(output)].producer = static_cast<int32_t>(l);
            }
        }
    }
    for (AssertionRecord& assertion : model.assertions)
    {
        if (assertion.layer >= 0 && static_cast<std::size_t>(assertion.layer) < newIndex.size())
        {
            assertion.layer = newIndex[static_cast<std::size_t>(assertion.layer)];
        }
    }
    return nbChosen;
}

} // namespace kiln
