// SPDX-License-Identifier: Apache-2.0
#include "engine_build.h"

#include "files.h"
#include "io_formats.h"
#include "logger.h"
#include "progress.h"

#include "NvInfer.h"
#include "NvInferPlugin.h"
#include "NvOnnxParser.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>

namespace kiln_tool
{
namespace
{

using namespace nvinfer1;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

//! Loads one plugin library: with IPluginRegistry::loadLibrary when it has a plugin library's entry points, or
//! when dynamic (--dynamicPlugins) says so; else dlopen'ed for the creators its static initializers register.
void loadPluginLibrary(std::string const& path, bool dynamic, char const* flagName = nullptr)
{
    static std::mutex mutex;
    static std::set<std::string> loaded; // a library stays loaded for the process's life
    std::lock_guard<std::mutex> const lock(mutex);
    char const* flag = flagName != nullptr ? flagName : dynamic ? "--dynamicPlugins" : "--staticPlugins";
    if (loaded.count(path) > 0)
    {
        return;
    }
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
    {
        throw Failure(std::string(flag) + ": the plugin library " + path + " does not exist or is not a file");
    }
    bool useRegistry = dynamic;
    if (!dynamic)
    {
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr)
        {
            char const* why = dlerror();
            throw Failure(std::string(flag) + ": cannot load the plugin library " + path + ": "
                + (why != nullptr ? why : "dlopen failed"));
        }
        useRegistry = dlsym(handle, "getCreators") != nullptr || dlsym(handle, "getPluginCreators") != nullptr;
    }
    if (useRegistry && getPluginRegistry()->loadLibrary(path.c_str()) == nullptr)
    {
        throw Failure(std::string(flag) + ": IPluginRegistry::loadLibrary could not load the plugin library " + path
            + " (kiln's error above says why)");
    }
    loaded.insert(path);
}

void parseModel(nvonnxparser::IParser& parser, std::string const& path, bool verbose)
{
    if (!std::filesystem::exists(path))
    {
        throw Failure("--onnx: the model " + path + " does not exist");
    }
    if (parser.parseFromFile(path.c_str(), static_cast<int>(verbose ? Severity::kVERBOSE : Severity::kWARNING)))
    {
        return;
    }
    for (int32_t i = 0; i < parser.getNbErrors(); ++i)
    {
        nvonnxparser::IParserError const* error = parser.getError(i);
        std::string where = error->node() >= 0 ? std::string("node ") + std::to_string(error->node()) + " '"
                + error->nodeName() + "' (" + error->nodeOperator() + "): "
                                               : std::string();
        logger().error("ONNX parser: " + where + error->desc());
    }
    throw Failure("failed to parse the ONNX model " + path);
}

//! The network's input names, for messages: "x, mask".
std::string inputNames(INetworkDefinition const& network)
{
    std::string names;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        names += (i > 0 ? ", " : "") + std::string(network.getInput(i)->getName());
    }
    return names;
}

bool isDynamic(Dims const& dims)
{
    return std::any_of(dims.d, dims.d + std::max(dims.nbDims, 0), [](int64_t d) { return d < 0; });
}

bool sameDims(Dims const& a, Dims const& b)
{
    return a.nbDims == b.nbDims && std::equal(a.d, a.d + std::max(a.nbDims, 0), b.d);
}

struct ProfileShapes
{
    Dims min;
    Dims opt;
    Dims max;
};

//! The profile of a dynamic input: opt from --optShapes, else --shapes; min and max from their flags, else opt.
ProfileShapes profileShapes(std::string const& name, Dims const& dims, Options const& o)
{
    auto const find = [&](ShapeMap const& map) -> Dims const* {
        auto const found = map.find(name);
        return found != map.end() ? &found->second : nullptr;
    };
    Dims const* opt = find(o.optShapes);
    opt = opt != nullptr ? opt : find(o.shapes);
    Dims const* min = find(o.minShapes);
    Dims const* max = find(o.maxShapes);
    if (opt == nullptr)
    {
        if (min != nullptr || max != nullptr)
        {
            throw Failure("the input '" + name + "' has --minShapes or --maxShapes but no --optShapes or --shapes");
        }
        throw Failure("the input '" + name + "' has a dynamic shape (" + dimsText(dims)
            + ") and no shape was given for it: use --shapes=" + name + ":... or --minShapes, --optShapes and "
            + "--maxShapes");
    }
    return {min != nullptr ? *min : *opt, *opt, max != nullptr ? *max : *opt};
}

