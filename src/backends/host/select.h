// SPDX-License-Identifier: Apache-2.0
// Host reference of ISelectLayer: out = condition ? thenInput : elseInput, element by element, the three inputs
// broadcast together.
//
//     // condition kBOOL [2, 1], then kFLOAT [1, 3], else kFLOAT [2, 3] give kFLOAT [2, 3]
//     Status const done = runSelect({}, condition.tensor(), thenIn.tensor(), elseIn.tensor(), out.tensor());
//
// The rules (network/layers/select.cpp's shape rule; NvInfer.h's ISelectLayer): the condition is kBOOL; the then and
// else inputs have one type (any host type; bytes are copied), the output's; the three have one rank, and in each
// dimension the extents are equal or 1 (broadcast as the element-wise layer does, tensor_view.h's broadcastShapes).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The output's type and shape, or the error naming the input whose type or shape does not fit.
Expected<TensorDesc> inferSelect(
    SelectParams const& params, TensorDesc const& condition, TensorDesc const& thenInput, TensorDesc const& elseInput);

//! Selects after checking what inferSelect checks, the output's type and shape and each tensor's data.
Status runSelect(SelectParams const& params, HostTensor const& condition, HostTensor const& thenInput,
    HostTensor const& elseInput, HostTensor const& out);

} // namespace kiln::host
