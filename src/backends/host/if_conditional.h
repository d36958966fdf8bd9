// SPDX-License-Identifier: Apache-2.0
// The host side of an if-conditional (network/layers/if_conditional.cpp): the condition layer and the input layers
// copy (as IIdentityLayer does), and an output layer copies the value of the branch the condition chose. The condition
// is a 0-D kBOOL tensor in host memory; this is how every reader of it (the host and CUDA kernels of the output layer,
// the executor choosing which branch runs) tells the branch.
//
//     bool const takeTrue = conditionalBranch(conditionView);   // then copy input 0, else input 1
#pragma once

#include "backends/host/tensor_view.h"

namespace kiln::host
{

//! Whether the condition (a 0-D tensor in host memory) chooses the true branch: its one element is non-zero.
inline bool conditionalBranch(HostTensor const& condition) noexcept
{
    return condition.data != nullptr && elementCount(condition.dims) == 1 && loadInteger(condition, 0) != 0;
}

} // namespace kiln::host
