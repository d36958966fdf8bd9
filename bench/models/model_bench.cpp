// SPDX-License-Identifier: Apache-2.0
// kiln_model_bench: parses an ONNX model with kiln's ONNX parser, builds it as trtexec would (BuilderFlag::kFP16 for
// --fp16, one optimization profile with min = opt = max = the given shapes), runs it on inputs read from files and
// times IExecutionContext::enqueueV3 with CUDA events, plainly and replayed from a CUDA graph. One JSON object per line
// on stdout (kiln's messages go to stderr); bench/README.md lists the fields. Public TensorRT headers only.
//
//     kiln_model_bench MODEL.onnx --inputs DIR [--fp16] [--shapes name:32x128,...] [--iterations N] [--warmup N]
//                      [--dump DIR] [--no-graph] [--profile-log FILE] [--backend cuda|host] [--name NAME] [--batch N]
//
//     {"bench":"model","model":"bert","precision":"fp16","batch":32,"system":"kiln","mode":"graph","ms_median":..}
//
// DIR holds the inputs as tensor_files.h describes (bench/models/torch_models.py writes them). --dump writes the
// outputs the same way for torch_models.py to compare. --backend host builds for kiln's host backend and binds host
// memory (getTensorLocation says where): timed with the host's clock, no graph; what makes the runner testable
// without a GPU. A failure prints a line with "error"; the exit status is then 1 (2 for bad options).
// KILN_BENCH_PROFILER_RANGE=1 (CUDA): one more run after the first, between cudaProfilerStart and cudaProfilerStop, so
// that a kernel profiler started with collection off (ncu --profile-from-start off) sees exactly one enqueueV3.
#include "bench_logger.h"
#include "bench_support.h"
#include "layer_profile.h"
#include "model_session.h"
#include "tensor_files.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace
{

using namespace nvinfer1;
using namespace kiln_bench;
using Clock = std::chrono::steady_clock;

constexpr char const* kUsage
    = "usage: kiln_model_bench MODEL.onnx --inputs DIR [--fp16] [--shapes name:32x128,...] [--iterations N]\n"
      "                        [--warmup N] [--dump DIR] [--no-graph] [--profile-log FILE] [--backend cuda|host]\n"
      "                        [--name NAME] [--batch N]\n";

struct Options
{
    std::string model;
    std::string inputs;
    std::string name;  //!< "model" field; the file's name when not given
    int64_t batch{-1}; //!< "batch" field; the first input's first extent when not given
    bool fp16{};
    std::string shapes; //!< trtexec's --shapes: the profile's min = opt = max; the inputs' shapes when empty
    int32_t iterations{50};
    int32_t warmup{10};
    std::string dumpDir;
    std::string profileLog;
    bool graph{true};
    std::string backend{"cuda"};
};

std::optional<Options> parseOptions(int argc, char** argv)
{
    Options options;
    for (int i = 1; i < argc; ++i)
    {
        std::string_view const arg = argv[i];
        bool const hasValue = i + 1 < argc;
        auto const count = [&](int32_t& into, int32_t least) {
            char* end = nullptr;
            long const value = std::strtol(argv[++i], &end, 10);
            into = static_cast<int32_t>(value);
            return *end == '\0' && value >= least && value < (1L << 30);
        };
        if (arg == "--fp16")
        {
            options.fp16 = true;
        }
        else if (arg == "--no-graph")
        {
            options.graph = false;
        }
        else if (arg == "--inputs" && hasValue)
        {
            options.inputs = argv[++i];
        }
        else if (arg == "--name" && hasValue)
        {
            options.name = argv[++i];
        }
        else if (arg == "--batch" && hasValue)
        {
            options.batch = std::atoll(argv[++i]);
        }
        else if (arg == "--shapes" && hasValue)
        {
            options.shapes = argv[++i];
        }
        else if (arg == "--dump" && hasValue)
        {
            options.dumpDir = argv[++i];
        }
        else if (arg == "--profile-log" && hasValue)
        {
            options.profileLog = argv[++i];
        }
        else if (arg == "--backend" && hasValue
            && (std::string_view(argv[i + 1]) == "cuda" || std::string_view(argv[i + 1]) == "host"))
        {
            options.backend = argv[++i];
        }
        else if ((arg == "--iterations" && hasValue && count(options.iterations, 1))
            || (arg == "--warmup" && hasValue && count(options.warmup, 0)))
        {
        }
        else if (options.model.empty() && !arg.starts_with("--"))
        {
            options.model = arg;
        }
        else
        {
            std::cerr << "kiln_model_bench: bad option " << arg << "\n" << kUsage;
            return std::nullopt;
        }
    }
    if (options.model.empty() || options.inputs.empty())
    {
        std::cerr << kUsage;
        return std::nullopt;
    }
    if (options.name.empty())
    {
        std::string const file = options.model.substr(options.model.find_last_of('/') + 1);
        options.name = file.substr(0, file.rfind(".onnx"));
    }
    return options;
}

//! The fields every line of this run has, and a count of the lines with an error.
class Lines
{
public:
    Lines(Options const& options, std::string device)
        : mOptions(options)
        , mDevice(std::move(device))
    {
    }

    JsonLine line(std::string const& mode) const
    {
        JsonLine line;
        line.str("bench", "model").str("model", mOptions.name).str("precision", mOptions.fp16 ? "fp16" : "fp32");
        if (mOptions.batch >= 0) // unknown before the inputs are read
        {
            line.integer("batch", mOptions.batch);
        }
        line.str("system", "kiln");
        if (!mode.empty())
        {
            line.str("mode", mode);
        }
        line.str("device", mDevice).str("backend", mOptions.backend);
        return line;
    }

    void error(std::string const& mode, std::string const& message)
    {
        ++mErrors;
        line(mode).str("error", message).print();
    }

    int32_t errors() const noexcept { return mErrors; }

private:
    Options const& mOptions;
    std::string mDevice;
    int32_t mErrors{};
};

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Built
{
    std::vector<char> plan;
    double parseSeconds{};
    double buildSeconds{};
    int32_t networkLayers{};
};

//! Parses the model and builds its plan as trtexec does: createNetworkV2(0), kFP16 for --fp16, and one profile with
//! min = opt = max for each input with a dynamic extent.
Built parseAndBuild(Options const& options, std::map<std::string, Dims> const& shapes, BenchLogger& logger)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder ? builder->createNetworkV2(0) : nullptr};
    std::unique_ptr<IBuilderConfig> config{builder ? builder->createBuilderConfig() : nullptr};
    std::unique_ptr<nvonnxparser::IParser> parser{network ? nvonnxparser::createParser(*network, logger) : nullptr};
    if (parser == nullptr || config == nullptr)
    {
        throw BenchError(logger.takeLastError("creating the builder, network, config or parser failed"));
    }
    Built built;
    Clock::time_point start = Clock::now();
    bool const parsed = parser->parseFromFile(options.model.c_str(), static_cast<int>(ILogger::Severity::kWARNING));
    built.parseSeconds = secondsSince(start);
    if (!parsed)
    {
        std::string message = "parseFromFile(" + options.model + ") failed";
        for (int32_t i = 0; i < parser->getNbErrors() && i < 3; ++i)
        {
            nvonnxparser::IParserError const* error = parser->getError(i);
            message
                += std::string("; node ") + error->nodeName() + " (" + error->nodeOperator() + "): " + error->desc();
        }
        throw BenchError(message);
    }
    built.networkLayers = network->getNbLayers();
    std::cerr << "kiln_model_bench: " << options.name << ": parsed in " << built.parseSeconds << " s, "
              << built.networkLayers << " layers\n";

    if (options.fp16)
    {
        config->setFlag(BuilderFlag::kFP16);
    }
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    bool dynamic = false;
    for (int32_t i = 0; i < network->getNbInputs(); ++i)
    {
        ITensor const* input = network->getInput(i);
        Dims const dims = input->getDimensions();
        if (std::none_of(dims.d, dims.d + dims.nbDims, [](int64_t d) { return d < 0; }))
        {
            continue;
        }
        auto const found = shapes.find(input->getName());
        if (found == shapes.end())
        {
            throw BenchError(std::string("the input ") + input->getName() + " has a dynamic shape (" + shapeText(dims)
                + ") and --shapes does not give it");
        }
        for (OptProfileSelector const selector :
            {OptProfileSelector::kMIN, OptProfileSelector::kOPT, OptProfileSelector::kMAX})
        {
            if (!profile->setDimensions(input->getName(), selector, found->second))
            {
                throw BenchError(logger.takeLastError(std::string("the profile's setDimensions(") + input->getName()
                    + ", " + shapeText(found->second) + ") failed"));
            }
        }
        dynamic = true;
    }
    if (dynamic && config->addOptimizationProfile(profile) < 0)
    {
        throw BenchError(logger.takeLastError("addOptimizationProfile failed"));
    }

    start = Clock::now();
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    built.buildSeconds = secondsSince(start);
    if (plan == nullptr || plan->size() == 0)
    {
        throw BenchError(logger.takeLastError("buildSerializedNetwork failed"));
    }
    std::cerr << "kiln_model_bench: " << options.name << ": built in " << built.buildSeconds << " s\n";
    auto const* data = static_cast<char const*>(plan->data());
    built.plan.assign(data, data + plan->size());
    return built;
}

