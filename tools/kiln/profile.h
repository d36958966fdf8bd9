// SPDX-License-Identifier: Apache-2.0
// The kiln tool's reports beyond the summary, under trtexec's flags:
// - --exportTimes: each timed query's phases as a JSON array with trtexec's keys (startEnqMs, endEnqMs, startH2dMs,
//   endH2dMs, startComputeMs, endComputeMs, startD2hMs, endD2hMs, h2dMs, computeMs, d2hMs, latencyMs), one object per
//   line. kiln runs one query at a time, so each phase starts when the one before it ends: the starts are the query's
//   host start plus the measured durations before them.
// - --dumpProfile / --exportProfile: per-layer times from a profiling run of its own (IProfiler set on the context,
//   no CUDA graph, no transfers, --iterations queries), after the timed run, so the timings never carry the
//   profiler (--separateProfileRun is what kiln always does). Printed as trtexec's table; exported as
//   [{"count": N}, {"name", "timeMs", "averageMs", "medianMs", "percentage"}, ...].
// - --dumpLayerInfo / --exportLayerInfo: the engine inspector's report (IEngineInspector): one line per layer, or
//   the whole engine as JSON.
//
//     writeTimesJson(trace, options.exportTimes);
//     LayerProfile const profile = profileLayers(context, io, options);
//     printProfile(profile, out);
#pragma once

#include "inference.h"
#include "options.h"
#include "tensors.h"

#include "NvInfer.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

//! Writes trace's queries to path (--exportTimes).
void writeTimesJson(Trace const& trace, std::string const& path);

//! One layer's times over a profiling run, in the order the engine first reported them.
struct LayerTimes
{
    std::string name;
    std::vector<float> ms; //!< One per query.
};

struct LayerProfile
{
    int32_t queries{};
    std::vector<LayerTimes> layers;
};

//! Runs options.iterations queries with a profiler set on context (no graph, no transfers), then unsets it.
LayerProfile profileLayers(nvinfer1::IExecutionContext& context, IoBindings const& io, Options const& options);

//! trtexec's profile table (--dumpProfile).
void printProfile(LayerProfile const& profile, std::ostream& out);

//! The profile as trtexec's JSON (--exportProfile).
void writeProfileJson(LayerProfile const& profile, std::string const& path);

//! The inspector's report of engine (with context's shapes where given): one line per layer to out
//! (--dumpLayerInfo), the JSON to jsonPath when not empty (--exportLayerInfo).
void reportLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context, bool print,
    std::string const& jsonPath, std::ostream& out);

} // namespace kiln_tool
