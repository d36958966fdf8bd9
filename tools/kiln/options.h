// SPDX-License-Identifier: Apache-2.0
// The kiln tool's options: trtexec's flags (both --flag=value and --flag value) parsed by CLI11 from one table of
// flags, each with its help text, default and validation (options.cpp), into Options, plus a few of kiln's own
// (--backend, --allowEngineHostCode); unknown flags are CLI11's errors. `kiln --help` is the reference.
//
//     ParsedOptions parsed = parseOptions({"--onnx=model.onnx", "--shapes=x:1x3x224x224", "--fp16"}, out, err);
//     if (!parsed.options)
//         return parsed.exitStatus; // 0 after --help, 2 for a usage error (already printed to err)
#pragma once

#include "io_formats.h"
#include "specs.h"

#include "NvInfer.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kiln_tool
{

struct Options
{
    // Model and engine.
    std::string onnx;       //!< --onnx: the model to build
    std::string loadEngine; //!< --loadEngine: a plan to run instead of building
    std::string saveEngine; //!< --saveEngine: where the built plan goes
    bool skipInference{};   //!< --skipInference: build (or load) only

    // Shapes: the optimization profile (min, opt, max) and the shapes inference runs at (shapes).
    ShapeMap shapes;
    ShapeMap minShapes;
    ShapeMap optShapes;
    ShapeMap maxShapes;

    // Build.
    bool fp16{};
    bool bf16{};
    bool int8{};
    bool fp8{};
    bool stronglyTyped{};
    bool noTF32{};
    std::vector<MemoryPool> memoryPools;
    std::optional<int32_t> builderOptimizationLevel;
    std::string timingCacheFile;
    bool noBuilderCache{}; //!< --noBuilderCache: BuilderFlag::kDISABLE_TIMING_CACHE (no --timingCacheFile then)
    std::vector<IoFormat> inputFormats;  //!< --inputIOFormats: one per network input, or one for all
    std::vector<IoFormat> outputFormats; //!< --outputIOFormats: one per network output, or one for all
    bool refit{}; //!< --refit: BuilderFlag::kREFIT, then one refit with the model's own weights (refit.h)
    std::vector<std::string> pluginsToSerialize; //!< --setPluginsToSerialize: libraries the plan carries
    std::vector<std::string> staticPlugins;
    std::vector<std::string> dynamicPlugins;

    // Inference.
    int32_t iterations{10};
    double durationSeconds{3.0};
    double warmUpMs{200.0};
    int32_t avgRuns{10};
    int32_t streams{1}; //!< --streams: execution contexts run concurrently, each on its own stream and thread
    bool useCudaGraph{};
    bool noDataTransfers{};
    std::vector<NamedFile> loadInputs;
    std::string exportOutput;

    // Reporting (profile.h).
    std::string exportTimes;     //!< --exportTimes: each timed query's phases as JSON (trtexec's keys)
    bool dumpProfile{};          //!< --dumpProfile: per-layer times of a profiling run, printed
    std::string exportProfile;   //!< --exportProfile: the same as JSON (trtexec's layout)
    bool separateProfileRun{};   //!< --separateProfileRun: kiln always profiles in a run of its own (accepted)
    bool dumpLayerInfo{};        //!< --dumpLayerInfo: the engine inspector's layer report, printed
    std::string exportLayerInfo; //!< --exportLayerInfo: the engine inspector's JSON

    // System.
    int32_t device{0};
    bool deviceGiven{}; //!< --device was on the command line
    bool verbose{};
    std::string backend;        //!< --backend: "host" or "cuda"; empty: KILN_BACKEND, else a usable GPU, else the host
    bool allowEngineHostCode{}; //!< --allowEngineHostCode: IRuntime::setEngineHostCodeAllowed(true) for loaded plans
};

struct ParsedOptions
{
    std::optional<Options> options; //!< Empty: the process ends with exitStatus.
    int exitStatus{0};              //!< 0 after --help; 2 for a usage error, which is printed to err.
};

//! Parses args (the command line without the program's name); help goes to out, usage errors to err.
ParsedOptions parseOptions(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

} // namespace kiln_tool
