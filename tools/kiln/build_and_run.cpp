// SPDX-License-Identifier: Apache-2.0
#include "build_and_run.h"

#include "engine_build.h"
#include "gpu.h"
#include "inference.h"
#include "logger.h"
#include "options.h"
#include "profile.h"
#include "tensors.h"

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

//! Deserializes plan; times it when inference is asked for.
std::optional<PerformanceSummary> loadAndRun(std::vector<char> const& plan, Options const& o, std::ostream& out)
{
    Clock::time_point const start = Clock::now();
    LoadedEngine const loaded = deserializePlan(plan);
    nvinfer1::ICudaEngine& engine = *loaded.engine;
    out << "[I] Engine deserialized in " << std::chrono::duration<double>(Clock::now() - start).count() << " sec.\n";
    if (o.skipInference)
    {
        if (o.dumpLayerInfo || !o.exportLayerInfo.empty())
        {
            reportLayerInfo(engine, nullptr, o.dumpLayerInfo, o.exportLayerInfo, out);
        }
        out << "[I] Skipped inference (--skipInference)\n";
        return std::nullopt;
    }
    Owned<nvinfer1::IExecutionContext> const context{engine.createExecutionContext()};
    if (context == nullptr)
    {
        throw Failure("createExecutionContext failed (kiln's error above says why)");
    }
    ShapeMap const shapes = inferenceShapes(engine, o);
    IoBindings const io(engine, *context, shapes, o.loadInputs);
    if (o.dumpLayerInfo || !o.exportLayerInfo.empty())
    {
        reportLayerInfo(engine, context.get(), o.dumpLayerInfo, o.exportLayerInfo, out);
    }
    for (IoTensor const& tensor : io.tensors())
    {
        out << "[I] " << (tensor.input ? "Input " : "Output ") << tensor.name << ": "
            << (tensor.dims.nbDims == 0 ? std::string("scalar") : dimsText(tensor.dims)) << " in "
            << (tensor.onDevice ? "device" : "host") << " memory\n";
    }
    Trace trace;
    try
    {
        trace = runInference(*context, io, o, out);
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
    PerformanceSummary const summary = summarize(trace);
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
        std::vector<char> plan;
        if (options.loadEngine.empty())
        {
            plan = buildPlan(options, out);
            result.built = true;
        }
        else
        {
            plan = readPlan(options.loadEngine);
            out << "[I] Loaded engine of " << plan.size() << " bytes from " << options.loadEngine << "\n";
        }
        // A built engine is deserialized only for inference, or for the inspector's layer report.
        bool const layerInfo = options.dumpLayerInfo || !options.exportLayerInfo.empty();
        if (options.skipInference && result.built && !layerInfo)
        {
            out << "[I] Skipped inference (--skipInference)\n";
        }
        else
        {
            result.summary = loadAndRun(plan, options, out);
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
