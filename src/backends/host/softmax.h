// SPDX-License-Identifier: Apache-2.0
// Host reference of ISoftMaxLayer: out = exp(x - max) / sum(exp(x - max)) along one axis, computed in double and
// stored rounded once.
//
//     SoftMaxParams params{1U << 2};               // network/params.h: axis 2
//     Status const done = runSoftMax(params, in.tensor(), out.tensor()); // in and out [2, 3, 4]
//
// The rules (softmax.cpp lists where each was established):
// - axes has exactly one bit, for an axis below the input's rank (rank >= 1). The output has the input's shape.
// - Types: kFLOAT, kHALF, kBF16; the output has the input's type.
// - The maximum is subtracted before exp (numerically stable). IEEE semantics follow: a NaN in a row makes the row
//   NaN; a row whose maximum is +inf gives NaN for the +inf elements' inf - inf; a row of -inf gives NaN (0 / 0).
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The types a softmax accepts (the output has the input's type).
inline constexpr TypeSet kSoftMaxTypes = kFloatingTypes;

//! The output's type and shape, or the error that refuses the input: a type not accepted, an invalid shape or rank 0,
//! axes without exactly one bit, an axis outside the rank.
Expected<TensorDesc> inferSoftMax(SoftMaxParams const& params, TensorDesc const& in);

//! Computes the softmax after checking what inferSoftMax checks, the output's type and shape, and each tensor's data.
//! out may be in.
Status runSoftMax(SoftMaxParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
