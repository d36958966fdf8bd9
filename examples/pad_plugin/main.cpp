// SPDX-License-Identifier: Apache-2.0
// pad_plugin [plan-path]   (default: pad_plugin.plan in the working directory)
//
// Builds "X" [N, 3, H, W] -> PadPlugin -> "Y" [N, 3, 32, 32] with N in 1..4 and H, W in 1..32 (one optimization
// profile), saves the plan, loads it in a fresh runtime and runs it at two input shapes, on the GPU or on the host
// (io_buffers.h). Y must hold each image in its top-left corner and zeros elsewhere.
#include "example_common.h"
#include "io_buffers.h"

#include "NvInfer.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "pad_plugin";
constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 32;

//! Builds the network and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger)
{
    IPluginCreatorV3One* creator = example::findV3Creator("PadPlugin", "1", "");
    if (creator == nullptr)
    {
        return nullptr;
    }
    // PadPlugin has no attributes: an empty field collection.
    PluginFieldCollection const noFields{};
    std::unique_ptr<IPluginV3> plugin{creator->createPlugin("pad", &noFields, TensorRTPhase::kBUILD)};

    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored).
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", DataType::kFLOAT, Dims4{-1, kChannels, -1, -1});
    IPluginV3Layer* pad = plugin != nullptr ? network->addPluginV3(&x, 1, nullptr, 0, *plugin) : nullptr;
    if (pad == nullptr)
    {
        return nullptr;
    }
    plugin.reset(); // The network keeps its own clone.
    pad->setName("pad");
    pad->getOutput(0)->setName("Y");
    network->markOutput(*pad->getOutput(0));

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("X", OptProfileSelector::kMIN, Dims4{1, kChannels, 1, 1});
    profile->setDimensions("X", OptProfileSelector::kOPT, Dims4{2, kChannels, 16, 16});
    profile->setDimensions("X", OptProfileSelector::kMAX, Dims4{4, kChannels, kSide, kSide});
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Runs the engine with input shape `shape` and checks Y against plain loops.
bool runAndCheck(ICudaEngine& engine, Dims4 const& shape, std::mt19937& random)
{
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    std::vector<float> x(static_cast<std::size_t>(example::volume(shape)));
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    std::generate(x.begin(), x.end(), [&] { return uniform(random); });
    int64_t const batch = shape.d[0];
    int64_t const height = shape.d[2];
    int64_t const width = shape.d[3];
    std::vector<float> y(static_cast<std::size_t>(batch * kChannels * kSide * kSide), NAN);

    // X and Y in host memory or copied through device memory, wherever the engine wants them.
    example::IoBuffers io(kExample, engine, *context);
    if (!context->setInputShape("X", shape) || !io.input("X", x) || !io.output("Y", y) || !io.enqueue())
    {
        return example::report(kExample, example::toString(shape) + ": running the engine", false);
    }
    Dims const outShape = context->getTensorShape("Y");
    if (example::toString(outShape) != example::toString(Dims4{batch, kChannels, kSide, kSide}))
    {
        return example::report(
            kExample, example::toString(shape) + ": Y has shape " + example::toString(outShape), false);
    }
    double maxDiff = 0.0;
    for (int64_t plane = 0; plane < batch * kChannels; ++plane)
    {
        for (int64_t row = 0; row < kSide; ++row)
        {
            for (int64_t column = 0; column < kSide; ++column)
            {
                float const expected = row < height && column < width
                    ? x[static_cast<std::size_t>((plane * height + row) * width + column)]
                    : 0.0F;
                float const actual = y[static_cast<std::size_t>((plane * kSide + row) * kSide + column)];
                maxDiff = std::max(maxDiff, example::difference(actual, expected));
            }
        }
    }
    return example::report(kExample, example::toString(shape) + " -> " + example::toString(outShape), maxDiff, 0.0);
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "pad_plugin.plan";
    example::Logger logger(kExample);
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(logger);
        if (plan == nullptr || !example::writeFile(path, plan->data(), plan->size()))
        {
            std::printf("%s: building or saving the plan failed\n", kExample);
            return 1;
        }
        std::printf("%s: built the network and saved a %zu-byte plan to %s\n", kExample, plan->size(), path.c_str());
    } // Builder, network and plugin are gone: the engine comes from the file alone.

    std::vector<char> const bytes = example::readFile(path);
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    if (engine == nullptr)
    {
        std::printf("%s: the plan did not load\n", kExample);
        return 1;
    }
    std::mt19937 random(2026);
    bool ok = runAndCheck(*engine, Dims4{1, kChannels, 17, 20}, random);
    ok = runAndCheck(*engine, Dims4{4, kChannels, 32, 5}, random) && ok;
    return ok ? 0 : 1;
}