//! One optimization profile for the network's dynamic inputs (none when every input is static).
void addProfile(IBuilder& builder, INetworkDefinition const& network, IBuilderConfig& config, Options const& o)
{
    for (auto const& [flag, map] : {std::pair{"--shapes", &o.shapes}, std::pair{"--minShapes", &o.minShapes},
             std::pair{"--optShapes", &o.optShapes}, std::pair{"--maxShapes", &o.maxShapes}})
    {
        for (auto const& entry : *map)
        {
            bool found = false;
            for (int32_t i = 0; i < network.getNbInputs(); ++i)
            {
                found = found || entry.first == network.getInput(i)->getName();
            }
            if (!found)
            {
                throw Failure(std::string(flag) + " names '" + entry.first
                    + "', which is not an input of the model (inputs: " + inputNames(network) + ")");
            }
        }
    }
    IOptimizationProfile* profile = builder.createOptimizationProfile();
    bool dynamic = false;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        ITensor const* input = network.getInput(i);
        std::string const name = input->getName();
        if (input->isShapeTensor())
        {
            throw Failure(
                "the input '" + name + "' is a shape tensor; the tool does not yet give shape tensors values");
        }
        Dims const dims = input->getDimensions();
        if (!isDynamic(dims))
        {
            auto const given = o.shapes.find(name);
            if (given != o.shapes.end() && !sameDims(given->second, dims))
            {
                logger().warning("the input '" + name + "' has the static shape " + dimsText(dims)
                    + "; --shapes=" + name + ":" + dimsText(given->second) + " is not used");
            }
            continue;
        }
        ProfileShapes const shapes = profileShapes(name, dims, o);
        for (auto const& [selector, shape] : {std::pair{OptProfileSelector::kMIN, shapes.min},
                 std::pair{OptProfileSelector::kOPT, shapes.opt}, std::pair{OptProfileSelector::kMAX, shapes.max}})
        {
            if (!profile->setDimensions(name.c_str(), selector, shape))
            {
                throw Failure("the optimization profile refused the shapes of the input '" + name + "' (min "
                    + dimsText(shapes.min) + ", opt " + dimsText(shapes.opt) + ", max " + dimsText(shapes.max)
                    + ") for its dimensions " + dimsText(dims));
            }
        }
        dynamic = true;
    }
    if (dynamic && config.addOptimizationProfile(profile) < 0)
    {
        throw Failure("addOptimizationProfile failed (kiln's error above says why)");
    }
}

void configure(IBuilderConfig& config, Options const& o)
{
    for (auto const& [wanted, flag] : {std::pair{o.fp16, BuilderFlag::kFP16}, std::pair{o.bf16, BuilderFlag::kBF16},
             std::pair{o.int8, BuilderFlag::kINT8}, std::pair{o.fp8, BuilderFlag::kFP8}})
    {
        if (wanted)
        {
            config.setFlag(flag);
        }
    }
    if (o.noTF32)
    {
        config.clearFlag(BuilderFlag::kTF32);
    }
    if (o.refit)
    {
        config.setFlag(BuilderFlag::kREFIT);
    }
    for (MemoryPool const& pool : o.memoryPools)
    {
        config.setMemoryPoolLimit(pool.pool, pool.bytes);
    }
    if (o.builderOptimizationLevel)
    {
        config.setBuilderOptimizationLevel(*o.builderOptimizationLevel);
    }
    if (!o.pluginsToSerialize.empty())
    {
        std::vector<char const*> paths;
        for (std::string const& path : o.pluginsToSerialize)
        {
            paths.push_back(path.c_str());
        }
        config.setPluginsToSerialize(paths.data(), static_cast<int32_t>(paths.size()));
        if (config.getNbPluginsToSerialize() != static_cast<int32_t>(paths.size()))
        {
            throw Failure("--setPluginsToSerialize: the builder refused the list of libraries (kiln's error above "
                          "says why)");
        }
    }
}

//! A timing cache from --timingCacheFile (empty when the file does not exist yet), set on config.
std::unique_ptr<ITimingCache> loadTimingCache(IBuilderConfig& config, std::string const& path, std::ostream& out)
{
    std::vector<char> blob;
    if (std::filesystem::exists(path))
    {
        blob = readFile(path, "--timingCacheFile");
        out << "[I] Loaded " << blob.size() << " bytes of timing cache from " << path << "\n";
    }
    else
    {
        out << "[I] No timing cache in " << path << " yet: starting an empty one\n";
    }
    std::unique_ptr<ITimingCache> cache{config.createTimingCache(blob.data(), blob.size())};
    if (cache == nullptr || !config.setTimingCache(*cache, false))
    {
        throw Failure(
            "--timingCacheFile: kiln cannot use the timing cache in " + path + " (kiln's error above says why)");
    }
    return cache;
}

} // namespace

