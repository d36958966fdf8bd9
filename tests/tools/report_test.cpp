// SPDX-License-Identifier: Apache-2.0
// The kiln tool's reports: trtexec's statistics (its percentile and median rules) and the summary's numbers and
// labels from a made-up trace.
#include "report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace kiln_tool_test
{
namespace
{

using kiln_tool::QueryTime;
using kiln_tool::Statistics;
using kiln_tool::Trace;

TEST(ToolReport, StatisticsFollowTrtexec)
{
    // 1..100 shuffled: trtexec's percentile p drops the (1 - p/100) * n largest and takes the next.
    std::vector<double> values;
    for (int i = 100; i >= 1; --i)
    {
        values.push_back(i);
    }
    Statistics const s = kiln_tool::statistics(values);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 100.0);
    EXPECT_DOUBLE_EQ(s.mean, 50.5);
    EXPECT_DOUBLE_EQ(s.median, 50.5); // even count: the mean of the middle two
    EXPECT_DOUBLE_EQ(s.p90, 90.0);
    EXPECT_DOUBLE_EQ(s.p95, 95.0);
    EXPECT_DOUBLE_EQ(s.p99, 99.0);

    Statistics const odd = kiln_tool::statistics({3.0, 1.0, 2.0});
    EXPECT_DOUBLE_EQ(odd.median, 2.0);
    EXPECT_DOUBLE_EQ(odd.p99, 3.0);
    EXPECT_DOUBLE_EQ(odd.p90, 3.0);

    Statistics const none = kiln_tool::statistics({});
    EXPECT_DOUBLE_EQ(none.max, 0.0);
}

Trace madeUpTrace()
{
    Trace trace;
    trace.onDevice = true;
    trace.transfers = true;
    for (int i = 0; i < 4; ++i)
    {
        QueryTime q;
        q.startMs = 10.0 * i;
        q.endMs = 10.0 * i + 8.0;
        q.enqueueMs = 0.5;
        q.h2dMs = 1.0;
        q.computeMs = 5.0 + i;
        q.d2hMs = 2.0;
        trace.queries.push_back(q);
    }
    return trace;
}

TEST(ToolReport, SummaryNumbers)
{
    kiln_tool::PerformanceSummary const s = kiln_tool::summarize(madeUpTrace());
    EXPECT_EQ(s.queries, 4);
    EXPECT_DOUBLE_EQ(s.hostWalltimeSeconds, 0.038); // from 0 ms to 38 ms
    EXPECT_DOUBLE_EQ(s.throughputQps, 4 / 0.038);
    EXPECT_DOUBLE_EQ(s.latency.min, 8.0); // 1 + 5 + 2
    EXPECT_DOUBLE_EQ(s.latency.max, 11.0);
    EXPECT_DOUBLE_EQ(s.compute.mean, 6.5);
    EXPECT_DOUBLE_EQ(s.totalComputeSeconds, 0.026);
    EXPECT_DOUBLE_EQ(s.enqueue.median, 0.5);
}

TEST(ToolReport, OverlappingStreamsCountEveryQueryOverTheWalltime)
{
    // Two streams' queries, by start time: the last to start (at 21 ms) ends at 30 ms, before the one that started at
    // 12 ms ends (40 ms). The walltime runs from the first start to the last end, not to the last query's end.
    Trace trace;
    trace.streams = 2;
    for (auto const& [start, end] :
        {std::pair{0.0, 10.0}, std::pair{1.0, 11.0}, std::pair{12.0, 40.0}, std::pair{21.0, 30.0}})
    {
        QueryTime q;
        q.startMs = start;
        q.endMs = end;
        q.computeMs = end - start;
        trace.queries.push_back(q);
    }
    kiln_tool::PerformanceSummary s = kiln_tool::summarize(trace);
    EXPECT_DOUBLE_EQ(s.hostWalltimeSeconds, 0.040);
    EXPECT_DOUBLE_EQ(s.throughputQps, 4 / 0.040);
    s.refitMs = 1.5;
    std::ostringstream out;
    kiln_tool::printSummary(s, trace, out);
    EXPECT_NE(
        out.str().find("[I] 2 streams ran at once: Throughput counts the queries of all of them"), std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("[I] Refit Time: 1.5 ms"), std::string::npos) << out.str();
}

TEST(ToolReport, SummaryTextHasTrtexecsLabels)
{
    Trace const trace = madeUpTrace();
    std::ostringstream out;
    kiln_tool::printSummary(kiln_tool::summarize(trace), trace, out);
    std::string const text = out.str();
    EXPECT_NE(text.find("[I] === Performance summary ===\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] Throughput: 105.263 qps\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] Latency: min = 8 ms, max = 11 ms, mean = 9.5 ms, median = 9.5 ms, percentile(90%) = 11 "
                        "ms, percentile(95%) = 11 ms, percentile(99%) = 11 ms\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("[I] Enqueue Time: min = 0.5 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] H2D Latency: min = 1 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] GPU Compute Time: min = 5 ms, max = 8 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] D2H Latency: min = 2 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] Total Host Walltime: 0.038 s\n"), std::string::npos) << text;
    EXPECT_NE(text.find("[I] Total GPU Compute Time: 0.026 s\n"), std::string::npos) << text;
}

TEST(ToolReport, TraceDetailsAverageWholeGroups)
{
    std::ostringstream out;
    kiln_tool::printTraceDetails(madeUpTrace(), 2, out);
    std::string const text = out.str();
    EXPECT_NE(text.find("[I] Average on 2 runs - GPU latency: 5.5 ms - Host latency: 8.5 ms (enqueue 0.5 ms)\n"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("[I] Average on 2 runs - GPU latency: 7.5 ms - Host latency: 10.5 ms (enqueue 0.5 ms)\n"),
        std::string::npos)
        << text;
    std::ostringstream three;
    kiln_tool::printTraceDetails(madeUpTrace(), 3, three); // one whole group; the fourth query is in none
    EXPECT_EQ(three.str().find("Average on 3 runs"), three.str().rfind("Average on 3 runs")) << three.str();
}

} // namespace
} // namespace kiln_tool_test
