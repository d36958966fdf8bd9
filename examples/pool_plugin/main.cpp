// SPDX-License-Identifier: Apache-2.0
// pool_plugin [plan-path]   (default: pool_plugin.plan; one engine per type, saved as pool_plugin.<type>.plan)
//
// For each of kFLOAT, kHALF, kBF16, kFP8 and kINT8: builds "X" [2, 4, 6, 8] -> PoolPlugin max 2x2 -> "Ymax"
// [2, 4, 3, 4] and X -> PoolPlugin average 3x2 -> "Yavg" [2, 4, 2, 4], all tensors of that type. For kINT8 and kFP8
// the tensors get ranges with ITensor::setDynamicRange (X and Ymax +-4, Yavg +-2), from which the builder derives the
// scales the plugin reads in PluginTensorDesc::scale: range / 127 for INT8, range / 448 for FP8. Each engine is saved,
// loaded in a fresh runtime, run on the GPU or on the host (io_buffers.h) and checked against plain loops.
#include "element_types.h"
#include "example_common.h"
#include "io_buffers.h"
#include "pool_plugin.h"

#include "NvInfer.h"

#include <cmath>
#include <cstddef>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "pool_plugin";
Dims4 const kInputShape{2, 4, 6, 8};
constexpr float kInputRange = 4.0F;

//! One pooling layer of the network.
struct Pooling
{
    char const* output; //!< The network output's name.
    int32_t mode;       //!< 0 max, 1 average.
    int32_t window[2];
    float range; //!< The output's dynamic range.
};
Pooling const kPoolings[] = {{"Ymax", 0, {2, 2}, 4.0F}, {"Yavg", 1, {3, 2}, 2.0F}};

char const* typeName(DataType type)
{
    switch (type)
    {
    case DataType::kHALF: return "kHALF";
    case DataType::kBF16: return "kBF16";
    case DataType::kFP8: return "kFP8";
    case DataType::kINT8: return "kINT8";
    default: return "kFLOAT";
    }
}

bool isQuantized(DataType type)
{
    return type == DataType::kINT8 || type == DataType::kFP8;
}

//! The scale the builder derives for a tensor of this type and symmetric range (1 for unquantized types).
float scaleFor(DataType type, float range)
{
    return type == DataType::kINT8 ? range / 127.0F : type == DataType::kFP8 ? range / 448.0F : 1.0F;
}

