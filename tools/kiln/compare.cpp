// SPDX-License-Identifier: Apache-2.0
#include "compare.h"

#include "compare_runners.h"
#include "engine_build.h"
#include "logger.h"
#include "specs.h"
#include "values.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace kiln_tool
{
namespace
{

using Clock = std::chrono::steady_clock;

//! The runners in the order they run (kiln's first: they make the inputs), and the file of expected outputs.
constexpr std::array<char const*, 3> kRunners{"cuda", "host", "onnxruntime"};
constexpr char const* kFile = "file";

//! Default tolerances per precision: kiln's reduced precisions round every intermediate value.
struct PrecisionTolerance
{
    char const* precision;
    Tolerance tolerance;
};
constexpr PrecisionTolerance kFp32Tolerance{"FP32", {1e-5, 1e-5}};
constexpr PrecisionTolerance kFp16Tolerance{"--fp16", {1e-2, 1e-2}};
constexpr PrecisionTolerance kBf16Tolerance{"--bf16", {5e-2, 5e-2}};

struct CompareOptions
{
    Options kiln; //!< What the kiln runners build and run with: the model, shapes, precisions, plugins, inputs.
    std::vector<std::string> runners;
    bool runnersGiven{};
    std::string reference;
    std::string loadOutputs;
    uint32_t seed{1};
    std::optional<double> atol;
    std::optional<double> rtol;
    std::string python;
    bool json{};
};

//! Parses args; a usage error (printed to err) or --help gives the exit status instead.
std::optional<CompareOptions> parse(
    std::vector<std::string> const& args, std::ostream& out, std::ostream& err, int& exitStatus)
{
    CLI::App app("kiln compare: runs an ONNX model through kiln's CUDA and host backends and ONNX Runtime on the same "
                 "inputs and compares the outputs (exit status 1 on a mismatch)",
        "kiln compare");
    app.get_formatter()->column_width(30);
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    CompareOptions o;
    char const* python = std::getenv("KILN_PYTHON");
    o.python = python != nullptr && *python != '\0' ? python : "python3";
    std::vector<std::string> shapes;
    std::vector<std::string> loadInputs;
    bool tf32 = false;
    double atol = 0.0;
    double rtol = 0.0;
    auto const many = [](CLI::Option* option) {
        return option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)->allow_extra_args(false);
    };
    app.add_option("model", o.kiln.onnx, "The ONNX model")->required();
    many(app.add_option("--runners", o.runners,
             "Runners, comma-separated, of cuda, host, onnxruntime (default: every one that can run here; one named "
             "here that cannot run fails the comparison)"))
        ->delimiter(',')
        ->check(CLI::IsMember({"cuda", "host", "onnxruntime"}));
    app.add_option("--reference", o.reference,
           "The source the others are compared with: cuda, host, onnxruntime or file (default: file with "
           "--loadOutputs, else onnxruntime when it ran, else host, else cuda)")
        ->check(CLI::IsMember({"cuda", "host", "onnxruntime", kFile}));
    app.add_option("--loadOutputs", o.loadOutputs,
        "Expected outputs: a JSON file in the layout --exportOutput writes (trtexec's); compared as the source 'file'");
    many(app.add_option("--loadInputs", loadInputs,
        "Inputs from raw binary files of the tensor's bytes: name:file[,name:file...]; others are random"));
    many(app.add_option("--shapes", shapes,
        "Shapes of dynamic inputs: name:AxBxC[,name:AxBxC...] (also the build profile's min = opt = max)"));
    app.add_option("--seed", o.seed, "Seed of the random inputs: the first takes it, the next seed + 1, ...")
        ->capture_default_str();
    app.add_option("--atol", atol, "Absolute tolerance (default 1e-5; 1e-2 with --fp16, 5e-2 with --bf16)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--rtol", rtol, "Relative tolerance (default 1e-5; 1e-2 with --fp16, 5e-2 with --bf16)")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--fp16", o.kiln.fp16, "Let kiln's runners use FP16 (BuilderFlag::kFP16); ONNX Runtime stays FP32");
    app.add_flag("--bf16", o.kiln.bf16, "Let kiln's runners use BF16 (BuilderFlag::kBF16); ONNX Runtime stays FP32");
    app.add_flag("--tf32", tf32, "Let the cuda runner use TF32 (cleared by default, as Polygraphy does)");
    many(app.add_option(
        "--staticPlugins", o.kiln.staticPlugins, "Plugin library to load (repeatable), as in the build-and-run mode"));
    many(app.add_option("--dynamicPlugins", o.kiln.dynamicPlugins,
        "Plugin library to load with IPluginRegistry::loadLibrary (repeatable)"));
    app.add_option("--device", o.kiln.device, "CUDA device of the cuda runner")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option(
           "--python", o.python, "Python interpreter of the onnxruntime runner (default: KILN_PYTHON, else python3)")
        ->capture_default_str();
    app.add_flag("--json", o.json, "One JSON object on stdout instead of text");
    app.add_flag("--verbose", o.kiln.verbose, "Print kiln's verbose messages and the runners' build messages");

    std::vector<char const*> argv{"kiln compare"};
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    try
    {
        app.parse(static_cast<int>(argv.size()), argv.data());
        for (std::string const& text : shapes)
        {
            for (auto const& [name, dims] : parseShapeList(text))
            {
                o.kiln.shapes[name] = dims;
            }
        }
        for (std::string const& text : loadInputs)
        {
            std::vector<NamedFile> const files = parseNamedFiles(text);
            o.kiln.loadInputs.insert(o.kiln.loadInputs.end(), files.begin(), files.end());
        }
    }
    catch (CLI::ParseError const& e)
    {
        exitStatus = app.exit(e, out, err) == 0 ? 0 : 2;
        return std::nullopt;
    }
    catch (SpecError const& e)
    {
        err << severityTag(Severity::kERROR) << e.what() << "\n";
        exitStatus = 2;
        return std::nullopt;
    }
    o.kiln.noTF32 = !tf32;
    o.kiln.deviceGiven = app.count("--device") > 0;
    o.runnersGiven = app.count("--runners") > 0;
    if (app.count("--atol") > 0)
    {
        o.atol = atol;
    }
    if (app.count("--rtol") > 0)
    {
        o.rtol = rtol;
    }
    std::vector<std::string> ordered;
    for (char const* runner : kRunners)
    {
        if (!o.runnersGiven || std::find(o.runners.begin(), o.runners.end(), runner) != o.runners.end())
        {
            ordered.push_back(runner);
        }
    }
    o.runners = ordered;
    std::string problem;
    if (o.reference == kFile && o.loadOutputs.empty())
    {
        problem = "--reference=file compares with a --loadOutputs file; none was given";
    }
    else if (!o.reference.empty() && o.reference != kFile
        && std::find(o.runners.begin(), o.runners.end(), o.reference) == o.runners.end())
    {
        problem = "--reference=" + o.reference + " is not among --runners";
    }
    if (!problem.empty())
    {
        err << severityTag(Severity::kERROR) << problem << "\n";
        exitStatus = 2;
        return std::nullopt;
    }
    return o;
}

//! The tolerance: --atol and --rtol, each else the default for the precision kiln's runners use.
void chooseTolerance(CompareOptions const& o, CompareReport& report)
{
    PrecisionTolerance const& defaults = o.kiln.bf16 ? kBf16Tolerance : o.kiln.fp16 ? kFp16Tolerance : kFp32Tolerance;
    report.tolerance = {o.atol.value_or(defaults.tolerance.atol), o.rtol.value_or(defaults.tolerance.rtol)};
    std::string const defaultText = std::string("the default for ") + defaults.precision;
    report.toleranceWhy = o.atol && o.rtol ? std::string("--atol and --rtol")
        : o.atol                           ? "--atol; rtol " + defaultText
        : o.rtol                           ? "--rtol; atol " + defaultText
                                           : "the defaults for " + std::string(defaults.precision);
}

bool sameInputs(std::vector<InputTensor> const& a, std::vector<InputTensor> const& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](InputTensor const& x, InputTensor const& y) {
        return x.name == y.name && x.type == y.type && x.dims == y.dims && x.bytes == y.bytes;
    });
}

