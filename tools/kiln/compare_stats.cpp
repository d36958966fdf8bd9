// SPDX-License-Identifier: Apache-2.0
#include "compare_stats.h"

#include <cmath>
#include <limits>

namespace kiln_tool
{

OutputComparison compareOutput(TensorValues const& actual, TensorValues const& expected, std::string const& runner,
    std::string const& reference, Tolerance const& tolerance)
{
    OutputComparison c;
    c.output = actual.name;
    c.runner = runner;
    c.reference = reference;
    c.type = actual.type;
    c.dims = actual.dims;
    if (actual.dims != expected.dims)
    {
        c.problem = "the shape is " + shapeText(actual.dims) + " in " + runner + " but " + shapeText(expected.dims)
            + " in " + reference;
        return c;
    }
    if (!actual.type.empty() && !expected.type.empty() && actual.type != expected.type)
    {
        c.problem = "the type is " + actual.type + " in " + runner + " but " + expected.type + " in " + reference;
    }
    double constexpr kInfinity = std::numeric_limits<double>::infinity();
    c.compared = true;
    c.elements = static_cast<int64_t>(actual.values.size());
    double sum = 0.0;
    int64_t finite = 0;
    int64_t worst = c.elements > 0 ? 0 : -1;
    for (int64_t i = 0; i < c.elements; ++i)
    {
        auto const at = static_cast<std::size_t>(i);
        double const a = actual.values[at];
        double const b = expected.values[at];
        bool const unknown = !expected.unknownNonFinite.empty() && expected.unknownNonFinite[at];
        if (unknown || !std::isfinite(a) || !std::isfinite(b))
        {
            bool const same = unknown ? !std::isfinite(a) : (std::isnan(a) && std::isnan(b)) || a == b;
            if (!same)
            {
                ++c.nonFiniteMismatches;
                ++c.overTolerance;
                if (c.maxAbsError < kInfinity)
                {
                    c.maxAbsError = c.maxRelError = kInfinity;
                    worst = i;
                }
            }
            continue;
        }
        double const error = std::fabs(a - b);
        sum += error;
        ++finite;
        if (error > c.maxAbsError)
        {
            c.maxAbsError = error;
            worst = i;
        }
        if (b != 0.0)
        {
            c.maxRelError = std::max(c.maxRelError, error / std::fabs(b));
        }
        if (!(error <= tolerance.atol + tolerance.rtol * std::fabs(b)))
        {
            ++c.overTolerance;
        }
    }
    c.meanAbsError = finite > 0 ? sum / static_cast<double>(finite) : 0.0;
    if (worst >= 0)
    {
        auto const at = static_cast<std::size_t>(worst);
        c.worstIndex = unflatten(worst, actual.dims);
        c.worstActual = actual.values[at];
        c.worstExpected = expected.values[at];
        c.worstExpectedNonFinite = !expected.unknownNonFinite.empty() && expected.unknownNonFinite[at];
    }
    c.passed = c.problem.empty() && c.overTolerance == 0;
    return c;
}

OutputComparison missingOutput(
    std::string const& output, std::string const& runner, std::string const& reference, std::string const& problem)
{
    OutputComparison c;
    c.output = output;
    c.runner = runner;
    c.reference = reference;
    c.problem = problem;
    return c;
}

} // namespace kiln_tool
