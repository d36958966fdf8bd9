// SPDX-License-Identifier: Apache-2.0
// A plugin library for the kiln tool's tests (--staticPlugins, --dynamicPlugins): one V3 plugin, KilnToolDouble
// version "1" namespace "", y = 2 * x on FP32, with kiln's host capability so that host engines run it. It exports
// getCreators, as a plugin library for IPluginRegistry::loadLibrary does.
#include "kiln/plugin_host.h"

#include "NvInferRuntime.h"

#include <cstdint>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "KilnToolDouble";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "";

int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

class DoublePlugin final : public IPluginV3,
                           public IPluginV3OneCore,
                           public IPluginV3OneBuild,
                           public IPluginV3OneRuntime,
                           public kiln::IPluginV3OneHost
{
public:
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override { return new DoublePlugin(); }

    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        outputTypes[0] = inputTypes[0];
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t, DimsExprs const*, int32_t, DimsExprs* outputs, int32_t,
        IExprBuilder&) noexcept override
    {
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }
    int32_t configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }

    int32_t onShapeChange(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 1; // no CUDA kernel: the tests run host engines
    }
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*) noexcept override
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < volume(inputDesc[0].dims); ++i)
        {
            y[i] = 2.0F * x[i];
        }
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

private:
    PluginFieldCollection mNoFields{};
};

class DoublePluginCreator final : public IPluginCreatorV3One
{
public:
    IPluginV3* createPlugin(char const*, PluginFieldCollection const*, TensorRTPhase) noexcept override
    {
        return new DoublePlugin();
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    PluginFieldCollection mNoFields{};
};

DoublePluginCreator gCreator;
IPluginCreatorInterface* const gCreators[] = {&gCreator};

} // namespace

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