std::string secondsText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.3f", seconds);
    return text;
}

//! What each source produced, by name.
using Produced = std::map<std::string, std::vector<TensorValues>>;

//! Runs the kiln runners, then ONNX Runtime on the inputs the first of them made.
void runRunners(CompareOptions const& o, CompareReport& report, Produced& produced, std::ostream& log)
{
    std::optional<std::vector<InputTensor>> inputs;
    std::string inputsFrom;
    for (std::string const& name : o.runners)
    {
        RunnerStatus status;
        status.name = name;
        Clock::time_point const start = Clock::now();
        try
        {
            if (name == "onnxruntime")
            {
                if (!inputs)
                {
                    status.detail = "it runs on the inputs a kiln runner (cuda or host) makes, and none ran";
                }
                else
                {
                    OnnxRuntimeRun const run = runOnnxRuntime(o.kiln.onnx, *inputs, o.python);
                    status.notes = run.notes;
                    if (!run.ran)
                    {
                        status.detail = run.reason;
                    }
                    else
                    {
                        status.state = RunnerState::kRAN;
                        status.seconds = std::chrono::duration<double>(Clock::now() - start).count();
                        status.detail = "ONNX Runtime " + run.version + " (CPUExecutionProvider) through " + o.python
                            + ", in " + secondsText(status.seconds) + " s";
                        produced[name] = run.outputs;
                    }
                }
            }
            else if (std::string const unusable = kilnBackendUnusable(name); !unusable.empty())
            {
                status.detail = unusable;
            }
            else
            {
                KilnRun run = runKiln(name, o.kiln, o.seed, log);
                if (inputs && !sameInputs(*inputs, run.inputs))
                {
                    throw Failure("its inputs differ from those " + inputsFrom + " made from the same options");
                }
                if (!inputs)
                {
                    inputs = run.inputs;
                    inputsFrom = name;
                    for (InputTensor const& input : run.inputs)
                    {
                        report.inputs.push_back(
                            {input.name, std::string(typeName(input.type)), input.dims, input.source});
                    }
                }
                status.state = RunnerState::kRAN;
                status.seconds = std::chrono::duration<double>(Clock::now() - start).count();
                status.detail = run.detail + ", built and run in " + secondsText(status.seconds) + " s";
                produced[name] = std::move(run.outputs);
            }
        }
        catch (std::exception const& e) // Failure, and what the standard library throws
        {
            status.state = RunnerState::kFAILED;
            status.detail = e.what();
        }
        if (status.state == RunnerState::kSKIPPED && o.runnersGiven)
        {
            report.problems.push_back(name + " was asked for with --runners but did not run: " + status.detail);
        }
        report.runners.push_back(std::move(status));
    }
}