void loadPlugins(Options const& options)
{
    static std::once_flag standard;
    std::call_once(standard, [] {
        if (!initLibNvInferPlugins(&logger(), ""))
        {
            logger().warning("initLibNvInferPlugins failed: kiln's standard plugins are not registered");
        }
    });
    for (std::string const& path : options.staticPlugins)
    {
        loadPluginLibrary(path, /*dynamic=*/false);
    }
    for (std::string const& path : options.dynamicPlugins)
    {
        loadPluginLibrary(path, /*dynamic=*/true);
    }
    // A library the plan is to carry serves the build too, unless --staticPlugins or --dynamicPlugins loaded it.
    if (!options.onnx.empty())
    {
        for (std::string const& path : options.pluginsToSerialize)
        {
            bool const given = std::count(options.staticPlugins.begin(), options.staticPlugins.end(), path) > 0
                || std::count(options.dynamicPlugins.begin(), options.dynamicPlugins.end(), path) > 0;
            if (!given)
            {
                loadPluginLibrary(path, /*dynamic=*/true, "--setPluginsToSerialize");
            }
        }
    }
}

BuiltPlan buildNetworkAndPlan(Options const& options, std::ostream& out)
{
    Clock::time_point const start = Clock::now();
    BuiltPlan built;
    built.builder.reset(createInferBuilder(logger()));
    if (built.builder == nullptr)
    {
        throw Failure("createInferBuilder failed (kiln's error above says why)");
    }
    IBuilder* builder = built.builder.get();
    uint32_t const flags
        = options.stronglyTyped ? 1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED) : 0U;
    built.network.reset(builder->createNetworkV2(flags));
    INetworkDefinition* network = built.network.get();
    built.parser.reset(network != nullptr ? nvonnxparser::createParser(*network, logger()) : nullptr);
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    if (built.parser == nullptr || config == nullptr)
    {
        throw Failure("creating the network, the ONNX parser or the builder configuration failed");
    }
    parseModel(*built.parser, options.onnx, options.verbose);
    out << "[I] Parsed " << options.onnx << ": " << network->getNbLayers() << " layers, " << network->getNbInputs()
        << " inputs, " << network->getNbOutputs() << " outputs\n";
    applyIoFormats(*network, options.inputFormats, options.outputFormats);
    configure(*config, options);
    addProfile(*builder, *network, *config, options);
    // The builder's progress on stderr when it is a terminal (as trtexec), nothing in logs and pipes.
    TerminalProgress progress(std::cerr);
    if (stderrIsTerminal())
    {
        config->setProgressMonitor(&progress);
    }
    std::unique_ptr<ITimingCache> cache;
    if (options.noBuilderCache)
    {
        config->setFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE);
        if (!options.timingCacheFile.empty())
        {
            logger().warning("--timingCacheFile has no effect with --noBuilderCache: the build uses no timing cache");
        }
    }
    else if (!options.timingCacheFile.empty())
    {
        cache = loadTimingCache(*config, options.timingCacheFile, out);
    }

    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    config->setProgressMonitor(nullptr);
    if (plan == nullptr || plan->size() == 0)
    {
        throw Failure("building the engine failed (kiln's errors above say why)");
    }
    out << "[I] Engine built in " << secondsSince(start) << " sec.\n";
    out << "[I] Created engine with size: " << static_cast<double>(plan->size()) / (1024.0 * 1024.0) << " MiB\n";
    if (cache != nullptr)
    {
        std::unique_ptr<IHostMemory> const serialized{config->getTimingCache()->serialize()};
        if (serialized == nullptr)
        {
            throw Failure("--timingCacheFile: serializing the timing cache failed");
        }
        writeFile(options.timingCacheFile, serialized->data(), serialized->size(), "--timingCacheFile");
        out << "[I] Saved " << serialized->size() << " bytes of timing cache to " << options.timingCacheFile << "\n";
    }
    if (!options.saveEngine.empty())
    {
        writeFile(options.saveEngine, plan->data(), plan->size(), "--saveEngine");
        out << "[I] Engine saved to " << options.saveEngine << "\n";
    }
    auto const* data = static_cast<char const*>(plan->data());
    built.plan.assign(data, data + plan->size());
    return built;
}

std::vector<char> buildPlan(Options const& options, std::ostream& out)
{
    return buildNetworkAndPlan(options, out).plan;
}

std::vector<char> readPlan(std::string const& path)
{
    std::vector<char> plan = readFile(path, "--loadEngine");
    if (plan.empty())
    {
        throw Failure("--loadEngine: " + path + " is empty");
    }
    return plan;
}

LoadedEngine deserializePlan(std::vector<char> const& plan, bool allowEngineHostCode)
{
    LoadedEngine loaded;
    loaded.runtime.reset(createInferRuntime(logger()));
    if (loaded.runtime != nullptr)
    {
        loaded.runtime->setEngineHostCodeAllowed(allowEngineHostCode);
        loaded.engine.reset(loaded.runtime->deserializeCudaEngine(plan.data(), plan.size()));
    }
    if (loaded.engine == nullptr)
    {
        throw Failure("deserializing the engine failed (kiln's error above says why)");
    }
    return loaded;
}

} // namespace kiln_tool
