// SPDX-License-Identifier: Apache-2.0
// Where each tensor of an engine model is read, for the passes that walk the graph forward (plan/loops.h derives a
// loop's body, runtime/branches.h the layers under each branch).
//
//     auto const readers = tensorReaders(model);
//     for (auto const& [layer, input] : readers[t]) { /* model.layers[layer] reads t at input */ }
#pragma once

#include "plan/engine_model.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace kiln
{

//! For each tensor of model, where it is read: (layer index, input index) pairs in layer order.
inline std::vector<std::vector<std::pair<std::size_t, std::size_t>>> tensorReaders(EngineModel const& model)
{
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> readers(model.tensors.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l)
    {
        LayerRecord const& layer = model.layers[l];
        for (std::size_t i = 0; i < layer.inputs.size(); ++i)
        {
            if (layer.inputs[i] >= 0 && static_cast<std::size_t>(layer.inputs[i]) < readers.size())
            {
                readers[static_cast<std::size_t>(layer.inputs[i])].emplace_back(l, i);
            }
        }
    }
    return readers;
}

} // namespace kiln
