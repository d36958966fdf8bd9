// SPDX-License-Identifier: Apache-2.0
// A TensorRT application that ships its plugin inside the plan (check_install.sh's plugin_plan step builds it against
// an installed kiln with -lnvinfer, and the plugin library, examples/plugin_library/scale_plugin.cpp, from the
// installed headers alone). Three runs, each its own process:
//
//     ./plugin_plan_app build libscale_plugin.so scale.plan   // loadLibrary, build X -> ScalePlugin -> Y with
//                                                             // setPluginsToSerialize, save
//     ./plugin_plan_app run scale.plan                        // never opens the library file: the engine brings it
//     output ok 24 values, Y = 2.5 * X
//     ./plugin_plan_app refuse scale.plan                     // without setEngineHostCodeAllowed the plan is refused
//     refused
//
// "run" prints every loaded object whose name holds "scale_plugin": the test checks that none is the library's file.
#include "NvInfer.h"

#include <link.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace
{

class Logger : public nvinfer1::ILogger
{
    void log(Severity severity, char const* message) noexcept override
    {
        if (severity <= Severity::kWARNING)
        {
            std::fprintf(stderr, "app: %s\n", message);
        }
    }
};

constexpr float kScale = 2.5F;
constexpr int32_t kCount = 2 * 3 * 4;

int fail(char const* what)
{
    std::fprintf(stderr, "app: %s\n", what);
    return 1;
}

int printScaleLibraries(dl_phdr_info* info, size_t /*size*/, void* /*data*/)
{
    if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "scale_plugin") != nullptr)
    {
        std::printf("mapped %s\n", info->dlpi_name);
    }
    return 0;
}

int build(Logger& logger, char const* library, char const* planPath)
{
    nvinfer1::IPluginRegistry* registry = getPluginRegistry();
    if (registry->loadLibrary(library) == nullptr)
    {
        return fail("loadLibrary failed");
    }
    auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(registry->getCreator("ScalePlugin", "1", "example"));
    if (creator == nullptr)
    {
        return fail("the library registered no ScalePlugin 1 in namespace example");
    }
    nvinfer1::PluginField const field("scale", &kScale, nvinfer1::PluginFieldType::kFLOAT32, 1);
    nvinfer1::PluginFieldCollection const fields{1, &field};
    std::unique_ptr<nvinfer1::IPluginV3> plugin{
        creator->createPlugin("scale", &fields, nvinfer1::TensorRTPhase::kBUILD)};
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* x = network->addInput("X", nvinfer1::DataType::kFLOAT, nvinfer1::Dims3{2, 3, 4});
    nvinfer1::IPluginV3Layer* layer = plugin != nullptr ? network->addPluginV3(&x, 1, nullptr, 0, *plugin) : nullptr;
    if (layer == nullptr)
    {
        return fail("addPluginV3 failed");
    }
    layer->getOutput(0)->setName("Y");
    network->markOutput(*layer->getOutput(0));
    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    char const* const libraries[] = {library};
    config->setPluginsToSerialize(libraries, 1);
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (plan == nullptr)
    {
        return fail("buildSerializedNetwork failed");
    }
    std::ofstream out(planPath, std::ios::binary);
    out.write(static_cast<char const*>(plan->data()), static_cast<std::streamsize>(plan->size()));
    std::printf("built %zu bytes\n", plan->size());
    return out ? 0 : fail("writing the plan failed");
}

int run(Logger& logger, char const* planPath, bool allowHostCode)
{
    std::ifstream in(planPath, std::ios::binary);
    std::vector<char> const bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    runtime->setEngineHostCodeAllowed(allowHostCode);
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(bytes.data(), bytes.size())};
    if (!allowHostCode)
    {
        std::printf("%s\n", engine == nullptr ? "refused" : "loaded");
        return engine == nullptr ? 0 : fail("the plan loaded without setEngineHostCodeAllowed(true)");
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{
        engine != nullptr ? engine->createExecutionContext() : nullptr};
    if (context == nullptr)
    {
        return fail("the plan did not load");
    }
    if (engine->getTensorLocation("X") != nvinfer1::TensorLocation::kHOST)
    {
        return fail("run it on the host backend (KILN_BACKEND=host): this check binds host memory");
    }
    std::vector<float> x(kCount);
    std::vector<float> y(kCount, -1.0F);
    for (int32_t i = 0; i < kCount; ++i)
    {
        x[static_cast<std::size_t>(i)] = static_cast<float>(i) - 7.25F;
    }
    if (!context->setTensorAddress("X", x.data()) || !context->setTensorAddress("Y", y.data())
        || !context->enqueueV3(nullptr))
    {
        return fail("running the engine failed");
    }
    for (int32_t i = 0; i < kCount; ++i)
    {
        if (y[static_cast<std::size_t>(i)] != kScale * x[static_cast<std::size_t>(i)])
        {
            return fail("Y is not 2.5 * X");
        }
    }
    std::printf("output ok %d values, Y = 2.5 * X\n", kCount);
    dl_iterate_phdr(printScaleLibraries, nullptr);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    Logger logger;
    if (argc == 4 && std::strcmp(argv[1], "build") == 0)
    {
        return build(logger, argv[2], argv[3]);
    }
    if (argc == 3 && (std::strcmp(argv[1], "run") == 0 || std::strcmp(argv[1], "refuse") == 0))
    {
        return run(logger, argv[2], std::strcmp(argv[1], "run") == 0);
    }
    std::fprintf(stderr, "usage: %s build LIBRARY PLAN | run PLAN | refuse PLAN\n", argv[0]);
    return 2;
}
