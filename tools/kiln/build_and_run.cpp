// SPDX-License-Identifier: Apache-2.0
#include "build_and_run.h"

#include "engine_build.h"
#include "gpu.h"
#include "inference.h"
#include "logger.h"
#include "options.h"
#include "profile.h"
#include "refit.h"
#include "tensors.h"
#include "values.h"

#include "NvInfer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <memory>

namespace kiln_tool
{
namespace
{

using Clock = std::chrono::steady_clock;

//! Sets KILN_BACKEND from --backend (before any builder exists: kiln reads it per build), makes --device current
//! where CUDA engines can run, and describes the choice. The CUDA backend asked for where no GPU is usable is a
//! Failure; the host backend asked for touches no CUDA at all.
std::string chooseBackend(Options const& o)
{
    char const* const env = std::getenv("KILN_BACKEND");
    std::string const asked = !o.backend.empty() ? o.backend : env != nullptr ? env : "";
    std::string const source = o.backend.empty() ? "KILN_BACKEND" : "--backend";
    std::string const unusable = asked == "host" ? "the host backend was asked for" : gpu::unusableReason();
    if (asked == "cuda" && !unusable.empty())
    {
        throw Failure(source + "=cuda: " + unusable + "; --backend=host runs on kiln's host backend");
    }
    if (!o.backend.empty())
    {
        setenv("KILN_BACKEND", o.backend.c_str(), 1);
    }
    if (!unusable.empty())
    {
        if (o.deviceGiven)
        {
            logger().warning("--device has no effect: " + unusable);
        }
        return asked == "host" ? "host (" + source + ")" : "host (default: " + unusable + ")";
    }
    return (asked.empty() ? std::string("cuda (default: a GPU is usable)") : asked + " (" + source + ")") + "; device "
        + std::to_string(o.device) + ": " + gpu::selectDevice(o.device);
}

template <typename T>
using Owned = std::unique_ptr<T>;

//! --refit on engine: its refittable weights listed (each one with --verbose), then one refit with network's own
//! weights, timed; the milliseconds, or nullopt when there is no network (a loaded engine) to take them from.
std::optional<double> refitOnce(
    nvinfer1::ICudaEngine& engine, nvinfer1::INetworkDefinition* network, Options const& o, std::ostream& out)
{
    RefittableWeights const weights = refittableWeights(engine);
    out << "[I] Refittable weights: " << weights.names.size() << " by name, " << weights.layers.size()
        << " by layer and role\n";
    if (o.verbose)
    {
        for (RefittableWeights::ByName const& named : weights.names)
        {
            logger().verbose("Refittable weights '" + named.name + "': " + std::to_string(named.count) + " values of "
                + std::string(typeName(named.type)));
        }
        for (RefittableWeights::ByLayer const& entry : weights.layers)
        {
            logger().verbose("Refittable layer '" + entry.layer + "': " + roleName(entry.role));
        }
    }
    if (network == nullptr)
    {
        logger().warning("--refit: a loaded engine comes without the network whose weights the refit gives it, so the "
                         "refit is skipped (the engine is refittable)");
        return std::nullopt;
    }
    double const ms = refitWithNetworkWeights(engine, *network);
    out << "[I] Engine refitted in " << ms << " ms.\n";
    return ms;
}

//! Deserializes plan (refitting it once with --refit, from network's weights when it was built here); times it when
//! inference is asked for, on --streams contexts at once.
std::optional<PerformanceSummary> loadAndRun(
    std::vector<char> const& plan, nvinfer1::INetworkDefinition* network, Options const& o, std::ostream& out)
{
    Clock::time_point const start = Clock::now();
    LoadedEngine const loaded = deserializePlan(plan, o.allowEngineHostCode);
    nvinfer1::ICudaEngine& engine = *loaded.engine;
    out << "[I] Engine deserialized in " << std::chrono::duration<double>(Clock::now() - start).count() << " sec.\n";
    std::optional<double> const refitMs = o.refit ? refitOnce(engine, network, o, out) : std::nullopt;
    if (o.skipInference)
    {
        if (o.dumpLayerInfo || !o.exportLayerInfo.empty())
        {
            reportLayerInfo(engine, nullptr, o.dumpLayerInfo, o.exportLayerInfo, out);
        }
        out << "[I] Skipped inference (--skipInference)\n";
        return std::nullopt;
    }
    ShapeMap const shapes = inferenceShapes(engine, o);
    // One context per stream, each with I/O buffers of its own (the same input values).
    std::vector<Owned<nvinfer1::IExecutionContext>> contexts;
    std::vector<std::unique_ptr<IoBindings>> bindings;
    std::vector<InferenceStream> streams;
    for (int32_t i = 0; i < o.streams; ++i)
    {
        contexts.emplace_back(engine.createExecutionContext());
        if (contexts.back() == nullptr)
        {
            throw Failure("createExecutionContext failed (kiln's error above says why)"
                + (i > 0 ? " for stream " + std::to_string(i) + " of --streams=" + std::to_string(o.streams) : ""));
        }
        bindings.push_back(std::make_unique<IoBindings>(engine, *contexts.back(), shapes, o.loadInputs));
        streams.push_back({contexts.back().get(), bindings.back().get()});
    }
    nvinfer1::IExecutionContext* const context = contexts.front().get();
    IoBindings const& io = *bindings.front();
    if (o.dumpLayerInfo || !o.exportLayerInfo.empty())
    {
        reportLayerInfo(engine, context, o.dumpLayerInfo, o.exportLayerInfo, out);
    }
    for (IoTensor const& tensor : io.tensors())
    {
        out << "[I] " << (tensor.input ? "Input " : "Output ") << tensor.name << ": "
            << (tensor.dims.nbDims == 0 ? std::string("scalar") : dimsText(tensor.dims)) << " ("
            << typeName(tensor.type) << ") in " << (tensor.onDevice ? "device" : "host") << " memory\n";
    }
    Trace trace;
    try
    {
        trace = runInference(streams, o, out);
    }
    catch (Failure const& failure)
    {
        // Random values may be no valid input of the model (indices out of range): say what they were.
        bool const random = std::any_of(io.tensors().begin(), io.tensors().end(), [&](IoTensor const& tensor) {
            return tensor.input && std::none_of(o.loadInputs.begin(), o.loadInputs.end(), [&](NamedFile const& given) {
                return given.name == tensor.name;
            });
        });
        throw Failure(std::string(failure.what())
            + (random ? "; the inputs not given with --loadInputs held random values (floating point in [-1, 1], "
                        "integers in [-128, 127]), which may be no valid input of this model"
                      : ""));
    }
    PerformanceSummary summary = summarize(trace);
    summary.refitMs = refitMs;
    printTraceDetails(trace, o.avgRuns, out);
    printSummary(summary, trace, out);
    if (!o.exportTimes.empty())
    {
        writeTimesJson(trace, o.exportTimes);
        out << "[I] Timing trace of " << trace.queries.size() << " queries written to " << o.exportTimes << "\n";
    }
    if (o.dumpProfile || !o.exportProfile.empty())
    {
        // A run of its own after the timed one (trtexec's --separateProfileRun): the timings carry no profiler.
        LayerProfile const profile = profileLayers(*context, io, o);
        if (o.dumpProfile)
        {
            printProfile(profile, out);
        }
        if (!o.exportProfile.empty())
        {
            writeProfileJson(profile, o.exportProfile);
            out << "[I] Profile of " << profile.queries << " queries written to " << o.exportProfile << "\n";
        }
    }
    else if (o.separateProfileRun)
    {
        logger().warning("--separateProfileRun has no effect without --dumpProfile or --exportProfile");
    }
    if (!o.exportOutput.empty())
    {
        writeOutputsJson(io.tensors(), o.exportOutput);
        out << "[I] Outputs written to " << o.exportOutput << "\n";
    }
    return summary;
}

std::string commandLine(std::vector<std::string> const& args)
{
    std::string text = "kiln";
    for (std::string const& arg : args)
    {
        text += " " + arg;
    }
    return text;
}

} // namespace

RunResult buildAndRun(std::vector<std::string> const& args, std::ostream& out, std::ostream& err)
{
    LoggerScope const scope(err, Severity::kINFO);
    ParsedOptions const parsed = parseOptions(args, out, err);
    if (!parsed.options)
    {
        return RunResult{parsed.exitStatus, false, std::nullopt};
    }
    Options const& options = *parsed.options;
    logger().setSeverity(options.verbose ? Severity::kVERBOSE : Severity::kINFO);
    std::string const command = commandLine(args);
    out << "&&&& RUNNING kiln # " << command << "\n";
    RunResult result;
    try
    {
        std::string const backend = chooseBackend(options);
        printOptions(options, backend, out);
        loadPlugins(options);
        BuiltPlan built;
        if (options.loadEngine.empty())
        {
            built = buildNetworkAndPlan(options, out);
            result.built = true;
            if (!options.refit)
            {
                // Only the refit reads the network again: its weights need not stay in memory during inference.
                built.parser.reset();
                built.network.reset();
                built.builder.reset();
            }
        }
        else
        {
            built.plan = readPlan(options.loadEngine);
            out << "[I] Loaded engine of " << built.plan.size() << " bytes from " << options.loadEngine << "\n";
        }
        // A built engine is deserialized only for inference, the inspector's layer report or the refit.
        bool const layerInfo = options.dumpLayerInfo || !options.exportLayerInfo.empty();
        if (options.skipInference && result.built && !layerInfo && !options.refit)
        {
            out << "[I] Skipped inference (--skipInference)\n";
        }
        else
        {
            result.summary = loadAndRun(built.plan, built.network.get(), options, out);
        }
        out << "&&&& PASSED kiln # " << command << "\n";
    }
    catch (std::exception const& e) // Failure, and what the standard library throws (bad_alloc, ...)
    {
        logger().error(e.what());
        out << "&&&& FAILED kiln # " << command << "\n";
        result.exitStatus = 1;
    }
    out.flush();
    return result;
}

} // namespace kiln_tool