//! The reference: --reference, else the file, else onnxruntime, else host, else cuda; the first that produced.
void chooseReference(CompareOptions const& o, Produced const& produced, CompareReport& report)
{
    if (!o.reference.empty())
    {
        report.reference = o.reference;
        report.referenceWhy = "--reference";
        if (produced.count(o.reference) == 0)
        {
            report.problems.push_back("the reference " + o.reference + " did not run");
            report.reference.clear();
        }
        return;
    }
    for (char const* candidate : {kFile, "onnxruntime", "host", "cuda"})
    {
        if (produced.count(candidate) > 0)
        {
            report.reference = candidate;
            report.referenceWhy = std::string(candidate) == kFile
                ? "--loadOutputs"
                : "the default: the first of file, onnxruntime, host, cuda that ran";
            return;
        }
    }
    report.referenceWhy = "nothing ran";
    report.problems.push_back("no runner ran, and no --loadOutputs file was given: nothing to compare");
}

//! "the --loadOutputs file" or "the runner host", for messages.
std::string sourceText(std::string const& source)
{
    return source == kFile ? "the --loadOutputs file" : source;
}

std::string namesOf(std::vector<TensorValues> const& tensors)
{
    std::string names;
    for (TensorValues const& tensor : tensors)
    {
        names += (names.empty() ? "" : ", ") + tensor.name;
    }
    return names.empty() ? "none" : names;
}

