// SPDX-License-Identifier: Apache-2.0
#include "builder/fusion_graph.h"
#include "plan/loops.h"
#include "runtime/branches.h"

#include "core/float_convert.h"

#include <cstring>
#include <utility>

namespace kiln
{

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
        // A debug tensor is read by the application (IDebugListener), as an output is: no rewrite absorbs it.
        readers.pinned[t] = model.tensors[t].isOutput || model.tensors[t].isInput || model.tensors[t].isDebug;
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

std::optional<std::vector<uint8_t>> fixedLayers(EngineModel const& model, bool assertionsMove)
{
    auto const loops = findLoops(model);
    if (!loops)
    {
        return std::nullopt;
    }
    Branches const branches = findBranches(model);
    std::vector<uint8_t> fixed(model.layers.size(), 0);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        bool const inLoop = l < loops.value().layers.size() && loops.value().layers[l] >= 0;
        bool const inBranch = l < branches.layers.size() && branches.layers[l] >= 0;
        fixed[l] = inLoop || inBranch ? 1 : 0;
    }
    for (AssertionRecord const& assertion : model.assertions)
    {
        if (!assertionsMove && assertion.layer >= 0 && static_cast<std::size_t>(assertion.layer) < fixed.size())
        {
            fixed[static_cast<std::size_t>(assertion.layer)] = 1;
        }
    }
    return fixed;
}

int32_t soleReader(Readers const& readers, int32_t tensor)
{
    auto const t = static_cast<std::size_t>(tensor);
    if (readers.pinned[t] || readers.layers[t].size() != 1)
    {
        return -1;
    }
    return readers.layers[t].front();
}

bool sameTensorShape(TensorRecord const& a, TensorRecord const& b)
{
    return a.type == b.type && a.scale == b.scale && a.format == b.format && a.shape == b.shape;
}

bool scaled(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

bool pointwiseType(DataType type)
{
    return type == DataType::kFLOAT || type == DataType::kHALF || type == DataType::kBF16;
}

void keepLayers(EngineModel& model, std::vector<int32_t> const& sequence, std::vector<int32_t> const& movedTo)
{
    std::vector<int32_t> newIndex(model.layers.size(), -1);
    std::vector<LayerRecord> kept;
    kept.reserve(sequence.size());
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
        if (newIndex[l] >= 0)
        {
            return newIndex[l];
        }
        return movedTo[l] >= 0 ? newIndex[static_cast<std::size_t>(movedTo[l])] : -1;
    };
    model.layers = std::move(kept);
    for (TensorRecord& tensor : model.tensors)
    {
        tensor.producer = -1;
    }
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
}

int32_t producerOf(EngineModel const& model, int32_t tensor)
{
    return tensor == kNoTensor ? -1 : model.tensors[static_cast<std::size_t>(tensor)].producer;
}

bool sameExtent(EngineModel const& model, uint32_t a, uint32_t b)
{
    ExprRecord const& x = model.exprs[a];
    ExprRecord const& y = model.exprs[b];
    return a == b || (x.kind == DimExpr::Kind::kCONSTANT && y.kind == DimExpr::Kind::kCONSTANT && x.value == y.value);
}

std::optional<int64_t> constantExtent(EngineModel const& model, uint32_t expr)
{
    ExprRecord const& record = model.exprs[expr];
    return record.kind == DimExpr::Kind::kCONSTANT ? std::optional<int64_t>(record.value) : std::nullopt;
}

TensorRecord const& tensorAt(EngineModel const& model, int32_t tensor)
{
    return model.tensors[static_cast<std::size_t>(tensor)];
}

LayerRecord const& layerAt(EngineModel const& model, int32_t layer)
{
    return model.layers[static_cast<std::size_t>(layer)];
}

bool plainLayer(LayerRecord const& layer)
{
    return !layer.fused && layer.pointwise.empty() && !layer.epilogue && layer.scale == 1.F && layer.tactic == 0
        && layer.outputs.size() == 1;
}

std::optional<nvinfer1::ElementWiseOperation> elementWiseOp(LayerRecord const& layer)
{
    auto const* params = std::get_if<ElementWiseParams>(&layer.params);
    if (params == nullptr || !plainLayer(layer) || layer.inputs.size() != 2)
    {
        return std::nullopt;
    }
    return params->op;
}

std::optional<float> scalarConstant(EngineModel const& model, int32_t tensor)
{
    int32_t const producer = model.tensors[static_cast<std::size_t>(tensor)].producer;
    if (producer < 0)
    {
        return std::nullopt;
    }
    if (model.refit.mode == RefitRecord::Mode::kREFIT && model.layers[static_cast<std::size_t>(producer)].refit[0] >= 0)
    {
        return std::nullopt;
    }
    auto const* constant = std::get_if<ConstantParams>(&model.layers[static_cast<std::size_t>(producer)].params);
    if (constant == nullptr || constant->weights.count != 1 || constant->weights.values == nullptr)
    {
        return std::nullopt;
    }
    switch (constant->weights.type)
    {
    case DataType::kFLOAT:
    {
        float value{};
        std::memcpy(&value, constant->weights.values, sizeof(value));
        return value;
    }
    case DataType::kHALF:
    case DataType::kBF16:
    {
        uint16_t bits{};
        std::memcpy(&bits, constant->weights.values, sizeof(bits));
        return constant->weights.type == DataType::kHALF ? halfToFloat(bits) : bf16ToFloat(bits);
    }
    default: return std::nullopt;
    }
}

int32_t applyKernelFusions(EngineModel& model, std::vector<KernelFusion> const& fusions)
{
    if (fusions.empty())
    {
        return 0;
    }
    std::size_t const nbLayers = model.layers.size();
    std::vector<int32_t> movedTo(nbLayers, -1);
    std::vector<int32_t> placedAt(nbLayers, -1); // Old position -> the fused layer that runs there.
    std::vector<bool> skipped(nbLayers, false);
    for (KernelFusion const& fusion : fusions)
    {
        LayerRecord& layer = model.layers[static_cast<std::size_t>(fusion.layer)];
        model.tensors[static_cast<std::size_t>(layer.outputs.front())].producer = -1;
        layer.inputs = fusion.inputs;
        layer.outputs = {fusion.output};
        layer.fused = fusion.kernel;
        for (int32_t absorbed : fusion.absorbed)
        {
            movedTo[static_cast<std::size_t>(absorbed)] = fusion.layer;
            skipped[static_cast<std::size_t>(absorbed)] = true;
        }
        skipped[static_cast<std::size_t>(fusion.layer)] = true;
        placedAt[static_cast<std::size_t>(fusion.position)] = fusion.layer;
    }
    std::vector<int32_t> sequence;
    for (std::size_t l = 0; l < nbLayers; ++l)
    {
        if (placedAt[l] >= 0)
        {
            sequence.push_back(placedAt[l]);
        }
        if (!skipped[l])
        {
            sequence.push_back(static_cast<int32_t>(l));
        }
    }
    auto const removed = static_cast<int32_t>(nbLayers - sequence.size());
    keepLayers(model, sequence, movedTo);
    return removed;
}

} // namespace kiln
