// SPDX-License-Identifier: Apache-2.0
// ScalePlugin: y = scale * x, written as a TensorRT-10 plugin author writes one, in a shared library with the
// getCreators and setLoggerFinder entry points. It is built against kiln's headers only; the same source builds
// against TensorRT's. (Its enqueue is plain host code here; running it inside an engine arrives with the engine.)
#include "NvInferRuntime.h"

#include <cstring>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{
ILoggerFinder* gLoggerFinder{nullptr};

void logInfo(std::string const& message)
{
    if (gLoggerFinder != nullptr)
    {
        gLoggerFinder->findLogger()->log(ILogger::Severity::kINFO, message.c_str());
    }
}

constexpr char const* kName = "ScalePlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";

class ScalePlugin final : public IPluginV3,
                          public IPluginV3OneCore,
                          public IPluginV3OneBuild,
                          public IPluginV3OneRuntime
{
public:
    explicit ScalePlugin(float scale)
        : mScale(scale)
    {
    }

    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override { return new ScalePlugin(mScale); }

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
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t) noexcept override
    {
        int64_t count = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            count *= inputDesc[0].dims.d[i];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            y[i] = mScale * x[i];
        }
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mField = PluginField("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        mFields.nbFields = 1;
        mFields.fields = &mField;
        return &mFields;
    }

private:
    float mScale;
    PluginField mField;
    PluginFieldCollection mFields{};
};

class ScalePluginCreator final : public IPluginCreatorV3One
{
public:
    ScalePluginCreator()
    {
        mFieldNames.emplace_back("scale", nullptr, PluginFieldType::kFLOAT32, 1);
        mFieldCollection.nbFields = static_cast<int32_t>(mFieldNames.size());
        mFieldCollection.fields = mFieldNames.data();
    }

    IPluginV3* createPlugin(char const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept override
    {
        float scale = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            PluginField const& field = fc->fields[i];
            if (std::strcmp(field.name, "scale") == 0 && field.type == PluginFieldType::kFLOAT32 && field.length == 1)
            {
                scale = *static_cast<float const*>(field.data);
            }
        }
        logInfo(std::string("ScalePlugin '") + (name ? name : "") + "' created for the "
            + (phase == TensorRTPhase::kBUILD ? "build" : "runtime") + " phase with scale " + std::to_string(scale));
        return new ScalePlugin(scale);
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    std::vector<PluginField> mFieldNames;
    PluginFieldCollection mFieldCollection{};
};

ScalePluginCreator gCreator;
IPluginCreatorInterface* const gCreators[] = {&gCreator};
} // namespace

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(ILoggerFinder* finder)
{
    gLoggerFinder = finder;
}

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