TensorValues const* find(std::vector<TensorValues> const& tensors, std::string const& name)
{
    auto const found
        = std::find_if(tensors.begin(), tensors.end(), [&](TensorValues const& t) { return t.name == name; });
    return found != tensors.end() ? &*found : nullptr;
}

//! Every output of source against the reference's, and those that only one side has.
void compareSource(std::string const& source, std::vector<TensorValues> const& actual,
    std::vector<TensorValues> const& expected, CompareReport& report)
{
    std::string const& reference = report.reference;
    for (TensorValues const& wanted : expected)
    {
        if (TensorValues const* got = find(actual, wanted.name))
        {
            report.comparisons.push_back(compareOutput(*got, wanted, source, reference, report.tolerance));
        }
        else
        {
            report.comparisons.push_back(missingOutput(wanted.name, source, reference,
                sourceText(reference) + " has the output '" + wanted.name + "' but " + sourceText(source)
                    + " does not (it has: " + namesOf(actual) + ")"));
        }
    }
    for (TensorValues const& extra : actual)
    {
        if (find(expected, extra.name) == nullptr)
        {
            report.comparisons.push_back(missingOutput(extra.name, source, reference,
                sourceText(source) + " has the output '" + extra.name + "' but " + sourceText(reference)
                    + " does not (it has: " + namesOf(expected) + ")"));
        }
    }
}

} // namespace

CompareRun runCompare(std::vector<std::string> const& args, std::ostream& out, std::ostream& err)
{
    LoggerScope const scope(err, Severity::kWARNING);
    int exitStatus = 0;
    std::optional<CompareOptions> const parsed = parse(args, out, err, exitStatus);
    if (!parsed)
    {
        return {exitStatus, std::nullopt};
    }
    CompareOptions const& o = *parsed;
    logger().setSeverity(o.kiln.verbose ? Severity::kVERBOSE : Severity::kWARNING);
    std::ostream quiet(nullptr);
    std::ostream& log = o.kiln.verbose ? err : quiet;

    CompareReport report;
    report.model = o.kiln.onnx;
    chooseTolerance(o, report);
    Produced produced;
    try
    {
        loadPlugins(o.kiln);
        if (!o.loadOutputs.empty())
        {
            produced[kFile] = readOutputsJson(o.loadOutputs);
        }
    }
    catch (std::exception const& e)
    {
        logger().error(e.what());
        return {1, std::nullopt};
    }
    runRunners(o, report, produced, log);
    if (!o.loadOutputs.empty())
    {
        RunnerStatus file;
        file.name = kFile;
        file.state = RunnerState::kRAN;
        file.detail = "expected outputs from " + o.loadOutputs;
        report.runners.push_back(std::move(file));
    }
    chooseReference(o, produced, report);
    if (!report.reference.empty())
    {
        for (RunnerStatus const& source : report.runners)
        {
            if (source.name != report.reference && produced.count(source.name) > 0)
            {
                compareSource(source.name, produced.at(source.name), produced.at(report.reference), report);
            }
        }
        if (report.comparisons.empty())
        {
            report.problems.push_back(
                "nothing to compare: only " + report.reference + " produced outputs (the runners skipped say why)");
        }
    }
    if (o.json)
    {
        out << compareReportJson(report).dump(2) << "\n";
    }
    else
    {
        printCompareReport(report, out);
    }
    out.flush();
    int const status = report.passed() ? 0 : 1;
    return {status, std::move(report)};
}

} // namespace kiln_tool