//! Timing of calls on the host's clock, for a host engine (whose enqueueV3 returns when the work is done).
Timing timeHostCalls(ModelSession const& session, int32_t warmup, int32_t iterations)
{
    for (int32_t i = 0; i < warmup; ++i)
    {
        session.enqueue(nullptr);
    }
    std::vector<double> times;
    for (int32_t i = 0; i < iterations; ++i)
    {
        Clock::time_point const start = Clock::now();
        session.enqueue(nullptr);
        times.push_back(secondsSince(start) * 1e3);
    }
    return summarize(std::move(times));
}

JsonLine& addTiming(JsonLine& line, Timing const& timing, Options const& options)
{
    return kiln_bench::addTiming(line, timing, options.iterations, options.warmup);
}

//! Whether every float output value is finite, and their mean |value|.
std::pair<bool, double> outputSummary(std::vector<HostTensor> const& outputs)
{
    bool finite = true;
    double total = 0.0;
    int64_t count = 0;
    for (HostTensor const& tensor : outputs)
    {
        if (tensor.type != DataType::kFLOAT && tensor.type != DataType::kHALF)
        {
            continue;
        }
        auto const n = static_cast<std::size_t>(volume(tensor.dims));
        for (std::size_t i = 0; i < n; ++i)
        {
            double const value = loadElement(tensor.bytes.data(), tensor.type, i);
            finite = finite && std::isfinite(value);
            total += std::fabs(value);
        }
        count += static_cast<int64_t>(n);
    }
    return {finite, count > 0 ? total / static_cast<double>(count) : 0.0};
}

