// SPDX-License-Identifier: Apache-2.0
// Host reference of IConcatenationLayer: the inputs joined along params.axis.
//
//     ConcatenationParams params{1};                       // network/params.h
//     // [2, 1] and [2, 3] give [2, 4]
//     Status const done = runConcatenation(params, inputs, out.tensor());
//
// The rules (network/layers/concatenation.cpp's shape rule; NvInfer.h's IConcatenationLayer): one or more inputs of one
// type and one rank >= 1, equal extents except along axis (0 <= axis < rank), which add up; inputs with extent 0 are
// allowed. Any host type; bytes are copied.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

//! The output's type and shape, or the error naming the input whose type or shape does not fit.
Expected<TensorDesc> inferConcatenation(ConcatenationParams const& params, std::span<TensorDesc const> inputs);

//! Concatenates after checking what inferConcatenation checks, the output's type and shape and each tensor's data.
Status runConcatenation(ConcatenationParams const& params, std::span<HostTensor const> inputs, HostTensor const& out);

} // namespace kiln::host
