// SPDX-License-Identifier: Apache-2.0
// bar_plugin_v2 [plan-path]   (default: bar_plugin_v2.plan; the FP16 engine goes next to it as
// bar_plugin_v2.kHALF.plan)
//
// Builds "X0" [N0, 3, 4, 5] and "X1" [N1, 3, 4, 5] -> BarPlugin (an IPluginV2DynamicExt, added with addPluginV2) ->
// "Y0" [N0 + N1, 3, 4, 5] and "Y1" [N0, 3, 4, 5] (bar_plugin.h says what it computes). One engine for FP32 and one
// for FP16; each is saved, loaded in a fresh runtime and run at two pairs of batch sizes, on the GPU (the plugin
// through its enqueue) or on the host (through its registered host runner). Y0 must be X0 then X1, and Y1 must be X0,
// exactly.
#include "bar_plugin.h"
#include "element_types.h"
#include "example_common.h"
#include "io_buffers.h"

#include "NvInfer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "bar_plugin_v2";
constexpr int64_t kChannels = 3;
constexpr int64_t kHeight = 4;
constexpr int64_t kWidth = 5;

//! Builds the network for inputs of the given type and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger, DataType type)
{
    PluginFieldCollection const noFields{}; // BarPlugin has no attributes.
    IPluginV2* plugin = barPluginCreator().createPlugin("bar", &noFields);
    if (plugin == nullptr)
    {
        return nullptr;
    }
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension, which IPluginV2DynamicExt requires.
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* inputs[] = {network->addInput("X0", type, Dims4{-1, kChannels, kHeight, kWidth}),
        network->addInput("X1", type, Dims4{-1, kChannels, kHeight, kWidth})};
    IPluginV2Layer* bar = network->addPluginV2(inputs, 2, *plugin);
    plugin->destroy(); // The network keeps a clone; the object the creator made is ours to destroy.
    if (bar == nullptr)
    {
        return nullptr;
    }
    bar->setName("bar");
    bar->getOutput(0)->setName("Y0");
    bar->getOutput(1)->setName("Y1");
    network->markOutput(*bar->getOutput(0));
    network->markOutput(*bar->getOutput(1));

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    for (char const* name : {"X0", "X1"})
    {
        profile->setDimensions(name, OptProfileSelector::kMIN, Dims4{1, kChannels, kHeight, kWidth});
        profile->setDimensions(name, OptProfileSelector::kOPT, Dims4{2, kChannels, kHeight, kWidth});
        profile->setDimensions(name, OptProfileSelector::kMAX, Dims4{4, kChannels, kHeight, kWidth});
    }
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Random values of type for a tensor of shape; values holds them as the plugin reads them.
std::vector<std::byte> randomTensor(DataType type, Dims const& shape, std::mt19937& random, std::vector<float>& values)
{
    std::vector<std::byte> data(static_cast<std::size_t>(example::volume(shape) * example::elementSize(type)));
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    for (int64_t i = 0; i < example::volume(shape); ++i)
    {
        example::storeElement(data.data(), type, i, uniform(random));
        values.push_back(example::loadElement(data.data(), type, i));
    }
    return data;
}

//! The largest difference between the elements of data and expected (infinite when a shape is wrong).
double maxDifference(std::vector<std::byte> const& data, DataType type, std::vector<float> const& expected)
{
    double maxDiff = 0.0;
    for (std::size_t i = 0; i < expected.size(); ++i)
    {
        maxDiff = std::max(maxDiff,
            example::difference(example::loadElement(data.data(), type, static_cast<int64_t>(i)), expected[i]));
    }
    return maxDiff;
}

//! Runs the engine with batch sizes n0 and n1; checks Y0 = X0 then X1, and Y1 = X0.
bool runAndCheck(ICudaEngine& engine, DataType type, int64_t n0, int64_t n1, std::mt19937& random)
{
    Dims4 const shape0{n0, kChannels, kHeight, kWidth};
    Dims4 const shape1{n1, kChannels, kHeight, kWidth};
    Dims4 const concatenated{n0 + n1, kChannels, kHeight, kWidth};
    std::vector<float> values0;
    std::vector<float> values1;
    std::vector<std::byte> x0 = randomTensor(type, shape0, random, values0);
    std::vector<std::byte> x1 = randomTensor(type, shape1, random, values1);
    std::vector<std::byte> y0(
        static_cast<std::size_t>(example::volume(concatenated) * example::elementSize(type)), std::byte{0xFF});
    std::vector<std::byte> y1(x0.size(), std::byte{0xFF});

    std::string const what = std::string(type == DataType::kHALF ? "kHALF " : "kFLOAT ") + "X0 "
        + example::toString(shape0) + " + X1 " + example::toString(shape1);
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    if (context == nullptr)
    {
        return example::report(kExample, what + ": creating an execution context", false);
    }
    example::IoBuffers io(kExample, engine, *context);
    bool const ran = context->setInputShape("X0", shape0) && context->setInputShape("X1", shape1) && io.input("X0", x0)
        && io.input("X1", x1) && io.output("Y0", y0) && io.output("Y1", y1) && io.enqueue();
    if (!ran)
    {
        return example::report(kExample, what + ": running the engine", false);
    }
    bool const shapesOk = example::toString(context->getTensorShape("Y0")) == example::toString(concatenated)
        && example::toString(context->getTensorShape("Y1")) == example::toString(shape0);
    std::vector<float> expected0 = values0;
    expected0.insert(expected0.end(), values1.begin(), values1.end());
    double const diff0 = shapesOk ? maxDifference(y0, type, expected0) : INFINITY;
    double const diff1 = shapesOk ? maxDifference(y1, type, values0) : INFINITY;
    bool ok
        = example::report(kExample, what + " -> Y0 " + example::toString(concatenated) + " = X0 then X1", diff0, 0.0);
    ok = example::report(kExample, what + " -> Y1 " + example::toString(shape0) + " = X0", diff1, 0.0) && ok;
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "bar_plugin_v2.plan";
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(barPluginCreator(), "example"))
    {
        std::printf("%s: registering BarPlugin failed\n", kExample);
        return 1;
    }
#ifdef KILN_VERSION_MAJOR
    // kiln's host backend runs a V2 plugin through a host runner registered for its name, version and namespace.
    if (!kilnRegisterPluginV2HostRunner("BarPlugin", "1", "example", &barPluginHostRunner()))
    {
        std::printf("%s: registering BarPlugin's host runner failed\n", kExample);
        return 1;
    }
#endif
    std::mt19937 random(2026);
    bool ok = true;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF})
    {
        std::string const planPath = type == DataType::kFLOAT ? path : example::taggedPath(path, "kHALF");
        {
            std::unique_ptr<IHostMemory> plan = buildPlan(logger, type);
            if (plan == nullptr || !example::writeFile(planPath, plan->data(), plan->size()))
            {
                std::printf("%s: building or saving %s failed\n", kExample, planPath.c_str());
                return 1;
            }
            std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), planPath.c_str());
        }
        std::vector<char> const bytes = example::readFile(planPath);
        std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
        std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
        if (engine == nullptr)
        {
            std::printf("%s: %s did not load\n", kExample, planPath.c_str());
            return 1;
        }
        ok = runAndCheck(*engine, type, 1, 2, random) && ok;
        ok = runAndCheck(*engine, type, 3, 4, random) && ok;
    }
    return ok ? 0 : 1;
}
