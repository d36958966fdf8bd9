// SPDX-License-Identifier: Apache-2.0
// Host reference of IEinsumLayer: each output element is the sum, over every combination of the summed labels'
// indices, of the product of one element of each input (network/einsum_equation.h gives the equation's rules). Sums
// and products in double, stored rounded once to the output type.
//
//     EinsumParams params{"ij,jk->ik"};   // network/params.h
//     // a kFLOAT [2, 3], b kFLOAT [3, 4] gives out kFLOAT [2, 4], their matrix product
//     HostTensor const inputs[] = {a.tensor(), b.tensor()};
//     Status const done = runEinsum(params, inputs, out.tensor());
//
// The rules: one or two inputs of one type, kFLOAT, kHALF or kBF16 (the output's); the axes of one label have one
// extent, or 1, which broadcasts; an empty sum is 0.
#pragma once

#include "backends/host/tensor_view.h"
#include "core/integer_math.h"
#include "network/params.h"

#include <span>

namespace kiln::host
{

//! The most inputs an Einsum takes, and the most labels its equation can then have (every axis of two 8-D inputs).
inline constexpr int32_t kMaxEinsumInputs = 2;
inline constexpr int32_t kMaxEinsumLabels = 2 * Dims::MAX_DIMS;

//! The types an Einsum takes.
inline constexpr TypeSet kEinsumTypes = kFloatingTypes;

//! The loops of an Einsum, computed once from the equation and the shapes (what the CUDA kernel takes too): labels
//! 0 .. nbOutput - 1 are the output's axes, the others are summed; each input's element is the sum of its label
//! indices times its strides (0 for a label it does not have, or an axis of extent 1 that broadcasts).
struct EinsumGeometry
{
    int32_t nbInputs{0};
    int32_t nbOutput{0};
    int32_t nbLabels{0};
    int64_t extents[kMaxEinsumLabels]{};
    int64_t strides[kMaxEinsumInputs][kMaxEinsumLabels]{};
    int64_t outputCount{1}; //!< The product of the output labels' extents.
    int64_t sumCount{1};    //!< The product of the summed labels' extents.
};

//! The geometry of params' equation over inputs of the given shapes, or the error: an equation that does not parse
//! or fit the ranks, more inputs than kMaxEinsumInputs, axes of one label whose extents differ (neither being 1).
Expected<EinsumGeometry> einsumGeometry(EinsumParams const& params, std::span<Dims const> shapes);

//! The output's type and shape, or the error that refuses the layer: einsumGeometry's, no inputs, or inputs not of one
//! type in kEinsumTypes.
Expected<TensorDesc> inferEinsum(EinsumParams const& params, std::span<TensorDesc const> inputs);

//! The element offsets in each input of output element outputIndex at summed combination sumIndex (both within their
//! counts, which are then non-zero).
KILN_HOST_DEVICE inline void einsumOffsets(
    EinsumGeometry const& g, int64_t outputIndex, int64_t sumIndex, int64_t (&offsets)[kMaxEinsumInputs]) noexcept
{
    for (int32_t j = 0; j < kMaxEinsumInputs; ++j)
    {
        offsets[j] = 0;
    }
    int64_t rest = outputIndex;
    for (int32_t k = g.nbOutput - 1; k >= 0; --k)
    {
        int64_t const index = rest % g.extents[k];
        rest /= g.extents[k];
        for (int32_t j = 0; j < g.nbInputs; ++j)
        {
            offsets[j] += index * g.strides[j][k];
        }
    }
    rest = sumIndex;
    for (int32_t k = g.nbLabels - 1; k >= g.nbOutput; --k)
    {
        int64_t const index = rest % g.extents[k];
        rest /= g.extents[k];
        for (int32_t j = 0; j < g.nbInputs; ++j)
        {
            offsets[j] += index * g.strides[j][k];
        }
    }
}

//! Computes the output after checking what inferEinsum checks, the output's type and shape, and each tensor's data.
Status runEinsum(EinsumParams const& params, std::span<HostTensor const> inputs, HostTensor const& out);

} // namespace kiln::host
