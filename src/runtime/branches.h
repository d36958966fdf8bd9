// SPDX-License-Identifier: Apache-2.0
// Which layers of an engine belong to a branch of an if-conditional, so that only the chosen branch runs. Membership
// follows from the graph: a layer belongs to a branch when everything that reads its outputs does so under that
// branch. An output layer of a conditional reads input 0 under the true branch and input 1 under the false one, each
// nested in whatever the output layer itself runs under; a layer read under several branches runs under their closest
// common enclosing branch; a network output, or a layer nothing reads, always runs. A layer that runs before the
// condition of its branch is known (the engine orders layers by their data only) is moved out of that branch: it
// runs whenever the branch around it does, which changes nothing but the work done.
//
//     Branches const branches = findBranches(model);
//     int32_t node = branches.layers[l];   // -1: the layer always runs
//     while (node >= 0) { BranchNode const& b = branches.nodes[node]; ... b.condition, b.onTrue ...; node = b.parent; }
#pragma once

#include "plan/engine_model.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! One branch: the layers under it run when the condition tensor's value is onTrue and the parent branch runs.
struct BranchNode
{
    int32_t condition{kNoTensor}; //!< The condition layer's output (the output layers' input 2).
    bool onTrue{};
    int32_t parent{-1}; //!< The enclosing branch, or -1.

    bool operator==(BranchNode const&) const = default;
};

//! The branches of an engine and the branch each layer runs under.
struct Branches
{
    std::vector<BranchNode> nodes; //!< Parents come before their children.
    std::vector<int32_t> layers;   //!< Per layer: its innermost branch, or -1 when it always runs.
};

//! The branches of model's if-conditionals (none for an engine without kCONDITIONAL_OUTPUT layers).
Branches findBranches(EngineModel const& model);

} // namespace kiln
