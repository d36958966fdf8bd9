// SPDX-License-Identifier: Apache-2.0
// onnx_identity_conv [plan-path [model.onnx]]   (defaults: onnx_identity_conv.plan, the bundled identity_conv.onnx)
//
// The flow of the IdentityConv custom-plugin walk-through, through ONNX: the IdentityConv plugin's creator is
// registered (version "1", namespace ""), the ONNX parser reads the bundled model (Conv -> custom IdentityConv node ->
// Conv, made by make_model.py) and imports the custom node as the plugin, with its attributes as plugin fields and its
// initializer input as a constant. The engine is built, saved, loaded in a fresh runtime and run at two batch sizes;
// every step is an identity, so Y must equal X.
#include "example_common.h"
#include "identity_check.h"
#include "identity_conv.h"

#include "NvInfer.h"
#include "NvOnnxParser.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "onnx_identity_conv";
constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 8;

//! Parses the model and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(std::string const& modelPath, ILogger& logger)
{
    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    // The parser owns the model's weights: it must live until the engine is built.
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parseFromFile(modelPath.c_str(), static_cast<int>(ILogger::Severity::kWARNING)))
    {
        for (int i = 0; i < parser->getNbErrors(); ++i)
        {
            nvonnxparser::IParserError const* error = parser->getError(i);
            std::printf("%s: node %d (%s, %s): %s\n", kExample, error->node(), error->nodeName(), error->nodeOperator(),
                error->desc());
        }
        return nullptr;
    }
    std::printf("%s: parsed %s: %d layers, input %s, output %s\n", kExample, modelPath.c_str(), network->getNbLayers(),
        network->getInput(0)->getName(), network->getOutput(0)->getName());

    std::unique_ptr<IBuilderConfig> config{builder->createBuilderConfig()};
    IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("X", OptProfileSelector::kMIN, Dims4{1, kChannels, kSide, kSide});
    profile->setDimensions("X", OptProfileSelector::kOPT, Dims4{2, kChannels, kSide, kSide});
    profile->setDimensions("X", OptProfileSelector::kMAX, Dims4{4, kChannels, kSide, kSide});
    config->addOptimizationProfile(profile);
    return std::unique_ptr<IHostMemory>{builder->buildSerializedNetwork(*network, *config)};
}

//! Runs the engine at one batch size; Y must equal X.
bool runAndCheck(ICudaEngine& engine, int64_t batch, std::mt19937& random)
{
    return example::checkIdentityEngine(kExample, engine, Dims4{batch, kChannels, kSide, kSide}, random,
        ": ONNX Conv -> IdentityConv plugin -> Conv, Y = X");
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "onnx_identity_conv.plan";
    std::string const model = argc > 2 ? argv[2] : KILN_ONNX_IDENTITY_CONV_MODEL;
    example::Logger logger(kExample);
    if (!getPluginRegistry()->registerCreator(identityConvCreator(), ""))
    {
        std::printf("%s: registering IdentityConv failed\n", kExample);
        return 1;
    }
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(model, logger);
        if (plan == nullptr || !example::writeFile(path, plan->data(), plan->size()))
        {
            std::printf("%s: building or saving the plan failed\n", kExample);
            return 1;
        }
        std::printf("%s: saved a %zu-byte plan to %s\n", kExample, plan->size(), path.c_str());
    }
    std::vector<char> const bytes = example::readFile(path);
    std::unique_ptr<IRuntime> runtime{createInferRuntime(logger)};
    std::unique_ptr<ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    if (engine == nullptr)
    {
        std::printf("%s: the plan did not load\n", kExample);
        return 1;
    }
    std::mt19937 random(2026);
    bool ok = runAndCheck(*engine, 1, random);
    ok = runAndCheck(*engine, 3, random) && ok;
    return ok ? 0 : 1;
}
