// SPDX-License-Identifier: Apache-2.0
#include "plan/engine_model.h"

namespace kiln
{

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
    return Weights{blob.type, blob.bytes.data(), blob.count};
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

} // namespace kiln
