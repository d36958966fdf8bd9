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

//! The multiple kHWC8 and kDHWC8 pad the channel dimension to (backends/host/reformat.h).
constexpr int64_t kChannelsLastVector = 8;

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

//! Whether tensor is a 16-bit activation of rank 4 or 5, still kLINEAR, that a channels-last format holds.
bool channelsLastCandidate(EngineModel const& model, int32_t tensor)
{
    if (!validTensor(model, tensor))
    {
        return false;
    }
    TensorRecord const& record = model.tensors[static_cast<std::size_t>(tensor)];
    std::size_t const rank = record.shape.size();
    return (record.type == DataType::kHALF || record.type == DataType::kBF16) && record.format == TensorFormat::kLINEAR
        && !record.isShapeTensor && (rank == 4 || rank == 5);
}

//! Whether layer is an eligible convolution (layout.h).
bool eligibleConvolution(EngineModel const& model, LayerRecord const& layer)
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
    if (!channelsLastCandidate(model, layer.inputs[0]) || !channelsLastCandidate(model, layer.outputs[0]))
    {
        return false;
    }
    TensorRecord const& in = model.tensors[static_cast<std::size_t>(layer.inputs[0])];
    TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
    std::size_t const rank = in.shape.size();
    if (in.type != out.type || out.shape.size() != rank || params->kernelSize.nbDims != static_cast<int32_t>(rank) - 2)
    {
        return false;
    }
    if (layer.inputs.size() > kConvolutionResidualInput)
    {
        // A fused residual: the output's type (the fusion checked its shape), linear until this pass chooses.
        int32_t const residual = layer.inputs[kConvolutionResidualInput];
        if (!channelsLastCandidate(model, residual)
            || model.tensors[static_cast<std::size_t>(residual)].type != out.type)
        {
            return false;
        }
    }
    // Input channels of any count (kHWC8 pads them to a multiple of 8), output maps a multiple of 8.
    std::optional<int64_t> const channels = constantExtent(model, in, 1);
    std::optional<int64_t> const maps = constantExtent(model, out, 1);
    if (!channels || !maps || *channels <= 0 || *maps <= 0 || *maps % 8 != 0 || *maps != params->nbOutputMaps)
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

//! Whether layer is an eligible pooling (layout.h).
bool eligiblePooling(EngineModel const& model, LayerRecord const& layer)
{
    auto const* params = std::get_if<PoolingParams>(&layer.params);
    if (layer.type != LayerType::kPOOLING || params == nullptr || !layer.pointwise.empty() || layer.epilogue
        || layer.scale != 1.F || layer.inputs.size() != 1 || layer.outputs.size() != 1
        || !channelsLastCandidate(model, layer.inputs[0]) || !channelsLastCandidate(model, layer.outputs[0]))
    {
        return false;
    }
    TensorRecord const& in = model.tensors[static_cast<std::size_t>(layer.inputs[0])];
    TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
    std::optional<int64_t> const channels = constantExtent(model, in, 1);
    return in.type == out.type && out.shape.size() == in.shape.size()
        && params->windowSize.nbDims == static_cast<int32_t>(in.shape.size()) - 2 && channels && *channels > 0;
}

//! What a layer is to the pass.
enum class Link : uint8_t
{
    kNONE,
    kCONVOLUTION,
    kPOOLING,
};

Link linkOf(EngineModel const& model, LayerRecord const& layer)
{
    if (eligibleConvolution(model, layer))
    {
        return Link::kCONVOLUTION;
    }
    return eligiblePooling(model, layer) ? Link::kPOOLING : Link::kNONE;
}

//! Whether input slot of a link reads a tensor of its output's layout: input 0, and a convolution's fused residual.
bool activationSlot(Link link, std::size_t slot)
{
    return slot == 0 || (link == Link::kCONVOLUTION && slot == kConvolutionResidualInput);
}

//! Which layers read each tensor, and as which input.
struct Reader
{
    std::size_t layer{};
    std::size_t slot{};
};

