// SPDX-License-Identifier: Apache-2.0
// A TensorRT application as its authors write one, which the install test (check_install.sh) builds against an
// installed kiln three ways: `-lnvinfer -lnvonnxparser`, find_package(kiln) and pkg-config. It parses an ONNX file
// (roi_align.onnx: Relu, then RoiAlign, which the parser imports as TensorRT's ROIAlign_TRT plugin from
// libnvinfer_plugin.so.10), builds the engine, deserializes it and runs it on the host backend, checks the output, and
// prints every library of TensorRT's names that the process mapped, so that the test can check where each came from.
//
//     KILN_BACKEND=host LD_LIBRARY_PATH=<prefix>/lib ./app roi_align.onnx
//     output 7.5
//     plugin library /opt/kiln/lib/libnvinfer_plugin.so.10
//     mapped /opt/kiln/lib/libnvinfer.so.10
//     ...
//
// Built with APP_INIT_PLUGINS it also links the standard plugin library (-lnvinfer_plugin) and registers its plugins
// before parsing, as applications linked against TensorRT's libnvinfer_plugin do.
#include "NvInfer.h"
#include "NvOnnxParser.h"
#ifdef APP_INIT_PLUGINS
#include "NvInferPlugin.h"
#endif

#include <link.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
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

int fail(char const* what)
{
    std::fprintf(stderr, "app: %s\n", what);
    return 1;
}

//! Prints a loaded object whose file name starts with "libnv" (libnvinfer, libnvonnxparser, libnvinfer_plugin).
int printMapped(dl_phdr_info* info, size_t /*size*/, void* /*data*/)
{
    char const* path = info->dlpi_name;
    char const* slash = path != nullptr ? std::strrchr(path, '/') : nullptr;
    if (slash != nullptr && std::strncmp(slash + 1, "libnv", 5) == 0)
    {
        std::printf("mapped %s\n", path);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        return fail("usage: app <model.onnx>");
    }
    Logger logger;
#ifdef APP_INIT_PLUGINS
    if (!initLibNvInferPlugins(&logger, ""))
    {
        return fail("initLibNvInferPlugins failed");
    }
#endif
    std::unique_ptr<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    if (!builder)
    {
        return fail("createInferBuilder failed");
    }
    std::unique_ptr<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    std::unique_ptr<nvonnxparser::IParser> parser{nvonnxparser::createParser(*network, logger)};
    if (!parser->parseFromFile(argv[1], static_cast<int32_t>(nvinfer1::ILogger::Severity::kWARNING)))
    {
        for (int32_t i = 0; i < parser->getNbErrors(); ++i)
        {
            std::fprintf(stderr, "app: %s\n", parser->getError(i)->desc());
        }
        return fail("the model does not parse");
    }
    int64_t nbLibraries = 0;
    char const* const* libraries = parser->getUsedVCPluginLibraries(nbLibraries);
    for (int64_t i = 0; i < nbLibraries; ++i)
    {
        std::printf("plugin library %s\n", libraries[i]);
    }

    std::unique_ptr<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    std::unique_ptr<nvinfer1::IHostMemory> plan{builder->buildSerializedNetwork(*network, *config)};
    if (!plan)
    {
        return fail("the engine does not build");
    }
    std::unique_ptr<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    std::unique_ptr<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan->data(), plan->size())};
    if (!engine)
    {
        return fail("the plan does not deserialize");
    }
    if (engine->getTensorLocation("X") != nvinfer1::TensorLocation::kHOST)
    {
        return fail("the engine wants its input in device memory: run with KILN_BACKEND=host");
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context{engine->createExecutionContext()};
    std::vector<float> x(16);
    for (size_t i = 0; i < x.size(); ++i)
    {
        x[i] = static_cast<float>(i);
    }
    float y = 0.0F;
    if (!context->setTensorAddress("X", x.data()) || !context->setTensorAddress("Y", &y)
        || !context->enqueueV3(nullptr))
    {
        return fail("the engine does not run");
    }
    std::printf("output %g\n", static_cast<double>(y));
    dl_iterate_phdr(printMapped, nullptr);
    return std::fabs(y - 7.5F) < 1e-5F ? 0 : fail("the output is not 7.5");
}