//! Appends each layer's mean time over ten runs to the --profile-log file.
void writeLayerProfile(ModelSession const& session, Options const& options, cudaStream_t stream)
{
    constexpr int32_t kRuns = 10;
    LayerProfile profile;
    session.context().setProfiler(&profile);
    for (int32_t run = 0; run < kRuns; ++run)
    {
        session.enqueue(stream);
    }
    if (session.onDevice())
    {
        cudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the profiled runs");
    }
    session.context().setProfiler(nullptr);
    std::ofstream log(options.profileLog, std::ios::app);
    log << "kiln_model_bench: layers of " << options.name << " " << (options.fp16 ? "fp16" : "fp32") << " batch "
        << options.batch << " (mean ms of " << kRuns << " runs):\n";
    profile.print(log, kRuns);
}

//! Builds, loads and times the model: the enqueue line, then the graph line (CUDA only).
void run(Options const& options, std::vector<HostTensor> const& inputs, Lines& lines, BenchLogger& logger)
{
    std::map<std::string, Dims> shapes;
    for (HostTensor const& input : inputs)
    {
        shapes[input.name] = input.dims;
    }
    if (!options.shapes.empty())
    {
        shapes = parseShapeList(options.shapes);
    }
    Built const built = parseAndBuild(options, shapes, logger);
    bool const cuda = options.backend == "cuda";
    std::size_t const freeBefore = cuda ? freeDeviceBytes() : 0;
    ModelSession const session(logger, built.plan, inputs);
    std::optional<Stream> stream;
    if (session.onDevice())
    {
        stream.emplace();
    }
    cudaStream_t const s = stream ? stream->get() : nullptr;
    session.enqueue(s); // The first run: anything kiln sets up lazily stays out of the timings.
    if (stream)
    {
        cudaCheck(cudaStreamSynchronize(s), "cudaStreamSynchronize after the first run");
    }
    std::size_t const freeAfter = cuda ? freeDeviceBytes() : 0;
    if (stream && std::getenv("KILN_BENCH_PROFILER_RANGE") != nullptr)
    {
        // One run between cudaProfilerStart and Stop, for a kernel profiler started with its collection off
        // (ncu --profile-from-start off, nsys --capture-range=cudaProfilerApi).
        cudaCheck(cudaProfilerStart(), "cudaProfilerStart");
        session.enqueue(s);
        cudaCheck(cudaStreamSynchronize(s), "cudaStreamSynchronize after the profiled run");
        cudaCheck(cudaProfilerStop(), "cudaProfilerStop");
    }

    Timing const timing = stream
        ? timeLaunches([&](cudaStream_t t) { session.enqueue(t); }, s, options.warmup, options.iterations)
        : timeHostCalls(session, options.warmup, options.iterations);
    std::vector<HostTensor> const outputs = session.outputs();
    auto const [finite, absMean] = outputSummary(outputs);
    JsonLine line = lines.line("enqueue");
    std::string profileText;
    for (auto const& [name, dims] : shapes)
    {
        profileText += (profileText.empty() ? "" : ",") + name + ":" + shapeText(dims);
    }
    addTiming(line, timing, options)
        .str("shapes", profileText)
        .num("parse_s", built.parseSeconds)
        .num("build_s", built.buildSeconds)
        .integer("plan_bytes", static_cast<int64_t>(built.plan.size()))
        .integer("network_layers", built.networkLayers)
        .integer("engine_layers", session.engine().getNbLayers())
        .integer("engine_device_memory_bytes", session.engine().getDeviceMemorySizeV2())
        .integer("io_bytes", session.ioBytes());
    if (cuda)
    {
        line.integer("measured_device_delta_bytes",
            static_cast<int64_t>(freeBefore) - static_cast<int64_t>(std::min(freeBefore, freeAfter)));
    }
    line.boolean("output_finite", finite).num("output_abs_mean", absMean).print();
    if (!options.dumpDir.empty())
    {
        writeTensors(options.dumpDir, outputs);
    }
    if (!options.profileLog.empty())
    {
        writeLayerProfile(session, options, s);
    }

    if (!options.graph || !stream)
    {
        return;
    }
    try
    {
        Graph const graph([&](cudaStream_t t) { session.enqueue(t); }, s);
        Timing const replayed
            = timeLaunches([&](cudaStream_t t) { graph.replay(t); }, s, options.warmup, options.iterations);
        JsonLine graphLine = lines.line("graph");
        addTiming(graphLine, replayed, options).str("shapes", profileText).print();
    }
    catch (std::exception const& e)
    {
        lines.error("graph", std::string("CUDA graph capture or replay: ") + e.what());
    }
}

} // namespace

int main(int argc, char** argv)
{
    std::optional<Options> parsed = parseOptions(argc, argv);
    if (!parsed)
    {
        return 2;
    }
    Options& options = *parsed;
    setenv("KILN_BACKEND", options.backend.c_str(), 1); // before the builder: kiln reads it per build

    std::string device = "host";
    if (options.backend == "cuda")
    {
        cudaDeviceProp properties{};
        if (cudaError_t const status = cudaGetDeviceProperties(&properties, 0); status != cudaSuccess)
        {
            Lines(options, "unknown").error("", std::string("no usable GPU: ") + cudaGetErrorString(status));
            return 1;
        }
        device = properties.name;
    }
    BenchLogger logger("kiln_model_bench");
    Lines lines(options, device);
    try
    {
        std::vector<HostTensor> const inputs = readTensors(options.inputs);
        if (options.batch < 0 && !inputs.empty() && inputs.front().dims.nbDims > 0)
        {
            options.batch = inputs.front().dims.d[0];
        }
        run(options, inputs, lines, logger);
    }
    catch (std::exception const& e)
    {
        lines.error("", e.what());
    }
    return lines.errors() > 0 ? 1 : 0;
}
