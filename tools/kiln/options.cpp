// SPDX-License-Identifier: Apache-2.0
#include "options.h"

#include "logger.h"

#include <CLI/CLI.hpp>

#include <string_view>
#include <tuple>

namespace kiln_tool
{
namespace
{

constexpr char const* kBuildGroup = "Build Options";
constexpr char const* kShapeGroup = "Shape Options";
constexpr char const* kInferenceGroup = "Inference Options";
constexpr char const* kReportingGroup = "Reporting Options";

//! Flags whose values are converted after CLI11's parse: spec strings (each flag may be given more than once) and
//! the optimization level (optional in Options).
struct RawFlags
{
    int32_t optimizationLevel{-1};
    std::vector<std::string> shapes;
    std::vector<std::string> minShapes;
    std::vector<std::string> optShapes;
    std::vector<std::string> maxShapes;
    std::vector<std::string> memPoolSize;
    std::vector<std::string> loadInputs;
    std::vector<std::string> inputIOFormats;
    std::vector<std::string> outputIOFormats;
    std::vector<std::string> plugins; //!< trtexec's deprecated spelling of --staticPlugins.
};

//! The table of flags: every option, its help text, default and validation.
void addFlags(CLI::App& app, Options& o, RawFlags& raw, bool& best)
{
    auto const many = [](CLI::Option* option) {
        return option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
    };

    app.add_option("--onnx", o.onnx, "ONNX model to parse and build")->group("Model Options");
    app.add_option("--loadEngine", o.loadEngine, "Load a serialized engine (plan) instead of building one")
        ->group("Model Options");

    char const* const shapeSyntax
        = "name:AxBxC[,name:AxBxC...]; a name may be quoted with single quotes, e.g. 'input:0':1x3x224x224";
    many(app.add_option("--shapes", raw.shapes,
             std::string("Inference shapes of dynamic inputs: ") + shapeSyntax
                 + ". Alone, also the build profile's min = opt = max"))
        ->group(kShapeGroup);
    many(app.add_option("--minShapes", raw.minShapes,
             "Build profile's minimum shapes (syntax of --shapes); the profile's opt when not given"))
        ->group(kShapeGroup);
    many(app.add_option("--optShapes", raw.optShapes,
             "Build profile's optimum shapes (syntax of --shapes), --shapes when not given; also the inference shapes "
             "without --shapes"))
        ->group(kShapeGroup);
    many(app.add_option("--maxShapes", raw.maxShapes,
             "Build profile's maximum shapes (syntax of --shapes); the profile's opt when not given"))
        ->group(kShapeGroup);

    app.add_option("--saveEngine", o.saveEngine, "Save the built engine (plan) to this file")->group(kBuildGroup);
    app.add_flag("--fp16", o.fp16, "Enable FP16 precision (BuilderFlag::kFP16) in addition to FP32")
        ->group(kBuildGroup);
    app.add_flag("--bf16", o.bf16, "Enable BF16 precision (BuilderFlag::kBF16) in addition to FP32")
        ->group(kBuildGroup);
    app.add_flag("--int8", o.int8,
           "Enable INT8 precision (BuilderFlag::kINT8); kiln quantizes only explicitly (Q/DQ) and says so")
        ->group(kBuildGroup);
    app.add_flag("--fp8", o.fp8,
           "Enable FP8 precision (BuilderFlag::kFP8); kiln quantizes only explicitly (Q/DQ) and says so")
        ->group(kBuildGroup);
    app.add_flag("--best", best, "Enable all precisions: --fp16 --bf16 --int8 --fp8")->group(kBuildGroup);
    app.add_flag("--stronglyTyped", o.stronglyTyped,
           "Create a strongly typed network (NetworkDefinitionCreationFlag::kSTRONGLY_TYPED); excludes the precision "
           "flags")
        ->group(kBuildGroup);
    app.add_flag("--noTF32", o.noTF32, "Clear BuilderFlag::kTF32 (set by default)")->group(kBuildGroup);
    many(app.add_option("--memPoolSize", raw.memPoolSize,
             "Memory pool limits: pool:size[,pool:size...]; pools workspace, dlaSRAM, dlaLocalDRAM, dlaGlobalDRAM, "
             "tacticSharedMem; units B, K, M, G (M when none), e.g. workspace:1024M"))
        ->group(kBuildGroup);
    app.add_option("--builderOptimizationLevel", raw.optimizationLevel, "Builder optimization level, 0 to 5")
        ->check(CLI::Range(0, 5))
        ->group(kBuildGroup);
    app.add_option("--timingCacheFile", o.timingCacheFile,
           "Timing cache file: loaded before the build when it exists, saved after it")
        ->group(kBuildGroup);
    app.add_flag("--noBuilderCache", o.noBuilderCache,
           "Build without a timing cache (BuilderFlag::kDISABLE_TIMING_CACHE); --timingCacheFile is then not used")
        ->group(kBuildGroup);
    for (auto const& [flag, target, side] : {std::tuple{"--inputIOFormats", &raw.inputIOFormats, "input"},
             std::tuple{"--outputIOFormats", &raw.outputIOFormats, "output"}})
    {
        many(app.add_option(flag, *target,
                 std::string("Type and formats of the network's ") + side
                     + "s (ITensor::setType, setAllowedFormats): type:format[+format...], comma-separated, one per "
                     + side
                     + " in order or one for all; types fp32, fp16, bf16, int32, int64, int8, fp8, bool, uint8; "
                       "formats chw, chw2, chw4, hwc8, chw16, chw32, dhwc8, cdhw32, hwc, dla_linear, dla_hwc4, hwc16, "
                       "dhwc, of which kiln's builder gives I/O tensors chw only (the others are refused); e.g. "
                       "fp16:chw"))
            ->group(kBuildGroup);
    }
    many(app.add_option("--setPluginsToSerialize", o.pluginsToSerialize,
             "Plugin library the plan carries (IBuilderConfig::setPluginsToSerialize; repeatable): loaded for the "
             "build as with --dynamicPlugins, and stored in the plan with its creators' names, so that a process "
             "without the library can run the engine (with --allowEngineHostCode there)"))
        ->group(kBuildGroup);
    app.add_flag("--refit", o.refit,
           "Build a refittable engine (BuilderFlag::kREFIT), then refit it once with the model's own weights through "
           "IRefitter and report the time (--verbose lists the refittable weights); with --loadEngine, check that the "
           "engine is refittable and list its weights")
        ->group(kBuildGroup);

    app.add_flag("--skipInference", o.skipInference, "Build (or load) the engine, then stop without inference")
        ->group(kInferenceGroup);
    app.add_option("--iterations", o.iterations, "Run at least this many inferences")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(kInferenceGroup);
    app.add_option("--duration", o.durationSeconds, "Run inferences for at least this many seconds")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str()
        ->group(kInferenceGroup);
    app.add_option("--warmUp", o.warmUpMs, "Run inferences for this many milliseconds before timing them")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str()
        ->group(kInferenceGroup);
    app.add_option("--avgRuns", o.avgRuns, "Also report averages over groups of this many consecutive inferences")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(kInferenceGroup);
    app.add_option("--streams", o.streams,
           "Run this many execution contexts of the engine concurrently, each on its own CUDA stream and host thread "
           "(a host engine's contexts on threads); each runs --iterations and --duration, and the summary counts the "
           "queries of all of them")
        ->check(CLI::PositiveNumber)
        ->capture_default_str()
        ->group(kInferenceGroup);
    app.add_flag("--useCudaGraph", o.useCudaGraph,
           "Capture one enqueueV3 in a CUDA graph and replay it (CUDA engines; host engines run plainly, with a note)")
        ->group(kInferenceGroup);
    app.add_flag(
           "--noDataTransfers", o.noDataTransfers, "Do not copy inputs to or outputs from the device in each inference")
        ->group(kInferenceGroup);
    many(app.add_option("--loadInputs", raw.loadInputs,
             "Inputs from raw binary files of the tensor's bytes: name:file[,name:file...]; others are random"))
        ->group(kInferenceGroup);
    app.add_option("--exportOutput", o.exportOutput,
           "Write the outputs as a JSON array of {name, dimensions, values} (trtexec's layout)")
        ->group(kInferenceGroup);

    app.add_option("--exportTimes", o.exportTimes,
           "Write each timed query's phases as a JSON array (trtexec's keys: startEnqMs ... latencyMs)")
        ->group(kReportingGroup);
    app.add_flag("--dumpProfile", o.dumpProfile, "Print per-layer times from a profiling run (IProfiler)")
        ->group(kReportingGroup);
    app.add_option("--exportProfile", o.exportProfile, "Write the per-layer times as JSON (trtexec's layout)")
        ->group(kReportingGroup);
    app.add_flag("--separateProfileRun", o.separateProfileRun,
           "Profile in a run of its own, after the timed one (kiln always does: the timings never carry the profiler)")
        ->group(kReportingGroup);
    app.add_flag("--dumpLayerInfo", o.dumpLayerInfo, "Print the engine inspector's layer report, one line per layer")
        ->group(kReportingGroup);
    app.add_option("--exportLayerInfo", o.exportLayerInfo, "Write the engine inspector's layer report as JSON")
        ->group(kReportingGroup);

    app.add_option("--device", o.device, "CUDA device to run on")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str()
        ->group("System Options");
    app.add_flag("--verbose", o.verbose, "Print kiln's verbose messages")->group("System Options");
    app.add_option("--backend", o.backend,
           "kiln's backend to build for: host or cuda (sets KILN_BACKEND); default: KILN_BACKEND, else cuda where a "
           "GPU is usable, else host")
        ->check(CLI::IsMember({"host", "cuda"}))
        ->group("System Options");
    app.add_flag("--allowEngineHostCode", o.allowEngineHostCode,
           "kiln's own: let a loaded plan's plugin libraries (--setPluginsToSerialize) load and run in this process "
           "(IRuntime::setEngineHostCodeAllowed); without it such a plan is refused unless their creators are "
           "registered (--staticPlugins, --dynamicPlugins)")
        ->group("System Options");
    many(app.add_option("--staticPlugins", o.staticPlugins,
             "Plugin library to load (repeatable): through IPluginRegistry::loadLibrary when it exports getCreators or "
             "getPluginCreators, else dlopen'ed so that its static REGISTER_TENSORRT_PLUGIN creators register"))
        ->group("System Options");
    many(app.add_option("--plugins", raw.plugins, "Deprecated spelling of --staticPlugins (as in trtexec)"))
        ->group("System Options");
    many(app.add_option("--dynamicPlugins", o.dynamicPlugins,
             "Plugin library to load with IPluginRegistry::loadLibrary (repeatable)"))
        ->group("System Options");
}

//! Each of texts parsed with parse and merged; a SpecError names the flag.
template <typename Parse>
auto parseEach(std::vector<std::string> const& texts, char const* flag, Parse parse)
{
    decltype(parse(std::string_view())) merged;
    for (std::string const& text : texts)
    {
        try
        {
            auto parsed = parse(text);
            merged.insert(merged.end(), parsed.begin(), parsed.end());
        }
        catch (SpecError const& e)
        {
            throw SpecError(std::string(flag) + ": " + e.what());
        }
    }
    return merged;
}

ShapeMap parseShapes(std::vector<std::string> const& texts, char const* flag)
{
    ShapeMap shapes;
    for (auto const& [name, dims] : parseEach(texts, flag, [](std::string_view t) {
             ShapeMap const parsed = parseShapeList(t);
             return std::vector<std::pair<std::string, nvinfer1::Dims>>(parsed.begin(), parsed.end());
         }))
    {
        shapes[name] = dims;
    }
    return shapes;
}

//! Checks that need several flags; an error message, or empty.
std::string crossCheck(CLI::App const& app, Options const& o)
{
    if (o.onnx.empty() == o.loadEngine.empty())
    {
        return o.onnx.empty() ? "give a model with --onnx=FILE or an engine with --loadEngine=FILE"
                              : "--onnx and --loadEngine exclude each other";
    }
    if (!o.loadEngine.empty() && !o.saveEngine.empty())
    {
        return "--saveEngine saves a built engine; with --loadEngine nothing is built";
    }
    if (o.stronglyTyped && (o.fp16 || o.bf16 || o.int8 || o.fp8))
    {
        return "--stronglyTyped excludes --fp16, --bf16, --int8, --fp8 and --best: a strongly typed network's tensor "
               "types decide its precision";
    }
    if (o.skipInference)
    {
        for (CLI::Option const* option : app.get_options([](CLI::Option const* opt) {
                 // The inspector's layer report needs no inference; the times and the profile do.
                 return opt->get_group() == kInferenceGroup
                     || (opt->get_group() == kReportingGroup && opt->get_name() != "--dumpLayerInfo"
                         && opt->get_name() != "--exportLayerInfo");
             }))
        {
            if (option->count() > 0 && option->get_name() != "--skipInference")
            {
                logger().warning(option->get_name() + " has no effect with --skipInference");
            }
        }
    }
    if (!o.loadEngine.empty())
    {
        for (CLI::Option const* option : app.get_options([](CLI::Option const* opt) {
                 // --refit still checks a loaded engine and lists its weights (build_and_run.cpp).
                 return opt->get_group() == kBuildGroup && opt->get_name() != "--refit";
             }))
        {
            if (option->count() > 0)
            {
                logger().warning(option->get_name() + " has no effect with --loadEngine: the engine is built already");
            }
        }
        if (!o.minShapes.empty() || !o.maxShapes.empty())
        {
            logger().warning("--minShapes and --maxShapes have no effect with --loadEngine: the engine's profile is "
                             "built already");
        }
    }
    return {};
}

} // namespace

ParsedOptions parseOptions(std::vector<std::string> const& args, std::ostream& out, std::ostream& err)
{
    CLI::App app("kiln: builds an ONNX model into a kiln engine, or loads a saved one, and times inference on it. It "
                 "takes trtexec's flags; `--flag=value` and `--flag value` both work.",
        "kiln");
    app.get_formatter()->column_width(34);
    // A flag given twice takes its last value; the list flags (shapes, plugins, ...) take every value.
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    Options options;
    RawFlags raw;
    bool best = false;
    addFlags(app, options, raw, best);

    std::vector<char const*> argv{"kiln"};
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    try
    {
        app.parse(static_cast<int>(argv.size()), argv.data());
    }
    catch (CLI::ParseError const& e)
    {
        int const status = app.exit(e, out, err);
        return {std::nullopt, status == 0 ? 0 : 2};
    }

    auto const usageError = [&](std::string const& message) {
        err << severityTag(Severity::kERROR) << message << "\n";
        return ParsedOptions{std::nullopt, 2};
    };
    try
    {
        options.shapes = parseShapes(raw.shapes, "--shapes");
        options.minShapes = parseShapes(raw.minShapes, "--minShapes");
        options.optShapes = parseShapes(raw.optShapes, "--optShapes");
        options.maxShapes = parseShapes(raw.maxShapes, "--maxShapes");
        options.memoryPools = parseEach(raw.memPoolSize, "--memPoolSize", parseMemoryPools);
        options.loadInputs = parseEach(raw.loadInputs, "--loadInputs", parseNamedFiles);
        options.inputFormats = parseEach(raw.inputIOFormats, "--inputIOFormats", parseIoFormats);
        options.outputFormats = parseEach(raw.outputIOFormats, "--outputIOFormats", parseIoFormats);
    }
    catch (SpecError const& e)
    {
        return usageError(e.what());
    }
    if (best)
    {
        options.fp16 = options.bf16 = options.int8 = options.fp8 = true;
    }
    if (!raw.plugins.empty())
    {
        logger().warning("--plugins is deprecated: use --staticPlugins (the libraries are loaded as with it)");
        options.staticPlugins.insert(options.staticPlugins.end(), raw.plugins.begin(), raw.plugins.end());
    }
    options.deviceGiven = app.count("--device") > 0;
    if (raw.optimizationLevel >= 0)
    {
        options.builderOptimizationLevel = raw.optimizationLevel;
    }
    if (std::string const problem = crossCheck(app, options); !problem.empty())
    {
        return usageError(problem);
    }
    return {std::move(options), 0};
}

} // namespace kiln_tool
