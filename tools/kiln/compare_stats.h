// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s error statistics: one output of one runner against the same output of the reference, element by
// element. The pass rule is numpy's allclose: |actual - reference| <= atol + rtol * |reference| for every element.
// - Relative error is |actual - reference| / |reference|, over the elements whose reference is not zero (where the
//   reference is zero only the absolute error, and so atol, decides).
// - Non-finite values: NaN against NaN, and an infinity against the same infinity, match (error 0); a non-finite value
//   against anything else is a mismatch whose error is infinite. A --loadOutputs file's null (some non-finite value)
//   matches any non-finite value. Mean absolute error is over the elements finite on both sides.
// - The worst index is the element with the largest absolute error (a non-finite mismatch is the largest; the first
//   on ties), as a multi-dimensional index.
// - A different shape is a mismatch and leaves the values uncompared; a different type (both known) is a mismatch
//   too, and the values are still compared.
//
//     OutputComparison const c = compareOutput(hostY, fileY, "host", "file", Tolerance{1e-5, 1e-5});
//     c.passed; c.maxAbsError; indexText(c.worstIndex);
#pragma once

#include "compare_values.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln_tool
{

struct Tolerance
{
    double atol{};
    double rtol{};
};

//! One output of one runner against the reference.
struct OutputComparison
{
    std::string output;
    std::string runner;
    std::string reference;
    std::string type;          //!< The runner's type of the output ("" when unknown or missing).
    std::vector<int64_t> dims; //!< The runner's extents of the output.
    std::string problem;       //!< A missing output, a shape or a type that differs; empty when there is none.
    bool passed{};
    bool compared{}; //!< The values were compared (same element count); the statistics below are set.
    int64_t elements{};
    double maxAbsError{};
    double meanAbsError{};
    double maxRelError{};
    std::vector<int64_t> worstIndex; //!< Empty when no element was compared.
    double worstActual{};
    double worstExpected{};
    bool worstExpectedNonFinite{}; //!< The reference there is a file's null.
    int64_t overTolerance{};       //!< Elements outside atol + rtol * |reference|, non-finite mismatches included.
    int64_t nonFiniteMismatches{};
};

//! actual (runner's) against expected (reference's), which have the same name.
OutputComparison compareOutput(TensorValues const& actual, TensorValues const& expected, std::string const& runner,
    std::string const& reference, Tolerance const& tolerance);

//! The comparison of an output that one side lacks: a mismatch whose problem says which side and what it has.
OutputComparison missingOutput(
    std::string const& output, std::string const& runner, std::string const& reference, std::string const& problem);

} // namespace kiln_tool
