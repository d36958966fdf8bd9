// SPDX-License-Identifier: Apache-2.0
// The loops of an engine (ILoop): for each, its boundary layers and its body. The body is every layer that reads,
// directly or not, an output of one of the loop's iterators or recurrences, up to (and without) the loop's outputs;
// a layer that reads only values from outside the loop runs once, before it. The builder orders each loop's layers
// as one block (loopOrder), the memory plan keeps every tensor a block touches alive over the whole block, and the
// executor runs the block once per iteration (runtime/executor.h, "Loops").
//
//     Loops const loops = findLoops(model).value();
//     for (LoopBlock const& block : loops.blocks) { ... block.members, block.recurrences, ... }
#pragma once

#include "core/error.h"
#include "plan/engine_model.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! One loop: its layers by role, each list in execution order.
struct LoopBlock
{
    int32_t loop{};                   //!< The index the boundary layers' parameters name.
    std::vector<int32_t> members;     //!< Boundary and body layers.
    std::vector<int32_t> tripLimits;  //!< kTRIP_LIMIT layers (at most one kCOUNT and one kWHILE).
    std::vector<int32_t> iterators;   //!< kITERATOR layers.
    std::vector<int32_t> recurrences; //!< kRECURRENCE layers.
    std::vector<int32_t> outputs;     //!< kLOOP_OUTPUT layers.
    //! Body layers a kWHILE limit's condition depends on (they run before the condition is read each iteration).
    std::vector<int32_t> conditionLayers;
};

//! The loops of an engine; for an engine in loopOrder, each block's members are consecutive layers.
struct Loops
{
    std::vector<LoopBlock> blocks;
    std::vector<int32_t> layers; //!< Per layer: its block, or -1.
};

//! The loops of model. An error for a loop nested in another, or a kLAST_VALUE output that reads no recurrence of
//! its loop.
Expected<Loops> findLoops(EngineModel const& model);

//! A permutation of model's layers (new position i holds old layer order[i]) that keeps every layer after the
//! producers of its inputs (a recurrence's next value excepted) and each loop's members consecutive.
std::vector<int32_t> loopOrder(EngineModel const& model, Loops const& loops);

//! Whether input index of layer is a recurrence's next value: the loop's back edge.
inline bool isLoopBackEdge(LayerRecord const& layer, std::size_t index) noexcept
{
    return layer.type == LayerType::kRECURRENCE && index == 1;
}

} // namespace kiln