//! The interior tensors (layout.h) of model, given what each layer is.
std::vector<bool> interiorTensors(EngineModel const& model, std::vector<Link> const& links)
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
        if (tensor.isInput || tensor.isOutput || tensor.isDebug || pinned[t] || readers[t].empty() || producer < 0
            || static_cast<std::size_t>(producer) >= model.layers.size()
            || links[static_cast<std::size_t>(producer)] == Link::kNONE
            || model.layers[static_cast<std::size_t>(producer)].outputs.front() != static_cast<int32_t>(t))
        {
            continue;
        }
        interior[t] = std::all_of(readers[t].begin(), readers[t].end(), [&](Reader const& reader) {
            return links[reader.layer] != Link::kNONE && activationSlot(links[reader.layer], reader.slot);
        });
    }
    return interior;
}

//! The chains of model (layout.h): for each layer, whether it is a link of a chain of two links or more, one a
//! convolution or more.
std::vector<bool> chosenLinks(
    EngineModel const& model, std::vector<Link> const& links, std::vector<bool> const& interior)
{
    // Links joined by interior tensors, as disjoint sets; each root counts its set's links and convolutions.
    std::vector<std::size_t> parent(model.layers.size());
    for (std::size_t l = 0; l < parent.size(); ++l)
    {
        parent[l] = l;
    }
    auto const root = [&](std::size_t l) {
        while (parent[l] != l)
        {
            parent[l] = parent[parent[l]];
            l = parent[l];
        }
        return l;
    };
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t const input : model.layers[l].inputs)
        {
            if (validTensor(model, input) && interior[static_cast<std::size_t>(input)])
            {
                parent[root(l)]
                    = root(static_cast<std::size_t>(model.tensors[static_cast<std::size_t>(input)].producer));
            }
        }
    }
    std::vector<int32_t> members(model.layers.size(), 0);
    std::vector<int32_t> convolutions(model.layers.size(), 0);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        members[root(l)] += links[l] != Link::kNONE ? 1 : 0;
        convolutions[root(l)] += links[l] == Link::kCONVOLUTION ? 1 : 0;
    }
    std::vector<bool> chosen(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        chosen[l] = links[l] != Link::kNONE && members[root(l)] >= 2 && convolutions[root(l)] >= 1;
    }
    return chosen;
}

//! Stores a chosen convolution's kernel [K, C, spatial...] KRSC in type, its channels padded as kHWC8 pads the
//! input's (builder/weights_blobs.h).
void storeKernelChannelsLast(EngineModel& model, ConvolutionParams& params, DataType type, int64_t channels)
{
    int64_t const padded = (channels + kChannelsLastVector - 1) / kChannelsLastVector * kChannelsLastVector;
    int64_t const count = params.kernel.count / channels * padded;
    replaceWeights(model, params.kernel, type, kernelChannelsLast(params, params.kernel, type, padded), count);
}

} // namespace

int32_t chooseConvolutionLayouts(EngineModel& model, std::vector<int32_t>* twins, LayoutScope scope)
{
    if (model.backend != PlanBackend::kCUDA && scope != LayoutScope::kANY_BACKEND)
    {
        return 0;
    }
    std::vector<Link> links(model.layers.size(), Link::kNONE);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        links[l] = linkOf(model, model.layers[l]);
    }
    std::vector<bool> const interior = interiorTensors(model, links);
    std::vector<bool> const chosen = chosenLinks(model, links, interior);
    // An interior tensor of a chosen chain (its producer chosen, so its readers too).
    auto const isInterior = [&](int32_t tensor) {
        if (tensor < 0 || static_cast<std::size_t>(tensor) >= interior.size()
            || !interior[static_cast<std::size_t>(tensor)])
        {
            return false;
        }
        return chosen[static_cast<std::size_t>(model.tensors[static_cast<std::size_t>(tensor)].producer)];
    };
    int32_t nbChosen = 0;
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        nbChosen += chosen[l] && links[l] == Link::kCONVOLUTION ? 1 : 0;
    }
    if (nbChosen == 0)
    {
        return 0;
    }
    for (std::size_t t = 0; t < interior.size(); ++t)
    {
        if (isInterior(static_cast<int32_t>(t)))
        {
            model.tensors[t].format = channelsLastFormat(model.tensors[t].shape.size());
        }
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (chosen[l] && links[l] == Link::kCONVOLUTION)
        {
            LayerRecord& layer = model.layers[l];
            TensorRecord const& in = model.tensors[static_cast<std::size_t>(layer.inputs[0])];
            storeKernelChannelsLast(
                model, std::get<ConvolutionParams>(layer.params), in.type, constantExtent(model, in, 1).value_or(0));
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
        record.isDebug = false;
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
                if (!activationSlot(links[l], slot) || isInterior(input))
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
