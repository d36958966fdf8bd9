// SPDX-License-Identifier: Apache-2.0
// Host reference of ICumulativeLayer: successive reductions (kSUM: prefix sums) along one axis, forward or reverse,
// inclusive or exclusive, computed in double (int64_t for integers) and stored rounded once to the output type.
//
//     CumulativeParams params{CumulativeOperation::kSUM, false, false, 1};   // network/params.h; axis 1
//     // in kFLOAT [2, 3] = {1, 2, 3, 4, 5, 6} gives {1, 3, 6, 4, 9, 15}
//     Status const done = runCumulative(params, in.tensor(), out.tensor());
//
// The rules (network/layers/cumulative.cpp lists where they come from):
// - params.axis is the axis, in [0, rank) (the layer's descriptor reads input 1 into it and makes it non-negative).
// - For a line x of n elements along the axis, out[j] = sum of x[0..j] (forward, inclusive), x[0..j-1] (forward,
//   exclusive), x[j..n-1] (reverse, inclusive) or x[j+1..n-1] (reverse, exclusive); an empty sum is 0.
// - Types: kFLOAT, kHALF, kBF16 (sums in double), kINT32 and kINT64 (sums in int64_t, kINT32 stored wrapping as
//   storeInteger does); the output has the input's type and shape.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The types a cumulative operation takes.
inline constexpr TypeSet kCumulativeTypes = kFloatingTypes | typeSet({DataType::kINT32, DataType::kINT64});

//! The output's type and shape (the input's), or the error that refuses them: an invalid operation, a type not taken,
//! a rank-0 input, an axis outside [0, rank).
Expected<TensorDesc> inferCumulative(CumulativeParams const& params, TensorDesc const& in);

//! Computes the reductions after checking what inferCumulative checks, the output's type and shape, and each tensor's
//! data.
Status runCumulative(CumulativeParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
