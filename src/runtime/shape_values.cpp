// SPDX-License-Identifier: Apache-2.0
#include "runtime/shape_values.h"

#include "backends/host/layer_kinds.h"
#include "plan/loops.h"
#include "runtime/branches.h"

#include <algorithm>

namespace kiln
{

namespace
{

//! Per expression of model: 1 when it is known before any layer runs (constants, input extents and input shape
//! tensors' values, and operations on those).
std::vector<uint8_t> knownBeforeRunning(EngineModel const& model)
{
    std::size_t const nbTensors = model.tensors.size();
    std::vector<uint8_t> known(model.exprs.size(), 0);
    for (std::size_t i = 0; i < model.exprs.size(); ++i)
    {
        ExprRecord const& record = model.exprs[i];
        switch (record.kind)
        {
        case DimExpr::Kind::kCONSTANT: known[i] = 1; break;
        case DimExpr::Kind::kSYMBOL:
            if (record.symbol < model.symbols.size())
            {
                SymbolRecord const& symbol = model.symbols[record.symbol];
                bool const ofInput = symbol.tensor >= 0 && static_cast<std::size_t>(symbol.tensor) < nbTensors
                    && model.tensors[static_cast<std::size_t>(symbol.tensor)].isInput;
                known[i]
                    = symbol.kind == SymbolKind::kINPUT_EXTENT || (symbol.kind == SymbolKind::kSHAPE_VALUE && ofInput);
            }
            break;
        case DimExpr::Kind::kOPERATION:
            known[i] = record.lhs < i && record.rhs < i && known[record.lhs] != 0 && known[record.rhs] != 0;
            break;
        default: break;
        }
    }
    return known;
}

//! Whether every extent of tensor is known before any layer runs (known: knownBeforeRunning).
bool shapeKnownBeforeRunning(EngineModel const& model, std::vector<uint8_t> const& known, int32_t tensor)
{
    auto const& shape = model.tensors[static_cast<std::size_t>(tensor)].shape;
    return std::all_of(
        shape.begin(), shape.end(), [&](uint32_t extent) { return extent < known.size() && known[extent] != 0; });
}

bool identityOrder(nvinfer1::Permutation const& order)
{
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        if (order.order[i] != i)
        {
            return false;
        }
    }
    return true;
}

} // namespace

bool deterministicKind(LayerRecord const& layer)
{
    switch (layer.type)
    {
    case LayerType::kSHAPE:
    case LayerType::kCONSTANT:
    case LayerType::kCAST:
    case LayerType::kCONCATENATION:
    case LayerType::kELEMENTWISE:
    case LayerType::kUNARY:
    case LayerType::kSHUFFLE:
    case LayerType::kREDUCE:
    case LayerType::kGATHER:
    case LayerType::kIDENTITY:
    case LayerType::kSLICE:
    case LayerType::kSELECT:
    case LayerType::kCUMULATIVE: return true;
    case LayerType::kFILL:
    {
        auto const* fill = std::get_if<FillParams>(&layer.params);
        return fill != nullptr && fill->op == nvinfer1::FillOperation::kLINSPACE;
    }
    default: return false;
    }
}

