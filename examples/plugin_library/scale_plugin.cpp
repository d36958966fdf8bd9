// SPDX-License-Identifier: Apache-2.0
// ScalePlugin: y = scale * x over FP32 tensors of any shape, written as a TensorRT-10 plugin author writes one, in a
// shared library with the getCreators and setLoggerFinder entry points. Version "1", namespace "example"; one build
// and serialized field, "scale" (kFLOAT32, 1 value, default 1).
//
// enqueue() launches scale_kernel.cu on the stream (on a GPU, kiln's CUDA backend or TensorRT); the library is built
// with that kernel only when the CUDA toolkit is found. kiln's host backend runs enqueueHost() instead, the same
// product on host memory: the class derives from kiln::IPluginV3OneHost (include/kiln/plugin_host.h), which kiln
// finds through RTTI. The kiln-only parts sit under KILN_VERSION_MAJOR, so the same source builds against TensorRT's
// headers. The library needs only the headers: it does not link kiln.
#include "NvInferRuntime.h"

#ifdef KILN_VERSION_MAJOR
#include "kiln/plugin_host.h"
#endif
#ifdef KILN_EXAMPLE_CUDA
#include "scale_kernel.h"
#endif

#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace nvinfer1;

namespace
{
ILoggerFinder* gLoggerFinder{nullptr};

//! Logs through the logger of the process that loaded the library (setLoggerFinder), when it gave one.
void log(ILogger::Severity severity, std::string const& message)
{
    ILogger* logger = gLoggerFinder != nullptr ? gLoggerFinder->findLogger() : nullptr;
    if (logger != nullptr)
    {
        logger->log(severity, message.c_str());
    }
}

//! The number of elements of a tensor of shape dims.
int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

constexpr char const* kName = "ScalePlugin";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "example";

#ifdef KILN_VERSION_MAJOR
using HostCapability = kiln::IPluginV3OneHost;
#else
//! Built against TensorRT's headers: no host capability, an empty base in its place.
struct HostCapability
{
};
#endif

class ScalePlugin final : public IPluginV3,
                          public IPluginV3OneCore,
                          public IPluginV3OneBuild,
                          public IPluginV3OneRuntime,
                          public HostCapability
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
    IPluginV3* clone() noexcept override { return new (std::nothrow) ScalePlugin(mScale); }

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
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
#ifdef KILN_EXAMPLE_CUDA
        cudaError_t const status = launchScale(static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]),
            volume(inputDesc[0].dims), mScale, stream);
        return status == cudaSuccess ? 0 : -1;
#else
        (void)inputDesc, (void)inputs, (void)outputs, (void)stream;
        log(ILogger::Severity::kERROR,
            "ScalePlugin: this library was built without its CUDA kernel (no CUDA toolkit); kiln's host backend runs "
            "the layer through enqueueHost()");
        return -1;
#endif
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override
    {
        return clone();
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        mField = PluginField("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        mFields.nbFields = 1;
        mFields.fields = &mField;
        return &mFields;
    }

#ifdef KILN_VERSION_MAJOR
    // kiln::IPluginV3OneHost: the same product on host memory, finished when it returns.
    int32_t enqueueHost(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*) noexcept override
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < volume(inputDesc[0].dims); ++i)
        {
            y[i] = mScale * x[i];
        }
        return 0;
    }
#endif

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
        log(ILogger::Severity::kINFO,
            std::string("ScalePlugin '") + (name ? name : "") + "' created for the "
                + (phase == TensorRTPhase::kBUILD ? "build" : "runtime") + " phase with scale "
                + std::to_string(scale));
        return new (std::nothrow) ScalePlugin(scale);
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
