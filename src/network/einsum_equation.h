// SPDX-License-Identifier: Apache-2.0
// The equations of IEinsumLayer, shared by the layer (network/layers/einsum.cpp), its shape rule, and the host and
// CUDA kernels (backends/host/einsum.h). An equation is parsed once (parseEinsum), then bound to the inputs' ranks
// (bindEinsum), which names every axis by a label number: the output's axes first, in order, then the summed labels.
//
//     Expected<EinsumEquation> const eq = parseEinsum("bij,bjk->bik");
//     Expected<EinsumLabels> const labels = bindEinsum(eq.value(), {3, 3});
//     // labels.value(): nbOutput 3 (b i k), nbLabels 4 (then j); inputAxes {{0, 1, 3}, {0, 3, 2}}
//
// The rules (numpy's einsum, which ONNX's Einsum follows):
// - A term is a string of labels, letters a-z and A-Z, one per axis of its input, with at most one "..." standing for
//   the axes no letter names; terms are separated by ',' and "->" introduces the output term. Spaces are ignored.
// - The "..." axes of all inputs broadcast together, aligned from the last: with E the most axes any "..." stands
//   for, an input's e of them are the last e of the E.
// - Explicit output ("->"): each letter at most once and present in an input; "..." is needed when E > 0.
// - Implicit output: the E "..." axes, then every letter that appears exactly once in the inputs, in ASCII order
//   (capitals first).
// - A label absent from the output is summed over; a label repeated in a term takes that term's diagonal.
#pragma once

#include "core/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln
{

//! One term: its letters in order, and where "..." stands (how many letters precede it), or -1 for none.
struct EinsumTerm
{
    std::string letters;
    int32_t ellipsis{-1};
};

//! A parsed equation: one term per input, and the output term when "->" gives one.
struct EinsumEquation
{
    std::vector<EinsumTerm> inputs;
    std::optional<EinsumTerm> output;
};

//! text parsed, or the error that refuses it (its message says what is wrong and where, without naming the layer): a
//! character that is not a letter, ',', "->" or "...", a '.' outside "...", "..." twice in a term, "->" twice, an
//! output letter given twice or that no input has.
Expected<EinsumEquation> parseEinsum(std::string_view text);

//! The axes of an equation's inputs and output as label numbers.
struct EinsumLabels
{
    int32_t nbOutput{0};                         //!< The output's rank: labels 0 .. nbOutput - 1 are its axes in order.
    int32_t nbLabels{0};                         //!< The output's labels, then those summed over.
    std::vector<std::vector<int32_t>> inputAxes; //!< Per input, the label of each of its axes.
};

//! equation bound to inputs of the given ranks, or the error: a different number of inputs than terms, a term with
//! more letters than its input has axes (or a different number without "..."), an explicit output without "..."
//! while "..." stands for axes, an output of more than Dims::MAX_DIMS axes.
Expected<EinsumLabels> bindEinsum(EinsumEquation const& equation, std::vector<int32_t> const& ranks);

} // namespace kiln