//! Builds the network for one type and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger, DataType type)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored).
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", type, kInputShape);
    if (isQuantized(type))
    {
        x->setDynamicRange(-kInputRange, kInputRange);
    }
    for (Pooling const& pooling : kPoolings)
    {
        PluginField const fields[] = {PluginField("mode", &pooling.mode, PluginFieldType::kINT32, 1),
            PluginField("window", pooling.window, PluginFieldType::kINT32, 2)};
        PluginFieldCollection const fc{2, fields};
        std::unique_ptr<IPluginV3> plugin{poolPluginCreator().createPlugin(pooling.output, &fc, TensorRTPhase::kBUILD)};
        IPluginV3Layer* layer = plugin != nullptr ? network->addPluginV3(&x, 1, nullptr, 0, *plugin) : nullptr;
        if (layer == nullptr)
        {
            return nullptr;
        }
        layer->setName(pooling.output);
        ITensor* y = layer->getOutput(0);
        y->setName(pooling.output);
        if (isQuantized(type))
        {
            y->setDynamicRange(-pooling.range, pooling.range);
        }
        network->markOutput(*y);
    }

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    // TensorRT's weakly typed networks need the precision allowed; kiln accepts the same flags.
    if (type == DataType::kHALF)
    {
        config->setFlag(BuilderFlag::kFP16);
    }
    if (type == DataType::kBF16)
    {
        config->setFlag(BuilderFlag::kBF16);
    }
    if (type == DataType::kFP8)
    {
        config->setFlag(BuilderFlag::kFP8);
    }
    if (type == DataType::kINT8)
    {
        config->setFlag(BuilderFlag::kINT8);
    }
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Runs the engine once and checks both outputs against plain loops.
bool runAndCheck(ICudaEngine& engine, DataType type, std::mt19937& random)
{
    int64_t const size = example::elementSize(type);
    float const inScale = scaleFor(type, kInputRange);
    std::vector<std::byte> x(static_cast<std::size_t>(example::volume(kInputShape) * size));
    std::uniform_real_distribution<float> uniform(-kInputRange, kInputRange);
    for (int64_t i = 0; i < example::volume(kInputShape); ++i)
    {
        example::storeElement(x.data(), type, i, uniform(random), inScale);
    }
    std::vector<std::vector<std::byte>> ys;
    std::unique_ptr<IExecutionContext> context{engine.createExecutionContext()};
    example::IoBuffers io(kExample, engine, *context);
    bool ran = io.input("X", x);
    for (Pooling const& pooling : kPoolings)
    {
        Dims const shape = context->getTensorShape(pooling.output);
        ys.emplace_back(static_cast<std::size_t>(example::volume(shape) * size), std::byte{0xAB});
        ran = ran && io.output(pooling.output, ys.back());
    }
    if (!ran || !io.enqueue())
    {
        return example::report(kExample, std::string(typeName(type)) + ": running the engine", false);
    }

    bool ok = true;
    for (std::size_t o = 0; o < std::size(kPoolings); ++o)
    {
        Pooling const& pooling = kPoolings[o];
        float const outScale = scaleFor(type, pooling.range);
        int64_t const planes = kInputShape.d[0] * kInputShape.d[1];
        int64_t const height = kInputShape.d[2];
        int64_t const width = kInputShape.d[3];
        int64_t const outHeight = height / pooling.window[0];
        int64_t const outWidth = width / pooling.window[1];
        std::vector<std::byte> expected(static_cast<std::size_t>(planes * outHeight * outWidth * size));
        double maxDiff = 0.0;
        for (int64_t plane = 0; plane < planes; ++plane)
        {
            for (int64_t p = 0; p < outHeight; ++p)
            {
                for (int64_t q = 0; q < outWidth; ++q)
                {
                    float result = pooling.mode == 1 ? 0.0F : -INFINITY;
                    for (int64_t i = 0; i < pooling.window[0]; ++i)
                    {
                        for (int64_t j = 0; j < pooling.window[1]; ++j)
                        {
                            int64_t const at
                                = (plane * height + p * pooling.window[0] + i) * width + q * pooling.window[1] + j;
                            float const value = example::loadElement(x.data(), type, at, inScale);
                            result = pooling.mode == 1 ? result + value : std::fmax(result, value);
                        }
                    }
                    if (pooling.mode == 1)
                    {
                        result /= static_cast<float>(pooling.window[0] * pooling.window[1]);
                    }
                    int64_t const out = (plane * outHeight + p) * outWidth + q;
                    example::storeElement(expected.data(), type, out, result, outScale);
                    float const want = example::loadElement(expected.data(), type, out, outScale);
                    float const got = example::loadElement(ys[o].data(), type, out, outScale);
                    maxDiff = std::max(maxDiff, example::difference(got, want));
                }
            }
        }
        std::string what = std::string(typeName(type)) + (pooling.mode == 1 ? " average " : " max ")
            + std::to_string(pooling.window[0]) + "x" + std::to_string(pooling.window[1]) + " "
            + example::toString(kInputShape) + " -> " + example::toString(context->getTensorShape(pooling.output));
        if (isQuantized(type))
        {
            what += " (scales in " + std::to_string(inScale) + ", out " + std::to_string(outScale) + ")";
        }
        ok = example::report(kExample, what, maxDiff, 0.0) && ok;
    }
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "pool_plugin.plan";
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(poolPluginCreator(), "example"))
    {
        std::printf("%s: registering PoolPlugin failed\n", kExample);
        return 1;
    }
    std::mt19937 random(2026);
    bool ok = true;
    for (DataType const type : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kFP8, DataType::kINT8})
    {
        std::string const planPath = example::taggedPath(path, typeName(type));
        {
            std::unique_ptr<IHostMemory> plan = buildPlan(logger, type);
            if (plan == nullptr || !example::writeFile(planPath, plan->data(), plan->size()))
            {
                ok = example::report(kExample, std::string(typeName(type)) + ": building the engine", false) && ok;
                continue;
            }
            std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), planPath.c_str());
        }
        std::vector<char> const bytes = example::readFile(planPath);
        std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
        std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
        if (engine == nullptr)
        {
            ok = example::report(kExample, std::string(typeName(type)) + ": loading " + planPath, false) && ok;
            continue;
        }
        ok = runAndCheck(*engine, type, random) && ok;
    }
    return ok ? 0 : 1;
}
