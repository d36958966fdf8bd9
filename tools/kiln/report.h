// SPDX-License-Identifier: Apache-2.0
// The kiln tool's reports, with trtexec's section titles and labels: the options echoed before the work (=== Model
// Options ===, === Build Options ===, === Inference Options ===), and after inference the averages over groups of
// --avgRuns queries (=== Trace details ===) and the performance summary. summarize() produces the numbers once;
// printSummary() renders them for people.
//
//     PerformanceSummary const summary = summarize(trace);
//     printSummary(summary, trace, out);   // "[I] === Performance summary ===" and the lines under it
#pragma once

#include "inference.h"
#include "options.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

//! trtexec's statistics of a set of times (milliseconds). Percentile p is the largest value once the
//! floor((1 - p/100) * n) largest are dropped, trtexec's rule; the median of an even count is the mean of the middle
//! two.
struct Statistics
{
    double min{};
    double max{};
    double mean{};
    double median{};
    double p90{};
    double p95{};
    double p99{};
};

Statistics statistics(std::vector<double> values);

struct PerformanceSummary
{
    int64_t queries{};
    double throughputQps{};
    Statistics latency;
    Statistics enqueue;
    Statistics h2d;
    Statistics compute;
    Statistics d2h;
    double hostWalltimeSeconds{};  //!< From the first query's start to the last one's end.
    double totalComputeSeconds{};  //!< The sum of the queries' compute times.
    std::optional<double> refitMs; //!< --refit: how long the refit before inference took (milliseconds).
};

PerformanceSummary summarize(Trace const& trace);

//! === Model Options ===, === Build Options === (when building) and === Inference Options ===.
void printOptions(Options const& options, std::string const& backend, std::ostream& out);

//! "Average on N runs - GPU latency: ... - Host latency: ... (enqueue ...)" for each group of avgRuns queries, the
//! first 100 groups of them.
void printTraceDetails(Trace const& trace, int32_t avgRuns, std::ostream& out);

void printSummary(PerformanceSummary const& summary, Trace const& trace, std::ostream& out);

} // namespace kiln_tool
