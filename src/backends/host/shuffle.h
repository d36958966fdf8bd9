// SPDX-License-Identifier: Apache-2.0
// Host reference of IShuffleLayer: a first transpose, a reshape, a second transpose. A transpose is a permutation copy
// (out dimension i is input dimension order[i]); the reshape only renames the shape of row-major data.
//
//     ShuffleParams params;                                // network/params.h
//     params.firstTranspose = {{1, 0}};                    // in [2, 3] -> [3, 2]
//     params.reshape = Dims{1, {-1}};                      // -> [6]
//     Status const done = runShuffle(params, in.tensor(), out.tensor());
//
// The rules (network/layers/shuffle.cpp's shape rule; NvInfer.h's IShuffleLayer):
// - Each transpose must permute the dimensions it applies to (the entries past the rank are ignored).
// - Reshape dimensions (params.reshape, or input 1's values resolved into it by the caller): with zeroIsPlaceholder a
//   0 copies the transposed input's extent at the same position; one -1 is inferred; the counts must match.
//   Unset (nbDims == -1): no reshape.
// - Any host type; bytes are copied. The output has the input's type.
#pragma once

#include "backends/host/tensor_view.h"
#include "network/params.h"

namespace kiln::host
{

//! The output's type and shape, or the error naming the permutation or reshape dimensions that do not fit.
Expected<TensorDesc> inferShuffle(ShuffleParams const& params, TensorDesc const& in);

//! out[c] = in[c permuted]: the generic permutation copy of a transpose (out dimension i is in dimension order[i]).
//! in and out must not overlap; out's shape must be in's permuted, as inferShuffle ensures.
void transposeCopy(HostTensor const& in, nvinfer1::Permutation const& order, HostTensor const& out) noexcept;

//! Shuffles after checking what inferShuffle checks, the output's type and shape and each tensor's data.
Status runShuffle(ShuffleParams const& params, HostTensor const& in, HostTensor const& out);

} // namespace kiln::host
