// SPDX-License-Identifier: Apache-2.0
// bar_plugin [plan-path]   (default: bar_plugin.plan; the FP16 engine goes next to it as bar_plugin.kHALF.plan)
//
// Builds "X" [N, 3, H, W] and the shape input "S" [1] -> BarPlugin -> "Y" [S[0], 3, N, K], where K, the number of
// selected pixels, is known only when the plugin has run (bar_plugin.h says what it computes). One engine for FP32
// and one for FP16 X and Y; each is saved, loaded in a fresh runtime and run at two shapes, on the GPU or on the host
// (io_buffers.h). Y comes back through an IOutputAllocator (example::OutputAllocator: device memory for a CUDA
// engine, host memory for a host one), which is told Y's final shape; K and Y are checked against plain loops.
#include "bar_plugin.h"
#include "element_types.h"
#include "example_common.h"
#include "io_buffers.h"

#include "NvInfer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "bar_plugin";
constexpr int64_t kChannels = 3;

//! Builds the network for X of the given type and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger, DataType type)
{
    PluginFieldCollection const noFields{}; // BarPlugin has no attributes.
    std::unique_ptr<IPluginV3> plugin{barPluginCreator().createPlugin("bar", &noFields, TensorRTPhase::kBUILD)};
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored).
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", type, Dims4{-1, kChannels, -1, -1});
    ITensor* s = network->addInput("S", DataType::kINT32, Dims{1, {1}});
    IPluginV3Layer* bar = plugin != nullptr ? network->addPluginV3(&x, 1, &s, 1, *plugin) : nullptr;
    if (bar == nullptr)
    {
        return nullptr;
    }
    plugin.reset();
    bar->setName("bar");
    bar->getOutput(0)->setName("Y");
    network->markOutput(*bar->getOutput(0));

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("X", OptProfileSelector::kMIN, Dims4{1, kChannels, 1, 1});
    profile->setDimensions("X", OptProfileSelector::kOPT, Dims4{2, kChannels, 4, 4});
    profile->setDimensions("X", OptProfileSelector::kMAX, Dims4{2, kChannels, 8, 8});
    int64_t const repeats[] = {1, 2, 3}; // kMIN, kOPT, kMAX values of S[0]
    profile->setShapeValuesV2("S", OptProfileSelector::kMIN, &repeats[0], 1);
    profile->setShapeValuesV2("S", OptProfileSelector::kOPT, &repeats[1], 1);
    profile->setShapeValuesV2("S", OptProfileSelector::kMAX, &repeats[2], 1);
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Runs the engine with X of shape xShape and S = {repeats}; checks K and Y against plain loops.
bool runAndCheck(ICudaEngine& engine, DataType type, Dims4 const& xShape, int32_t repeats, std::mt19937& random)
{
    int64_t const n = xShape.d[0];
    int64_t const pixels = xShape.d[2] * xShape.d[3];
    std::vector<std::byte> x(static_cast<std::size_t>(example::volume(xShape) * example::elementSize(type)));
    std::vector<float> values; // X's values as the plugin reads them
    std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
    for (int64_t i = 0; i < example::volume(xShape); ++i)
    {
        example::storeElement(x.data(), type, i, uniform(random));
        values.push_back(example::loadElement(x.data(), type, i));
    }

    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    example::IoBuffers io(kExample, engine, *context);
    example::OutputAllocator allocator(kExample, engine, "Y");
    // S, a shape input, is in host memory on every engine; X and Y wherever the engine wants them.
    bool const ran = context->setInputShape("X", xShape) && io.input("X", x) && io.input("S", &repeats, sizeof(repeats))
        && io.output("Y", allocator) && io.enqueue();
    std::string const what = std::string(type == DataType::kHALF ? "kHALF " : "kFLOAT ") + example::toString(xShape)
        + ", S=[" + std::to_string(repeats) + "]";
    if (!ran)
    {
        return example::report(kExample, what + ": running the engine", false);
    }

    // The reference: the selected pixels, then Y.
    std::vector<int64_t> selected;
    for (int64_t pixel = 0; pixel < pixels; ++pixel)
    {
        float sum = 0.0F;
        for (int64_t plane = 0; plane < n * kChannels; ++plane)
        {
            sum += values[static_cast<std::size_t>(plane * pixels + pixel)];
        }
        if (sum > 0.0F)
        {
            selected.push_back(pixel);
        }
    }
    auto const k = static_cast<int64_t>(selected.size());
    Dims const expectedShape{4, {repeats, kChannels, n, k}};
    Dims const shape = allocator.shape();
    bool const shapeOk = example::toString(shape) == example::toString(expectedShape)
        && example::toString(context->getTensorShape("Y")) == example::toString(expectedShape);
    double maxDiff = shapeOk ? 0.0 : INFINITY;
    std::vector<std::byte> rounded(4); // expected values rounded to Y's type
    for (int64_t r = 0; r < repeats && shapeOk; ++r)
    {
        for (int64_t c = 0; c < kChannels; ++c)
        {
            for (int64_t i = 0; i < n; ++i)
            {
                for (int64_t j = 0; j < k; ++j)
                {
                    int64_t const at = ((r * kChannels + c) * n + i) * k + j;
                    std::size_t const source = static_cast<std::size_t>((i * kChannels + c) * pixels)
                        + static_cast<std::size_t>(selected[static_cast<std::size_t>(j)]);
                    example::storeElement(rounded.data(), type, 0, static_cast<float>(r + 1) * values[source]);
                    float const expected = example::loadElement(rounded.data(), type, 0);
                    float const actual = example::loadElement(allocator.data(), type, at);
                    maxDiff = std::max(maxDiff, example::difference(actual, expected));
                }
            }
        }
    }
    return example::report(kExample,
        what + ": K=" + std::to_string(k) + " of " + std::to_string(pixels) + " pixels, Y " + example::toString(shape),
        maxDiff, 0.0);
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "bar_plugin.plan";
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(barPluginCreator(), "example"))
    {
        std::printf("%s: registering BarPlugin failed\n", kExample);
        return 1;
    }
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
        ok = runAndCheck(*engine, type, Dims4{2, kChannels, 4, 5}, 2, random) && ok;
        ok = runAndCheck(*engine, type, Dims4{1, kChannels, 8, 8}, 3, random) && ok;
    }
    return ok ? 0 : 1;
}
