// SPDX-License-Identifier: Apache-2.0
// Host reference of IReverseSequenceLayer: out = in with, for each index b of the batch axis, the first lengths[b]
// elements along the sequence axis in reverse order (network/layers/reverse_sequence.cpp gives the rules).
//
//     ReverseSequenceParams params{0, 1};   // network/params.h: batch axis 0, sequence axis 1
//     // in kFLOAT [2, 3] = {1, 2, 3, 4, 5, 6}, lengths kINT32 [2] = {2, 3} gives {2, 1, 3, 6, 5, 4}
//     Status const done = runReverseSequence(params, in.tensor(), lengths.tensor(), out.tensor());
//
// Elements are copied as bytes, so every type the host moves is taken (the output has the input's type and shape).
// The lengths are kINT32 or kINT64, one per index of the batch axis; one below 0 counts as 0, one beyond the sequence
// axis' extent as the extent. out must not be in.
#pragma once

#include "backends/host/tensor_view.h"
#include "core/integer_math.h"
#include "network/params.h"

namespace kiln::host
{

//! Where the two axes lie in the row-major input, computed once from the shape (what the CUDA kernel takes too).
struct ReverseSequenceGeometry
{
    int64_t batchStride{1};
    int64_t batchExtent{1};
    int64_t sequenceStride{1};
    int64_t sequenceExtent{1};
    int64_t count{0}; //!< The number of elements.
};

//! The output's type and shape (the input's), or the error that refuses the layer: an axis outside [0, rank) or both
//! axes one, a rank below 2, a type the host does not move, lengths that are not a 1-D kINT32 or kINT64 tensor of the
//! batch axis' extent.
Expected<TensorDesc> inferReverseSequence(
    ReverseSequenceParams const& params, TensorDesc const& in, TensorDesc const& lengths);

//! The geometry of an input of shape dims that inferReverseSequence accepted.
ReverseSequenceGeometry reverseSequenceGeometry(ReverseSequenceParams const& params, Dims const& dims) noexcept;

//! The batch index of element i.
KILN_HOST_DEVICE inline int64_t reverseSequenceBatch(ReverseSequenceGeometry const& g, int64_t i) noexcept
{
    return (i / g.batchStride) % g.batchExtent;
}

//! The input element output element i reads, where its batch's length is length (clamped here to [0, extent]).
KILN_HOST_DEVICE inline int64_t reverseSequenceSource(
    ReverseSequenceGeometry const& g, int64_t i, int64_t length) noexcept
{
    int64_t const n = length < 0 ? 0 : (length > g.sequenceExtent ? g.sequenceExtent : length);
    int64_t const s = (i / g.sequenceStride) % g.sequenceExtent;
    return s < n ? i + (n - 1 - 2 * s) * g.sequenceStride : i;
}

//! Copies the reversed input after checking what inferReverseSequence checks, the output's type and shape, and each
//! tensor's data.
Status runReverseSequence(
    ReverseSequenceParams const& params, HostTensor const& in, HostTensor const& lengths, HostTensor const& out);

} // namespace kiln::host
