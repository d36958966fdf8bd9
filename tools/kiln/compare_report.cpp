// SPDX-License-Identifier: Apache-2.0
#include "compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace kiln_tool
{
namespace
{

using nlohmann::json;

//! A number in at most 6 significant digits: "0.5", "1e-05", "inf".
std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.6g", value);
    return text;
}

//! A value at the worst index: the number, or "null (not finite)" for a file's null.
std::string valueText(double value, bool unknownNonFinite)
{
    return unknownNonFinite ? std::string("null (not finite)") : number(value);
}

json finite(double value)
{
    return std::isfinite(value) ? json(value) : json(nullptr);
}

//! The result column of a comparison.
std::string verdict(OutputComparison const& c)
{
    return c.passed ? "passed" : "FAILED";
}

void printTable(std::vector<OutputComparison const*> const& rows, std::ostream& out)
{
    std::vector<std::vector<std::string>> cells{
        {"runner", "result", "max abs err", "mean abs err", "max rel err", "worst index", "over tolerance"}};
    for (OutputComparison const* c : rows)
    {
        if (!c->compared)
        {
            cells.push_back({c->runner, verdict(*c), "-", "-", "-", "-", "-"});
            continue;
        }
        cells.push_back(
            {c->runner, verdict(*c), number(c->maxAbsError), number(c->meanAbsError), number(c->maxRelError),
                indexText(c->worstIndex), std::to_string(c->overTolerance) + " of " + std::to_string(c->elements)});
    }
    std::vector<std::size_t> widths(cells.front().size(), 0);
    for (auto const& row : cells)
    {
        for (std::size_t i = 0; i < row.size(); ++i)
        {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    for (auto const& row : cells)
    {
        for (std::size_t i = 0; i < row.size(); ++i)
        {
            out << "  " << row[i] << (i + 1 < row.size() ? std::string(widths[i] - row[i].size(), ' ') : "");
        }
        out << "\n";
    }
}

//! Under a failed row: the problem, and the worst element against its tolerance.
void printDetails(OutputComparison const& c, Tolerance const& tolerance, std::ostream& out)
{
    if (!c.problem.empty())
    {
        out << "    " << c.runner << ": " << c.problem << "\n";
    }
    if (c.compared && c.overTolerance > 0 && !c.worstIndex.empty())
    {
        double const allowed = tolerance.atol + tolerance.rtol * std::fabs(c.worstExpected);
        out << "    " << c.runner << " at " << indexText(c.worstIndex) << ": " << number(c.worstActual) << " where "
            << c.reference << " has " << valueText(c.worstExpected, c.worstExpectedNonFinite) << " (|error| "
            << number(c.maxAbsError)
            << (std::isfinite(c.maxAbsError) ? " > tolerance " + number(allowed)
                                             : std::string(": not finite on one side"))
            << ")";
        if (c.nonFiniteMismatches > 0)
        {
            out << "; " << c.nonFiniteMismatches << " non-finite mismatches";
        }
        out << "\n";
    }
}

//! "Y (host vs file): max abs error 0.5 at [0, 0, 4, 5]" or "Y (host vs file): the shape ...".
std::string mismatchLine(OutputComparison const& c)
{
    std::string line = c.output + " (" + c.runner + " vs " + c.reference + "): ";
    if (!c.problem.empty())
    {
        line += c.problem;
        if (!c.compared || c.overTolerance == 0)
        {
            return line;
        }
        line += "; ";
    }
    return line + std::to_string(c.overTolerance) + " of " + std::to_string(c.elements)
        + " elements over tolerance, max abs error " + number(c.maxAbsError) + " at " + indexText(c.worstIndex);
}

} // namespace

bool CompareReport::passed() const
{
    return problems.empty() && !comparisons.empty()
        && std::none_of(
            runners.begin(), runners.end(), [](RunnerStatus const& r) { return r.state == RunnerState::kFAILED; })
        && std::all_of(comparisons.begin(), comparisons.end(), [](OutputComparison const& c) { return c.passed; });
}

std::string stateName(RunnerState state)
{
    switch (state)
    {
    case RunnerState::kRAN: return "ran";
    case RunnerState::kSKIPPED: return "skipped";
    case RunnerState::kFAILED: return "failed";
    }
    return "unknown";
}

void printCompareReport(CompareReport const& r, std::ostream& out)
{
    out << "kiln compare " << r.model << "\n";
    out << "Inputs:" << (r.inputs.empty() ? " none made (no kiln runner ran)" : "") << "\n";
    for (InputSummary const& input : r.inputs)
    {
        out << "  " << input.name << ": " << input.type << " " << shapeText(input.dims) << ", " << input.source << "\n";
    }
    out << "Runners:\n";
    std::size_t width = 0;
    for (RunnerStatus const& runner : r.runners)
    {
        width = std::max(width, runner.name.size());
    }
    for (RunnerStatus const& runner : r.runners)
    {
        out << "  " << std::setw(static_cast<int>(width)) << std::left << runner.name << std::right << "  "
            << stateName(runner.state) << ": " << runner.detail << "\n";
        for (std::string const& note : runner.notes)
        {
            out << "  " << std::string(width, ' ') << "  note: " << note << "\n";
        }
    }
    out << "Reference: " << (r.reference.empty() ? "none" : r.reference) << " (" << r.referenceWhy << ")\n";
    out << "Tolerance: |runner - reference| <= atol + rtol * |reference|, atol " << number(r.tolerance.atol)
        << ", rtol " << number(r.tolerance.rtol) << " (" << r.toleranceWhy << ")\n";

    // One table per output, in the order the comparisons were made.
    std::vector<std::string> outputs;
    for (OutputComparison const& c : r.comparisons)
    {
        if (std::find(outputs.begin(), outputs.end(), c.output) == outputs.end())
        {
            outputs.push_back(c.output);
        }
    }
    for (std::string const& output : outputs)
    {
        std::vector<OutputComparison const*> rows;
        for (OutputComparison const& c : r.comparisons)
        {
            if (c.output == output)
            {
                rows.push_back(&c);
            }
        }
        OutputComparison const& first = *rows.front();
        out << "\nOutput " << output;
        if (first.compared)
        {
            out << " (" << (first.type.empty() ? std::string("type unknown") : first.type) << " "
                << shapeText(first.dims) << ")";
        }
        out << " against " << first.reference << ":\n";
        printTable(rows, out);
        for (OutputComparison const* c : rows)
        {
            if (!c->passed)
            {
                printDetails(*c, r.tolerance, out);
            }
        }
    }

    out << "\n";
    std::vector<std::string> failures = r.problems;
    for (RunnerStatus const& runner : r.runners)
    {
        if (runner.state == RunnerState::kFAILED)
        {
            failures.push_back("the runner " + runner.name + " failed: " + runner.detail);
        }
    }
    for (OutputComparison const& c : r.comparisons)
    {
        if (!c.passed)
        {
            failures.push_back(mismatchLine(c));
        }
    }
    if (r.passed())
    {
        out << "PASSED: " << r.comparisons.size() << " comparison" << (r.comparisons.size() == 1 ? "" : "s")
            << " within tolerance\n";
        return;
    }
    out << "FAILED:\n";
    for (std::string const& failure : failures)
    {
        out << "  " << failure << "\n";
    }
}

json compareReportJson(CompareReport const& r)
{
    json inputs = json::array();
    for (InputSummary const& input : r.inputs)
    {
        inputs.push_back(
            {{"name", input.name}, {"type", input.type}, {"dimensions", input.dims}, {"source", input.source}});
    }
    json runners = json::array();
    for (RunnerStatus const& runner : r.runners)
    {
        json entry{{"name", runner.name}, {"status", stateName(runner.state)}, {"detail", runner.detail},
            {"notes", runner.notes}};
        if (runner.state == RunnerState::kRAN)
        {
            entry["seconds"] = runner.seconds;
        }
        runners.push_back(entry);
    }
    json comparisons = json::array();
    for (OutputComparison const& c : r.comparisons)
    {
        json entry{{"output", c.output}, {"runner", c.runner}, {"reference", c.reference}, {"passed", c.passed},
            {"problem", c.problem.empty() ? json(nullptr) : json(c.problem)}, {"compared", c.compared}};
        if (c.compared)
        {
            entry.update({{"type", c.type}, {"dimensions", c.dims}, {"elements", c.elements},
                {"maxAbsError", finite(c.maxAbsError)}, {"meanAbsError", finite(c.meanAbsError)},
                {"maxRelError", finite(c.maxRelError)}, {"worstIndex", c.worstIndex},
                {"worstActual", finite(c.worstActual)},
                {"worstExpected", c.worstExpectedNonFinite ? json(nullptr) : finite(c.worstExpected)},
                {"overTolerance", c.overTolerance}, {"nonFiniteMismatches", c.nonFiniteMismatches}});
        }
        comparisons.push_back(entry);
    }
    return {{"model", r.model}, {"inputs", inputs}, {"runners", runners},
        {"reference", r.reference.empty() ? json(nullptr) : json(r.reference)}, {"referenceWhy", r.referenceWhy},
        {"atol", r.tolerance.atol}, {"rtol", r.tolerance.rtol}, {"toleranceWhy", r.toleranceWhy},
        {"comparisons", comparisons}, {"problems", r.problems}, {"passed", r.passed()}};
}

} // namespace kiln_tool
