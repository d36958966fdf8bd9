// SPDX-License-Identifier: Apache-2.0
#include "builder/fusion.h"

#include "core/data_type.h"

#include <algorithm>
#include <vector>

namespace kiln
{
namespace
{

//! Who reads each tensor: layers (by index), network outputs, symbols.
struct Readers
{
    std::vector<std::vector<int32_t>> layers;
    std::vector<bool> pinned; //!< A network output, or read by a symbol.
};

Readers readersOf(EngineModel const& model)
{
    Readers readers;
    readers.layers.resize(model.tensors.size());
    readers.pinned.assign(model.tensors.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t input : model.layers[l].inputs)
        {
            if (input != kNoTensor)
            {
                readers.layers[static_cast<std::size_t>(input)].push_back(static_cast<int32_t>(l));
            }
        }
    }
    for (std::size_t t = 0; t < model.tensors.size(); ++t)
    {
        readers.pinned[t] = model.tensors[t].isOutput || model.tensors[t].isInput;
    }
    for (SymbolRecord const& symbol : model.symbols)
    {
        if (symbol.tensor != kNoTensor)
        {
            readers.pinned[static_cast<std::size_t>(symbol.tensor)] = true;
        }
    }
    return readers;
}

//! The one layer that reads tensor, when nothing else does; -1 otherwise.
int32_t soleReader(Readers const& readers, int32_t tensor)
{
    auto const t = static_cast<std::size_t>(tensor);
    if (readers.pinned[t] || readers.layers[t].size() != 1)
    {
        return -1;
    }
    return readers.layers[t].front();
}

//! Whether two tensors have the same type, scale, format and shape expressions.
bool sameTensorShape(TensorRecord const& a, TensorRecord const& b)
{
    return a.type == b.type && a.scale == b.scale && a.format == b.format && a.shape == b.shape;
}

//! Whether a type's values are stored quantized (an epilogue would skip the intermediate quantization).
bool scaled(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

} // namespace

int32_t fuseEpilogues(EngineModel& model)
{
    Readers const readers = readersOf(model);
    std::vector<int32_t> absorbedInto(model.layers.size(), -1);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord& layer = model.layers[l];
        bool const matrix = layer.type == LayerType::kMATRIX_MULTIPLY;
        if ((!matrix && layer.type != LayerType::kCONVOLUTION) || layer.outputs.size() != 1 || absorbedInto[l] >= 0)
        {
            continue;
        }
        auto const absorb = [&](int32_t next) {
            absorbedInto[static_cast<std::size_t>(next)] = static_cast<int32_t>(l);
            model.tensors[static_cast<std::size_t>(layer.outputs[0])].producer = -1;
            layer.outputs = model.layers[static_cast<std::size_t>(next)].outputs;
        };
        // Matrix multiply + bias: out = a·b + c, c added without changing out's shape.
        if (matrix && layer.inputs.size() == 2)
        {
            int32_t const next = soleReader(readers, layer.outputs[0]);
            if (next >= 0)
            {
                LayerRecord const& sum = model.layers[static_cast<std::size_t>(next)];
                auto const* params = std::get_if<ElementWiseParams>(&sum.params);
                if (params != nullptr && params->op == nvinfer1::ElementWiseOperation::kSUM && sum.inputs.size() == 2
                    && sum.outputs.size() == 1)
                {
                    int32_t const product = layer.outputs[0];
                    int32_t const bias = sum.inputs[0] == product ? sum.inputs[1] : sum.inputs[0];
                    TensorRecord const& out = model.tensors[static_cast<std::size_t>(product)];
                    TensorRecord const& biasTensor = model.tensors[static_cast<std::size_t>(bias)];
                    TensorRecord const& made = model.tensors[static_cast<std::size_t>(sum.outputs[0])];
                    // The bias must exist when the matrix multiply runs: made before it, or by a layer without
                    // inputs (a constant), which the renumbering below moves before it.
                    int32_t const biasProducer = biasTensor.producer;
                    bool const available = biasProducer < static_cast<int32_t>(l)
                        || model.layers[static_cast<std::size_t>(biasProducer)].inputs.empty();
                    if (bias != product && available && sameTensorShape(out, made) && biasTensor.type == out.type
                        && biasTensor.format == nvinfer1::TensorFormat::kLINEAR && !scaled(out.type))
                    {
                        layer.inputs.push_back(bias);
                        absorb(next);
                    }
                }
            }
        }
        // + activation.
        int32_t const next = soleReader(readers, layer.outputs[0]);
        if (next >= 0)
        {
            LayerRecord const& activation = model.layers[static_cast<std::size_t>(next)];
            auto const* params = std::get_if<ActivationParams>(&activation.params);
            if (params != nullptr && activation.outputs.size() == 1
                && sameTensorShape(model.tensors[static_cast<std::size_t>(layer.outputs[0])],
                    model.tensors[static_cast<std::size_t>(activation.outputs[0])])
                && !scaled(model.tensors[static_cast<std::size_t>(layer.outputs[0])].type))
            {
                layer.epilogue = *params;
                absorb(next);
            }
        }
    }

    // The new order: the layers kept, each fused bias made by a layer without inputs (a constant) moved to just before
    // the matrix multiply that now reads it, if it came after.
    std::vector<int32_t> sequence;
    std::vector<bool> placed(model.layers.size(), false);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        if (absorbedInto[l] >= 0 || placed[l])
        {
            continue;
        }
        LayerRecord const& layer = model.layers[l];
        if (layer.type == LayerType::kMATRIX_MULTIPLY && layer.inputs.size() > 2)
        {
            int32_t const producer = model.tensors[static_cast<std::size_t>(layer.inputs[2])].producer;
            if (producer > static_cast<int32_t>(l) && !placed[static_cast<std::size_t>(producer)]
                && model.layers[static_cast<std::size_t>(producer)].inputs.empty())
            {
                sequence.push_back(producer);
                placed[static_cast<std::size_t>(producer)] = true;
            }
        }
        sequence.push_back(static_cast<int32_t>(l));
        placed[l] = true;
    }
    auto const removed = static_cast<int32_t>(model.layers.size() - sequence.size());
    bool const moved = !std::is_sorted(sequence.begin(), sequence.end());
    if (removed == 0 && !moved)
    {
        return 0;
    }
    std::vector<int32_t> newIndex(model.layers.size(), -1);
    std::vector<LayerRecord> kept;
    for (int32_t old : sequence)
    {
        newIndex[static_cast<std::size_t>(old)] = static_cast<int32_t>(kept.size());
        kept.push_back(std::move(model.layers[static_cast<std::size_t>(old)]));
    }
    auto const renumber = [&](int32_t layer) {
        if (layer < 0 || static_cast<std::size_t>(layer) >= newIndex.size())
        {
            return layer;
        }
        auto const l = static_cast<std::size_t>(layer);
        return absorbedInto[l] >= 0 ? newIndex[static_cast<std::size_t>(absorbedInto[l])] : newIndex[l];
    };
    model.layers = std::move(kept);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        for (int32_t output : model.layers[l].outputs)
        {
            model.tensors[static_cast<std::size_t>(output)].producer = static_cast<int32_t>(l);
        }
    }
    for (AssertionRecord& assertion : model.assertions)
    {
        assertion.layer = renumber(assertion.layer);
    }
    return removed;
}

} // namespace kiln
