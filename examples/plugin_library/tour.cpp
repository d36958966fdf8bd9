// SPDX-License-Identifier: Apache-2.0
// plugin_library_tour LIBRARY [plan-path]   (default plan: plugin_library.plan in the working directory)
//
// A plugin library used the TensorRT way: loads LIBRARY (libkiln_example_plugins.so, scale_plugin.cpp) with
// IPluginRegistry::loadLibrary, which calls its setLoggerFinder and registers the creators its getCreators returns;
// finds ScalePlugin by name, version and namespace; builds "X" [2, 3, 4] -> ScalePlugin (scale 2.5) -> "Y", saves the
// plan, loads it in a fresh runtime (which makes the plugin again from the plan's fields through the library's
// creator), runs it on the GPU (the plugin's enqueue) or on kiln's host backend (its enqueueHost; io_buffers.h) and
// checks that Y = 2.5 * X exactly; then destroys the engine and deregisters the library, which removes its creator.
// The library logs each plugin it creates through the logger kiln handed it.
#include "example_common.h"
#include "io_buffers.h"

#include "NvInfer.h"
#include "kiln/kiln.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "plugin_library";
constexpr float kScale = 2.5F;

//! example::Logger, and the plugin library's own kINFO messages (they start with "ScalePlugin").
class TourLogger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity == Severity::kINFO && std::strncmp(msg, "ScalePlugin", 11) == 0)
        {
            std::printf("%s: the library logs: %s\n", kExample, msg);
            std::fflush(stdout);
            return;
        }
        mWarnings.log(severity, msg);
    }

private:
    example::Logger mWarnings{kExample};
};

//! Whether the registry lists a creator of ScalePlugin version "1" in namespace "example" (a listing, so that a
//! miss logs nothing).
bool scaleCreatorRegistered()
{
    int32_t count = 0;
    IPluginCreatorInterface* const* creators = getPluginRegistry()->getAllCreators(&count);
    for (int32_t i = 0; i < count; ++i)
    {
        if (std::strcmp(creators[i]->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") == 0)
        {
            auto* creator = static_cast<IPluginCreatorV3One*>(creators[i]);
            if (std::strcmp(creator->getPluginName(), "ScalePlugin") == 0
                && std::strcmp(creator->getPluginVersion(), "1") == 0
                && std::strcmp(creator->getPluginNamespace(), "example") == 0)
            {
                return true;
            }
        }
    }
    return false;
}

//! Builds X [2, 3, 4] -> ScalePlugin -> Y with the library's creator and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger, IPluginCreatorV3One& creator)
{
    PluginField const field("scale", &kScale, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection const fields{1, &field};
    std::unique_ptr<IPluginV3> plugin{creator.createPlugin("scale", &fields, TensorRTPhase::kBUILD)};
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", DataType::kFLOAT, Dims3{2, 3, 4});
    IPluginV3Layer* scale = plugin != nullptr ? network->addPluginV3(&x, 1, nullptr, 0, *plugin) : nullptr;
    if (scale == nullptr)
    {
        return nullptr;
    }
    scale->setName("scale");
    scale->getOutput(0)->setName("Y");
    network->markOutput(*scale->getOutput(0));
    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Loads the plan in a fresh runtime, runs it and checks Y = kScale * X exactly.
bool runPlan(ILogger& logger, std::string const& path)
{
    std::vector<char> const bytes = example::readFile(path);
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    std::unique_ptr<IExecutionContext> context{engine != nullptr ? engine->createExecutionContext() : nullptr};
    if (context == nullptr)
    {
        return example::report(kExample, "loading the plan and creating an execution context", false);
    }
    bool const onHost = engine->getTensorLocation("Y") == TensorLocation::kHOST;
    std::vector<float> x(2 * 3 * 4);
    std::mt19937 random(2026);
    std::uniform_real_distribution<float> uniform(-4.0F, 4.0F);
    for (float& value : x)
    {
        value = uniform(random);
    }
    std::vector<float> y(x.size(), NAN);
    example::IoBuffers io(kExample, *engine, *context);
    if (!io.input("X", x) || !io.output("Y", y) || !io.enqueue())
    {
        return example::report(kExample, "running the engine", false);
    }
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        maxDiff = std::max(maxDiff, example::difference(y[i], kScale * x[i]));
    }
    std::string const where = onHost ? "on kiln's host backend (enqueueHost)" : "on the GPU (enqueue)";
    return example::report(kExample, "[2,3,4] " + where + ": Y = 2.5 * X", maxDiff, 0.0);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || argc > 3)
    {
        std::printf("usage: %s PLUGIN_LIBRARY [PLAN_PATH]\n", argv[0]);
        return 2;
    }
    std::string const path = argc > 2 ? argv[2] : "plugin_library.plan";
    TourLogger logger;
    kilnSetLogger(&logger); // the logger kiln hands the library through its setLoggerFinder
    IPluginRegistry* registry = getPluginRegistry();

    void* handle = registry->loadLibrary(argv[1]);
    bool ok = example::report(kExample, std::string("loadLibrary(") + argv[1] + ")", handle != nullptr);
    IPluginCreatorV3One* creator = handle != nullptr ? example::findV3Creator("ScalePlugin", "1", "example") : nullptr;
    ok = example::report(kExample, "the library registered ScalePlugin version 1 namespace example", creator != nullptr)
        && ok;
    if (!ok)
    {
        kilnSetLogger(nullptr);
        return 1;
    }
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(logger, *creator);
        if (plan == nullptr || !example::writeFile(path, plan->data(), plan->size()))
        {
            std::printf("%s: building or saving the plan failed\n", kExample);
            kilnSetLogger(nullptr);
            return 1;
        }
        std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), path.c_str());
    }
    ok = runPlan(logger, path) && ok;

    // Every plugin the library made is gone with its engine: the library may be deregistered.
    registry->deregisterLibrary(handle);
    ok = example::report(kExample, "ScalePlugin's creator is gone with its library", !scaleCreatorRegistered()) && ok;
    kilnSetLogger(nullptr);
    return ok ? 0 : 1;
}
