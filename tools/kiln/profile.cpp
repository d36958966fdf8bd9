// SPDX-License-Identifier: Apache-2.0
#include "profile.h"

#include "files.h"
#include "logger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

namespace kiln_tool
{
namespace
{

//! Collects reportLayerTime calls, one list of times per layer name, in the order of first report.
class Collector final : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        try
        {
            std::string const name = layerName != nullptr ? layerName : "";
            auto [found, made] = mIndex.try_emplace(name, mProfile.layers.size());
            if (made)
            {
                mProfile.layers.push_back(LayerTimes{name, {}});
            }
            mProfile.layers[found->second].ms.push_back(ms);
        }
        catch (...)
        {
            // A profiler must not throw into the engine; a time lost to memory exhaustion is only a time lost.
        }
    }

    LayerProfile take(int32_t queries)
    {
        mProfile.queries = queries;
        return std::move(mProfile);
    }

private:
    LayerProfile mProfile;
    std::map<std::string, std::size_t> mIndex;
};

double totalOf(LayerTimes const& layer)
{
    return std::accumulate(layer.ms.begin(), layer.ms.end(), 0.0);
}

double medianOf(std::vector<float> times)
{
    if (times.empty())
    {
        return 0.0;
    }
    std::sort(times.begin(), times.end());
    std::size_t const half = times.size() / 2;
    return times.size() % 2 == 1 ? times[half] : (static_cast<double>(times[half - 1]) + times[half]) / 2.0;
}

void writeText(std::string const& text, std::string const& path, std::string const& flag)
{
    writeFile(path, text.data(), text.size(), flag);
}

} // namespace

void writeTimesJson(Trace const& trace, std::string const& path)
{
    std::ostringstream out;
    out << std::setprecision(9) << "[\n";
    char const* separator = "  ";
    for (QueryTime const& q : trace.queries)
    {
        double const h2dEnd = q.startMs + q.h2dMs;
        double const computeEnd = h2dEnd + q.computeMs;
        out << separator << "{ \"startEnqMs\" : " << q.startMs << ", \"endEnqMs\" : " << q.startMs + q.enqueueMs
            << ", \"startH2dMs\" : " << q.startMs << ", \"endH2dMs\" : " << h2dEnd
            << ", \"startComputeMs\" : " << h2dEnd << ", \"endComputeMs\" : " << computeEnd
            << ", \"startD2hMs\" : " << computeEnd << ", \"endD2hMs\" : " << computeEnd + q.d2hMs
            << ", \"h2dMs\" : " << q.h2dMs << ", \"computeMs\" : " << q.computeMs << ", \"d2hMs\" : " << q.d2hMs
            << ", \"latencyMs\" : " << q.latencyMs() << " }\n";
        separator = ", ";
    }
    out << "]\n";
    writeText(out.str(), path, "--exportTimes");
}

LayerProfile profileLayers(nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options)
{
    Collector collector;
    Options run = options;
    run.useCudaGraph = false;
    run.noDataTransfers = true;
    run.warmUpMs = 0.0;
    run.durationSeconds = 0.0;
    nvinfer1::IProfiler* const before = context.getProfiler();
    context.setProfiler(&collector);
    std::ostringstream discarded;
    Trace trace;
    try
    {
        trace = runInference(context, io, run, discarded);
    }
    catch (...)
    {
        context.setProfiler(before);
        throw;
    }
    context.setProfiler(before);
    return collector.take(static_cast<int32_t>(trace.queries.size()));
}

void printProfile(LayerProfile const& profile, std::ostream& out)
{
    double total = 0.0;
    for (LayerTimes const& layer : profile.layers)
    {
        total += totalOf(layer);
    }
    auto const queries = std::max(profile.queries, 1);
    std::ios::fmtflags const flags = out.flags();
    out << "[I] \n[I] === Profile (" << profile.queries << " iterations ) ===\n";
    out << "[I]    Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer\n";
    out << std::fixed;
    for (LayerTimes const& layer : profile.layers)
    {
        double const sum = totalOf(layer);
        out << "[I] " << std::setw(11) << std::setprecision(2) << sum << std::setw(13) << std::setprecision(4)
            << sum / queries << std::setw(13) << medianOf(layer.ms) << std::setw(10) << std::setprecision(1)
            << (total > 0.0 ? 100.0 * sum / total : 0.0) << "   " << layer.name << "\n";
    }
    out << "[I] " << std::setw(11) << std::setprecision(2) << total << std::setw(13) << std::setprecision(4)
        << total / queries << std::setw(13) << total / queries << std::setw(10) << std::setprecision(1) << 100.0
        << "   Total\n";
    out.flags(flags);
}

void writeProfileJson(LayerProfile const& profile, std::string const& path)
{
    double total = 0.0;
    for (LayerTimes const& layer : profile.layers)
    {
        total += totalOf(layer);
    }
    auto const queries = std::max(profile.queries, 1);
    std::ostringstream out;
    out << std::setprecision(9) << "[\n  { \"count\" : " << profile.queries << " }\n";
    for (LayerTimes const& layer : profile.layers)
    {
        double const sum = totalOf(layer);
        out << ", { \"name\" : " << nlohmann::json(layer.name).dump() << ", \"timeMs\" : " << sum
            << ", \"averageMs\" : " << sum / queries << ", \"medianMs\" : " << medianOf(layer.ms)
            << ", \"percentage\" : " << (total > 0.0 ? 100.0 * sum / total : 0.0) << " }\n";
    }
    out << "]\n";
    writeText(out.str(), path, "--exportProfile");
}

void reportLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context, bool print,
    std::string const& jsonPath, std::ostream& out)
{
    std::unique_ptr<nvinfer1::IEngineInspector> const inspector{engine.createEngineInspector()};
    if (inspector == nullptr)
    {
        throw Failure("createEngineInspector failed (kiln's error above says why)");
    }
    if (context != nullptr)
    {
        inspector->setExecutionContext(context);
    }
    if (print)
    {
        out << "[I] Layer Information:\n";
        for (int32_t l = 0; l < engine.getNbLayers(); ++l)
        {
            char const* const line = inspector->getLayerInformation(l, nvinfer1::LayerInformationFormat::kONELINE);
            out << "[I] " << (line != nullptr ? line : "(no information)") << "\n";
        }
    }
    if (!jsonPath.empty())
    {
        char const* const json = inspector->getEngineInformation(nvinfer1::LayerInformationFormat::kJSON);
        if (json == nullptr)
        {
            throw Failure("the engine inspector gave no JSON report (kiln's error above says why)");
        }
        writeText(std::string(json) + "\n", jsonPath, "--exportLayerInfo");
        out << "[I] Layer information written to " << jsonPath << "\n";
    }
}

} // namespace kiln_tool
