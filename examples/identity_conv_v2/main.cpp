// SPDX-License-Identifier: Apache-2.0
// identity_conv_v2 [plan-path]   (default: identity_conv_v2.plan in the working directory)
//
// The identity network of the IdentityConv custom-plugin walk-through with the walk-through's own plugin, an
// IPluginV2IOExt added with addPluginV2, built through the network API: "X" [N, 3, 8, 8] -> conv1 (1x1, weights the 3x3
// identity matrix) -> IdentityConv (with the weights of a depthwise 1x1 convolution, all ones, as its second input) ->
// conv2 (1x1 depthwise, weights all ones) -> "Y". Every step is an identity, so Y must equal X exactly. The plan is
// saved and loaded in a fresh runtime, where deserializePlugin restores the configuration IdentityConv serialized at
// build time; the engine runs at two batch sizes, on the GPU (the plugin through its enqueue) or on the host (through
// its registered host runner).
#include "example_common.h"
#include "identity_check.h"
#include "identity_conv.h"

#include "NvInfer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{

constexpr char const* kExample = "identity_conv_v2";
constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 8;

//! Builds the network and returns the serialized engine, or nullptr.
std::unique_ptr<IHostMemory> buildPlan(ILogger& logger)
{
    // The attributes of the ONNX node IdentityConv replaces.
    int32_t const kernelShape[] = {1, 1};
    int32_t const strides[] = {1, 1};
    int32_t const pads[] = {0, 0, 0, 0};
    auto const group = static_cast<int32_t>(kChannels);
    PluginField const attributes[] = {PluginField("kernel_shape", kernelShape, PluginFieldType::kINT32, 2),
        PluginField("strides", strides, PluginFieldType::kINT32, 2),
        PluginField("pads", pads, PluginFieldType::kINT32, 4),
        PluginField("group", &group, PluginFieldType::kINT32, 1)};
    PluginFieldCollection const fields{4, attributes};
    IPluginV2* plugin = identityConvCreator().createPlugin("identity_conv", &fields);
    if (plugin == nullptr)
    {
        return nullptr;
    }

    std::vector<float> identity(kChannels * kChannels, 0.0F); // conv1: output channel k takes input channel k.
    for (int64_t k = 0; k < kChannels; ++k)
    {
        identity[static_cast<std::size_t>(k * kChannels + k)] = 1.0F;
    }
    std::vector<float> const ones(kChannels, 1.0F); // depthwise: each channel times 1.
    Weights const none{DataType::kFLOAT, nullptr, 0};

    std::unique_ptr<IBuilder> builder{createInferBuilder(logger)};
    // No flags: TensorRT 10 networks always have an explicit batch dimension (kEXPLICIT_BATCH is ignored). An
    // IPluginV2IOExt in such a network sees its inputs without their leading dimension.
    std::unique_ptr<INetworkDefinition> network{builder->createNetworkV2(0)};
    ITensor* x = network->addInput("X", DataType::kFLOAT, Dims4{-1, kChannels, kSide, kSide});
    IConvolutionLayer* conv1 = network->addConvolutionNd(
        *x, kChannels, DimsHW{1, 1}, Weights{DataType::kFLOAT, identity.data(), kChannels * kChannels}, none);
    conv1->setName("conv1");
    IConstantLayer* w
        = network->addConstant(Dims4{kChannels, 1, 1, 1}, Weights{DataType::kFLOAT, ones.data(), kChannels});
    w->setName("identity_conv_weights");
    ITensor* pluginInputs[] = {conv1->getOutput(0), w->getOutput(0)};
    IPluginV2Layer* identityConv = network->addPluginV2(pluginInputs, 2, *plugin);
    plugin->destroy(); // The network keeps a clone; the object the creator made is ours to destroy.
    if (identityConv == nullptr)
    {
        return nullptr;
    }
    identityConv->setName("identity_conv");
    IConvolutionLayer* conv2 = network->addConvolutionNd(
        *identityConv->getOutput(0), kChannels, DimsHW{1, 1}, Weights{DataType::kFLOAT, ones.data(), kChannels}, none);
    conv2->setNbGroups(kChannels);
    conv2->setName("conv2");
    conv2->getOutput(0)->setName("Y");
    network->markOutput(*conv2->getOutput(0));

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
    return example::checkIdentityEngine(
        kExample, engine, Dims4{batch, kChannels, kSide, kSide}, random, ": conv1 -> IdentityConv -> conv2, Y = X");
}

} // namespace

int main(int argc, char** argv)
{
    std::string const path = argc > 1 ? argv[1] : "identity_conv_v2.plan";
    example::Logger logger(kExample);
    // Version "1" and namespace "": what the ONNX parser looks for by default.
    if (!getPluginRegistry()->registerCreator(identityConvCreator(), ""))
    {
        std::printf("%s: registering IdentityConv failed\n", kExample);
        return 1;
    }
#ifdef KILN_VERSION_MAJOR
    // kiln's host backend runs a V2 plugin through a host runner registered for its name, version and namespace.
    if (!kilnRegisterPluginV2HostRunner("IdentityConv", "1", "", &identityConvHostRunner()))
    {
        std::printf("%s: registering IdentityConv's host runner failed\n", kExample);
        return 1;
    }
#endif
    {
        std::unique_ptr<IHostMemory> plan = buildPlan(logger);
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
    // The configuration configurePlugin saw at build time (X without its batch dimension), back from the plan.
    std::string const restored = identityConvLastRestored();
    bool ok = example::report(kExample, "deserializePlugin restored {" + restored + "}",
        restored == "group 3, kFLOAT, C 3, H 8, W 8, 4-byte elements");
    std::mt19937 random(2026);
    ok = runAndCheck(*engine, 1, random) && ok;
    ok = runAndCheck(*engine, 3, random) && ok;
    return ok ? 0 : 1;
}
