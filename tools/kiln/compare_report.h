// SPDX-License-Identifier: Apache-2.0
// `kiln compare`'s report: one result (the inputs, what each runner did, the reference, the tolerance, every
// output's comparison and the problems that fail the run), rendered as text for people (a table per output) or as
// one JSON object for tools (--json). The exit status follows from it: 0 when it passed, else 1.
//
//     CompareReport report;   // filled by runCompare
//     printCompareReport(report, out);               // or: out << compareReportJson(report).dump(2);
#pragma once

#include "compare_stats.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

enum class RunnerState
{
    kRAN,
    kSKIPPED, //!< It cannot run here or cannot run this model: detail says why.
    kFAILED,  //!< It should have run and did not: detail says what failed.
};

//! What one runner did. "file" stands for the --loadOutputs file, as a source of outputs like the runners.
struct RunnerStatus
{
    std::string name;
    RunnerState state{RunnerState::kSKIPPED};
    std::string detail;
    double seconds{}; //!< Its build and run, when it ran.
    std::vector<std::string> notes;
};

struct InputSummary
{
    std::string name;
    std::string type;
    std::vector<int64_t> dims;
    std::string source; //!< "random (seed 1)" or the --loadInputs file.
};

struct CompareReport
{
    std::string model;
    std::vector<InputSummary> inputs;
    std::vector<RunnerStatus> runners;
    std::string reference; //!< Empty when no reference could be chosen.
    std::string referenceWhy;
    Tolerance tolerance;
    std::string toleranceWhy; //!< "--atol/--rtol", "the defaults for FP32", ...
    std::vector<OutputComparison> comparisons;
    std::vector<std::string> problems; //!< What fails the run besides a comparison: no reference, a runner asked for.

    //! No problem, no runner failed, at least one comparison and every comparison passed.
    bool passed() const;
};

//! "ran", "skipped" or "failed".
std::string stateName(RunnerState state);

//! The report as text: inputs, runners, reference and tolerance, a table per output, the mismatches, the verdict.
void printCompareReport(CompareReport const& report, std::ostream& out);

//! The report as one JSON object (infinite errors are null).
nlohmann::json compareReportJson(CompareReport const& report);

} // namespace kiln_tool