std::vector<uint8_t> shapeValueCandidates(EngineModel const& model)
{
    std::size_t const nbTensors = model.tensors.size();
    std::vector<uint8_t> candidates(model.layers.size(), 0);

    std::vector<uint8_t> const known = knownBeforeRunning(model);
    auto const shapeKnown = [&](int32_t tensor) { return shapeKnownBeforeRunning(model, known, tensor); };

    // Tensors written in place by a plugin (their memory is another tensor's): never cached.
    std::vector<int32_t> const roots = aliasRoots(model);
    std::vector<uint8_t> aliased(nbTensors, 0);
    for (std::size_t t = 0; t < roots.size() && t < nbTensors; ++t)
    {
        if (roots[t] >= 0 && roots[t] != static_cast<int32_t>(t))
        {
            aliased[static_cast<std::size_t>(roots[t])] = 1;
        }
    }
    Branches const branches = findBranches(model);
    auto const loops = findLoops(model);

    // Tensors whose values depend only on input shapes: input shape tensors, then the candidates' outputs.
    std::vector<uint8_t> values(nbTensors, 0);
    for (std::size_t t = 0; t < nbTensors; ++t)
    {
        TensorRecord const& tensor = model.tensors[t];
        values[t] = tensor.isInput && tensor.isShapeTensor && tensor.producer < 0;
    }
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        bool const inLoop = !loops || (l < loops.value().layers.size() && loops.value().layers[l] >= 0);
        bool const inBranch = l < branches.layers.size() && branches.layers[l] >= 0;
        if (!deterministicKind(layer) || inLoop || inBranch || layer.fused || !layer.pointwise.empty() || layer.epilogue
            || layer.outputs.empty() || layer.params.valueless_by_exception())
        {
            continue;
        }
        bool ok = std::all_of(layer.outputs.begin(), layer.outputs.end(), [&](int32_t output) {
            auto const t = static_cast<std::size_t>(output);
            TensorRecord const& tensor = model.tensors[t];
            return !tensor.isOutput && aliased[t] == 0 && tensor.format == nvinfer1::TensorFormat::kLINEAR
                && shapeKnown(output);
        });
        for (std::size_t i = 0; ok && i < layer.inputs.size(); ++i)
        {
            int32_t const input = layer.inputs[i];
            if (input == kNoTensor)
            {
                continue;
            }
            ok = host::inputUse(layer.params, i) == host::InputUse::kSHAPE
                ? shapeKnown(input)
                : values[static_cast<std::size_t>(input)] != 0;
        }
        if (!ok)
        {
            continue;
        }
        candidates[l] = 1;
        for (int32_t output : layer.outputs)
        {
            values[static_cast<std::size_t>(output)] = 1;
        }
    }
    return candidates;
}

std::vector<uint8_t> reshapeViews(EngineModel const& model)
{
    std::vector<uint8_t> views(model.layers.size(), 0);
    // Control flow, data-dependent outputs and plugins (which may write in place, or size their outputs at run time)
    // leave every reshape a copy.
    for (LayerRecord const& layer : model.layers)
    {
        switch (layer.type)
        {
        case LayerType::kRECURRENCE:
        case LayerType::kITERATOR:
        case LayerType::kTRIP_LIMIT:
        case LayerType::kLOOP_OUTPUT:
        case LayerType::kCONDITION:
        case LayerType::kCONDITIONAL_INPUT:
        case LayerType::kCONDITIONAL_OUTPUT:
        case LayerType::kNON_ZERO:
        case LayerType::kNMS:
        case LayerType::kPLUGIN:
        case LayerType::kPLUGIN_V2:
        case LayerType::kPLUGIN_V3: return views;
        default: break;
        }
    }
    std::vector<uint8_t> const candidates = shapeValueCandidates(model);
    std::vector<uint8_t> const known = knownBeforeRunning(model);
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        auto const* shuffle = std::get_if<ShuffleParams>(&layer.params);
        if (layer.type != LayerType::kSHUFFLE || shuffle == nullptr || layer.fused || !layer.pointwise.empty()
            || layer.epilogue || layer.inputs.empty() || layer.inputs.size() > 2 || layer.outputs.size() != 1
            || layer.inputs[0] == kNoTensor || candidates[l] != 0 || !identityOrder(shuffle->firstTranspose)
            || !identityOrder(shuffle->secondTranspose))
        {
            continue;
        }
        TensorRecord const& in = model.tensors[static_cast<std::size_t>(layer.inputs[0])];
        TensorRecord const& out = model.tensors[static_cast<std::size_t>(layer.outputs[0])];
        bool const made
            = in.producer >= 0 && model.layers[static_cast<std::size_t>(in.producer)].type != LayerType::kCONSTANT;
        views[l] = made && !in.isInput && !in.isOutput && !out.isOutput && !out.isDebug && !out.isShapeTensor
            && in.type == out.type && in.scale == out.scale && in.format == nvinfer1::TensorFormat::kLINEAR
            && out.format == in.format && shapeKnownBeforeRunning(model, known, layer.inputs[0])
            && shapeKnownBeforeRunning(model, known, layer.outputs[0]);
    }
    return views;
}

std::vector<int32_t> memoryRoots(EngineModel const& model)
{
    std::vector<int32_t> roots = aliasRoots(model);
    // Layers run in order, so a view's input has its root before the view is looked at.
    for (LayerRecord const& layer : model.layers)
    {
        if (layer.viewsInput && layer.outputs.size() == 1 && !layer.inputs.empty() && layer.inputs[0] != kNoTensor)
        {
            roots[static_cast<std::size_t>(layer.outputs[0])] = roots[static_cast<std::size_t>(layer.inputs[0])];
        }
    }
    return roots;
}

} // namespace kiln
