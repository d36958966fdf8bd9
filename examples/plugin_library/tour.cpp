// SPDX-License-Identifier: Apache-2.0
// plugin_library_tour LIBRARY: loads a plugin library into the process-wide registry, finds ScalePlugin by name,
// version and namespace, creates it from fields as a builder would, serializes it to fields and restores it as
// a runtime would, runs both on the same data, and checks that they agree. Exits 0 on success.
#include "NvInferRuntime.h"
#include "kiln/kiln.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

using namespace nvinfer1;

namespace
{
class PrintingLogger final : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kINFO)
        {
            std::printf("  [kiln] %s\n", msg);
        }
    }
};

int fail(char const* what)
{
    std::printf("FAILED: %s\n", what);
    return 1;
}

std::vector<float> run(IPluginV3& plugin, std::vector<float> const& x)
{
    auto* runtime = static_cast<IPluginV3OneRuntime*>(plugin.getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    PluginTensorDesc desc{};
    desc.dims = Dims{1, {static_cast<int64_t>(x.size())}};
    desc.type = DataType::kFLOAT;
    desc.format = TensorFormat::kLINEAR;
    std::vector<float> y(x.size());
    void const* inputs[] = {x.data()};
    void* outputs[] = {y.data()};
    runtime->onShapeChange(&desc, 1, &desc, 1);
    runtime->enqueue(&desc, &desc, inputs, outputs, nullptr, nullptr);
    return y;
}
} // namespace

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::printf("usage: %s PLUGIN_LIBRARY\n", argv[0]);
        return 2;
    }
    PrintingLogger logger;
    kilnSetLogger(&logger);
    IPluginRegistry* registry = getPluginRegistry();

    std::printf("1. loading %s\n", argv[1]);
    auto* handle = registry->loadLibrary(argv[1]);
    if (handle == nullptr)
    {
        return fail("loadLibrary");
    }

    int32_t count = 0;
    IPluginCreatorInterface* const* creators = registry->getAllCreators(&count);
    std::printf("2. the registry holds %d creator(s)\n", count);
    for (int32_t i = 0; i < count; ++i)
    {
        std::printf("   - kind \"%s\"\n", creators[i]->getInterfaceInfo().kind);
    }

    auto* creator = static_cast<IPluginCreatorV3One*>(registry->getCreator("ScalePlugin", "1", "example"));
    if (creator == nullptr)
    {
        return fail("getCreator(ScalePlugin, 1, example)");
    }
    float const scale = 2.5F;
    PluginField const field("scale", &scale, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection const fields{1, &field};
    std::printf("3. creating the plugin for the build phase from field scale=%.2f\n", static_cast<double>(scale));
    std::unique_ptr<IPluginV3> built{creator->createPlugin("scale0", &fields, TensorRTPhase::kBUILD)};
    if (built == nullptr)
    {
        return fail("createPlugin(kBUILD)");
    }

    std::printf("4. serializing it to fields and restoring it for the runtime phase\n");
    auto* runtime = static_cast<IPluginV3OneRuntime*>(built->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
    std::unique_ptr<IPluginV3> restored{
        creator->createPlugin("scale0", runtime->getFieldsToSerialize(), TensorRTPhase::kRUNTIME)};
    if (restored == nullptr)
    {
        return fail("createPlugin(kRUNTIME)");
    }

    std::vector<float> const x{1.0F, -2.0F, 0.5F, 4.0F};
    std::vector<float> const fromBuilt = run(*built, x);
    std::vector<float> const fromRestored = run(*restored, x);
    std::printf("5. y = scale * x:");
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        std::printf(" %.2f", static_cast<double>(fromRestored[i]));
        if (std::fabs(fromBuilt[i] - scale * x[i]) > 1e-6F || fromBuilt[i] != fromRestored[i])
        {
            return fail("restored plugin disagrees");
        }
    }
    std::printf("\n");

    built.reset();
    restored.reset();
    registry->deregisterLibrary(handle);
    if (registry->getCreator("ScalePlugin", "1", "example") != nullptr)
    {
        return fail("deregisterLibrary left the creator registered");
    }
    std::printf("6. library deregistered\nOK\n");
    kilnSetLogger(nullptr);
    return 0;
}
