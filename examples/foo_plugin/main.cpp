// SPDX-License-Identifier: Apache-2.0
// foo_plugin [plan-path]   (default: foo_plugin.plan in the working directory)
//
// Builds "X" [N, 64] -> foo_0 -> foo_1 -> foo_2 -> foo_3 -> "Y", four FooPlugin layers (scale 2, 2, 2 and 0.5) that
// share the weights W through the plugin registry. The builder times FooPlugin's two custom tactics through a timing
// cache; foo_1 and foo_2 have foo_0's timing-cache key (same ID, shapes and formats), so only foo_0 and foo_3 are
// timed. The plan is saved, loaded in a fresh runtime and run, on the GPU or on the host (io_buffers.h); the example
// prints the tactic the engine chose for each layer, checks Y against plain loops, and checks that W was obtained
// once for the four run-time plugins and released when they were gone.
#include "example_common.h"
#include "foo_plugin.h"
#include "io_buffers.h"
#include "shared_weights.h"

#include "NvInfer.h"

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "foo_plugin";
constexpr int32_t kMaxBatch = 8;

//! The four layers: name and scale.
struct FooLayer
{
    char const* name;
    float scale;
};
FooLayer const kLayers[] = {{"foo_0", 2.0F}, {"foo_1", 2.0F}, {"foo_2", 2.0F}, {"foo_3", 0.5F}};

//! Builds the network and returns the serialized engine, or nullptr; prints how often each layer was timed.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored).
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* tensor = network->addInput("X", DataType::kFLOAT, Dims2{-1, kFooWidth});
    for (FooLayer const& layer : kLayers)
    {
        PluginField const scale("scale", &layer.scale, PluginFieldType::kFLOAT32, 1);
        PluginFieldCollection const fields{1, &scale};
        std::unique_ptr<IPluginV3> plugin{fooPluginCreator().createPlugin(layer.name, &fields, TensorRTPhase::kBUILD)};
        IPluginV3Layer* foo = plugin != nullptr ? network->addPluginV3(&tensor, 1, nullptr, 0, *plugin) : nullptr;
        if (foo == nullptr)
        {
            return nullptr;
        }
        foo->setName(layer.name);
        tensor = foo->getOutput(0);
    }
    tensor->setName("Y");
    network->markOutput(*tensor);

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("X", OptProfileSelector::kMIN, Dims2{1, kFooWidth});
    profile->setDimensions("X", OptProfileSelector::kOPT, Dims2{4, kFooWidth});
    profile->setDimensions("X", OptProfileSelector::kMAX, Dims2{kMaxBatch, kFooWidth});
    config->addOptimizationProfile(profile);
    std::unique_ptr<ITimingCache> cache{config->createTimingCache(nullptr, 0)};
    if (cache == nullptr || !config->setTimingCache(*cache, false))
    {
        return nullptr;
    }
    std::unique_ptr<IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan != nullptr)
    {
        std::string timed;
        std::map<std::string, FooActivity> const activity = fooActivity();
        for (FooLayer const& layer : kLayers)
        {
            auto const found = activity.find(layer.name);
            timed += (timed.empty() ? "" : ", ") + std::string(layer.name) + " "
                + std::to_string(found != activity.end() ? found->second.timedRuns : 0);
        }
        std::unique_ptr<IHostMemory> const saved{cache->serialize()};
        std::printf("%s: built; enqueue calls while timing tactics: %s (timing cache: %zu bytes)\n", kExample,
            timed.c_str(), saved != nullptr ? saved->size() : std::size_t{0});
    }
    return plan;
}

//! Runs the engine at one batch size, checks Y and the tactics each layer ran with.
bool runAndCheck(ICudaEngine& engine, int64_t batch, std::mt19937& random)
{
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    std::vector<float> x(static_cast<std::size_t>(batch * kFooWidth));
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    for (float& value : x)
    {
        value = uniform(random);
    }
    std::vector<float> y(x.size(), NAN);
    Dims2 const shape{batch, kFooWidth};
    example::IoBuffers io(kExample, engine, *context);
    if (!context->setInputShape("X", shape) || !io.input("X", x) || !io.output("Y", y) || !io.enqueue())
    {
        return example::report(kExample, "running the engine", false);
    }

    std::vector<float> const w = SharedWeights::download();
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        float expected = x[i];
        for (FooLayer const& layer : kLayers)
        {
            expected = layer.scale * expected + w[i % kFooWidth];
        }
        maxDiff = std::max(maxDiff, example::difference(y[i], expected));
    }
    bool ok = example::report(kExample, example::toString(shape) + " through foo_0..foo_3", maxDiff, 0.0);

    std::string chosen;
    bool tacticsOk = true;
    std::map<std::string, FooActivity> const activity = fooActivity();
    for (FooLayer const& layer : kLayers)
    {
        auto const found = activity.find(layer.name);
        int32_t const tactic = found != activity.end() ? found->second.runtimeTactic : -1;
        tacticsOk = tacticsOk && (tactic == 1 || tactic == 2);
        chosen += (chosen.empty() ? "" : ", ") + std::string(layer.name) + " tactic " + std::to_string(tactic);
    }
    return example::report(kExample, "the engine ran " + chosen, tacticsOk) && ok;
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "foo_plugin.plan";
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(fooPluginCreator(), "example"))
    {
        std::printf("%s: registering FooPlugin failed\n", kExample);
        return 1;
    }
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(logger);
        if (plan == nullptr || !example::writeFile(path, plan->data(), plan->size()))
        {
            std::printf("%s: building or saving the plan failed\n", kExample);
            return 1;
        }
        std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), path.c_str());
    }

    bool ok = true;
    int32_t const downloadsBefore = SharedWeights::downloadCount();
    {
        std::vector<char> const bytes = example::readFile(path);
        std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
        std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
        if (engine == nullptr)
        {
            std::printf("%s: the plan did not load\n", kExample);
            return 1;
        }
        std::mt19937 random(2026);
        ok = runAndCheck(*engine, 3, random);
    }
    // While the engine ran, its four plugins held W together: one download. Now every copy must be released.
    int32_t const runDownloads = SharedWeights::downloadCount() - downloadsBefore;
    int32_t const downloads = SharedWeights::downloadCount();
    int32_t const releases = SharedWeights::releaseCount();
    ok = example::report(kExample,
             "W downloaded " + std::to_string(runDownloads) + " time(s) for the run, " + std::to_string(downloads)
                 + " in all, released " + std::to_string(releases) + " time(s)",
             runDownloads == 1 && downloads == releases)
        && ok;
    return ok ? 0 : 1;
}
