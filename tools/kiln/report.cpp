// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include "specs.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>

namespace kiln_tool
{
namespace
{

//! The trace details print at most this many groups: a fast model runs hundreds of thousands of queries.
constexpr std::size_t kMaxTraceGroups = 100;

std::string shapesText(ShapeMap const& shapes)
{
    std::string text;
    for (auto const& [name, dims] : shapes)
    {
        text += (text.empty() ? "" : ", ") + name + ":" + dimsText(dims);
    }
    return text.empty() ? "model" : text;
}

std::string listText(std::vector<std::string> const& items)
{
    std::string text;
    for (std::string const& item : items)
    {
        text += (text.empty() ? "" : ", ") + item;
    }
    return text;
}

std::string precisionText(Options const& o)
{
    if (o.stronglyTyped)
    {
        return "Strongly typed (the network's types)";
    }
    std::string text = "FP32";
    for (auto const& [on, name] :
        {std::pair{o.fp16, "FP16"}, std::pair{o.bf16, "BF16"}, std::pair{o.int8, "INT8"}, std::pair{o.fp8, "FP8"}})
    {
        text += on ? std::string("+") + name : "";
    }
    return text;
}

std::string poolsText(std::vector<MemoryPool> const& pools)
{
    std::string text;
    for (MemoryPool const& pool : pools)
    {
        std::ostringstream size;
        size << static_cast<double>(pool.bytes) / (1024.0 * 1024.0);
        text += (text.empty() ? "" : ", ") + std::string(poolName(pool.pool)) + ": " + size.str() + " MiB";
    }
    return text.empty() ? "default" : text;
}

std::vector<double> field(std::vector<QueryTime> const& queries, std::function<double(QueryTime const&)> const& get)
{
    std::vector<double> values;
    values.reserve(queries.size());
    std::transform(queries.begin(), queries.end(), std::back_inserter(values), get);
    return values;
}

void printStatistics(std::ostream& out, char const* label, Statistics const& s)
{
    out << "[I] " << label << ": min = " << s.min << " ms, max = " << s.max << " ms, mean = " << s.mean
        << " ms, median = " << s.median << " ms, percentile(90%) = " << s.p90 << " ms, percentile(95%) = " << s.p95
        << " ms, percentile(99%) = " << s.p99 << " ms\n";
}

} // namespace

Statistics statistics(std::vector<double> values)
{
    Statistics s;
    if (values.empty())
    {
        return s;
    }
    std::sort(values.begin(), values.end());
    auto const n = static_cast<int64_t>(values.size());
    auto const percentile = [&](double p) {
        // The epsilon keeps (1 - 0.9) * 100 at 10, not 9.999...: trtexec computes this in float, where 0.99 at 100
        // values drops nothing and its percentile(99%) is the maximum; here the rule is followed exactly.
        auto const exclude = static_cast<int64_t>((1.0 - p / 100.0) * static_cast<double>(n) + 1e-9);
        return values[static_cast<std::size_t>(std::max<int64_t>(n - 1 - exclude, 0))];
    };
    s.min = values.front();
    s.max = values.back();
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
    std::size_t const middle = values.size() / 2;
    s.median = values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
    s.p90 = percentile(90.0);
    s.p95 = percentile(95.0);
    s.p99 = percentile(99.0);
    return s;
}

PerformanceSummary summarize(Trace const& trace)
{
    PerformanceSummary summary;
    std::vector<QueryTime> const& q = trace.queries;
    summary.queries = static_cast<int64_t>(q.size());
    if (q.empty())
    {
        return summary;
    }
    // With --streams the queries overlap: the walltime runs from the first start to the last end.
    double lastEndMs = q.front().endMs;
    for (QueryTime const& query : q)
    {
        lastEndMs = std::max(lastEndMs, query.endMs);
    }
    summary.hostWalltimeSeconds = (lastEndMs - q.front().startMs) / 1000.0;
    summary.throughputQps
        = summary.hostWalltimeSeconds > 0.0 ? static_cast<double>(q.size()) / summary.hostWalltimeSeconds : 0.0;
    summary.latency = statistics(field(q, [](QueryTime const& t) { return t.latencyMs(); }));
    summary.enqueue = statistics(field(q, [](QueryTime const& t) { return t.enqueueMs; }));
    summary.h2d = statistics(field(q, [](QueryTime const& t) { return t.h2dMs; }));
    summary.compute = statistics(field(q, [](QueryTime const& t) { return t.computeMs; }));
    summary.d2h = statistics(field(q, [](QueryTime const& t) { return t.d2hMs; }));
    std::vector<double> const compute = field(q, [](QueryTime const& t) { return t.computeMs; });
    summary.totalComputeSeconds = std::accumulate(compute.begin(), compute.end(), 0.0) / 1000.0;
    return summary;
}

void printOptions(Options const& o, std::string const& backend, std::ostream& out)
{
    out << "[I] === Model Options ===\n";
    out << "[I] Format: " << (o.onnx.empty() ? "* (a saved engine)" : "ONNX") << "\n";
    out << "[I] Model: " << (o.onnx.empty() ? o.loadEngine : o.onnx) << "\n";
    if (o.loadEngine.empty())
    {
        out << "[I] === Build Options ===\n";
        out << "[I] Precision: " << precisionText(o) << "\n";
        out << "[I] TF32: " << (o.noTF32 ? "Disabled" : "Enabled") << "\n";
        out << "[I] Memory Pools: " << poolsText(o.memoryPools) << "\n";
        out << "[I] Optimization Level: "
            << (o.builderOptimizationLevel ? std::to_string(*o.builderOptimizationLevel) : std::string("default"))
            << "\n";
        for (auto const& [label, formats] :
            {std::pair{"Input(s) format: ", &o.inputFormats}, std::pair{"Output(s) format: ", &o.outputFormats}})
        {
            std::vector<std::string> specs;
            for (IoFormat const& format : *formats)
            {
                specs.push_back(format.text);
            }
            out << "[I] " << label << (specs.empty() ? std::string("the model's types, chw") : listText(specs)) << "\n";
        }
        out << "[I] Refit: " << (o.refit ? "Enabled (kREFIT; refitted once with the model's weights)" : "Disabled")
            << "\n";
        out << "[I] Timing Cache File: " << (o.timingCacheFile.empty() ? "none" : o.timingCacheFile) << "\n";
        out << "[I] Timing Cache: " << (o.noBuilderCache ? "Disabled (--noBuilderCache)" : "Enabled") << "\n";
        std::string buildShapes;
        for (auto const& [flag, shapes] :
            {std::pair{"--minShapes", &o.minShapes}, std::pair{"--optShapes", &o.optShapes},
                std::pair{"--maxShapes", &o.maxShapes}, std::pair{"--shapes", &o.shapes}})
        {
            buildShapes
                += shapes->empty() ? "" : (buildShapes.empty() ? "" : "; ") + (flag + (" " + shapesText(*shapes)));
        }
        out << "[I] Input build shapes: " << (buildShapes.empty() ? "model" : buildShapes) << "\n";
        out << "[I] Save Engine: " << (o.saveEngine.empty() ? "no" : o.saveEngine) << "\n";
    }
    std::vector<std::string> plugins = o.staticPlugins;
    plugins.insert(plugins.end(), o.dynamicPlugins.begin(), o.dynamicPlugins.end());
    out << "[I] Plugins: " << (plugins.empty() ? std::string("none") : listText(plugins)) << "\n";
    out << "[I] Backend: " << backend << "\n";
    if (o.skipInference)
    {
        out << "[I] === Inference Options ===\n[I] Skip inference: yes\n";
        return;
    }
    std::vector<std::string> loaded;
    for (NamedFile const& file : o.loadInputs)
    {
        loaded.push_back(file.name + ":" + file.path);
    }
    out << "[I] === Inference Options ===\n";
    out << "[I] Input inference shapes: " << shapesText(o.shapes) << "\n";
    out << "[I] Iterations: " << o.iterations << "\n";
    out << "[I] Duration: " << o.durationSeconds << "s (+ " << o.warmUpMs << "ms warm up)\n";
    out << "[I] Average on runs: " << o.avgRuns << "\n";
    out << "[I] Streams: " << o.streams << "\n";
    out << "[I] Data transfers: " << (o.noDataTransfers ? "Disabled" : "Enabled") << "\n";
    out << "[I] CUDA Graph: " << (o.useCudaGraph ? "Enabled" : "Disabled") << "\n";
    out << "[I] Inputs: " << (loaded.empty() ? std::string("random") : listText(loaded) + " (others random)") << "\n";
    out << "[I] Export output: " << (o.exportOutput.empty() ? "no" : o.exportOutput) << "\n";
}

void printTraceDetails(Trace const& trace, int32_t avgRuns, std::ostream& out)
{
    out << "[I] === Trace details ===\n";
    out << "[I] Trace averages of " << avgRuns << " runs:\n";
    std::vector<QueryTime> const& q = trace.queries;
    auto const group = static_cast<std::size_t>(avgRuns);
    std::size_t const groups = q.size() / group;
    for (std::size_t first = 0; first + group <= q.size() && first / group < kMaxTraceGroups; first += group)
    {
        double compute = 0.0;
        double latency = 0.0;
        double enqueue = 0.0;
        for (std::size_t i = first; i < first + group; ++i)
        {
            compute += q[i].computeMs;
            latency += q[i].latencyMs();
            enqueue += q[i].enqueueMs;
        }
        out << "[I] Average on " << avgRuns << " runs - GPU latency: " << compute / avgRuns
            << " ms - Host latency: " << latency / avgRuns << " ms (enqueue " << enqueue / avgRuns << " ms)\n";
    }
    if (groups > kMaxTraceGroups)
    {
        out << "[I] ... and " << groups - kMaxTraceGroups << " more groups of " << avgRuns
            << " runs, not printed (the summary covers every query)\n";
    }
}

void printSummary(PerformanceSummary const& s, Trace const& trace, std::ostream& out)
{
    out << "[I] \n[I] === Performance summary ===\n";
    out << "[I] Throughput: " << s.throughputQps << " qps\n";
    printStatistics(out, "Latency", s.latency);
    printStatistics(out, "Enqueue Time", s.enqueue);
    printStatistics(out, "H2D Latency", s.h2d);
    printStatistics(out, "GPU Compute Time", s.compute);
    printStatistics(out, "D2H Latency", s.d2h);
    out << "[I] Total Host Walltime: " << s.hostWalltimeSeconds << " s\n";
    out << "[I] Total GPU Compute Time: " << s.totalComputeSeconds << " s\n";
    if (s.refitMs)
    {
        out << "[I] Refit Time: " << *s.refitMs << " ms (one refit with the model's own weights, before inference)\n";
    }
    if (!trace.onDevice)
    {
        out << "[I] Host engine: \"GPU Compute Time\" is the host's time of each enqueueV3, which returns when the work "
               "is done; its I/O is in host memory, so H2D and D2H are zero.\n";
    }
    else if (!trace.transfers)
    {
        out << "[I] --noDataTransfers: H2D and D2H are zero; Latency is the compute time.\n";
    }
    if (trace.streams > 1)
    {
        out << "[I] " << trace.streams
            << " streams ran at once: Throughput counts the queries of all of them over the walltime; each query's "
               "times are its own, on its own stream.\n";
    }
    if (trace.cudaGraph)
    {
        out << "[I] Queries replayed a CUDA graph of one enqueueV3; Enqueue Time is the host time of cudaGraphLaunch.\n";
    }
}

} // namespace kiln_tool
