// SPDX-License-Identifier: Apache-2.0
// A deliberately wrong plugin library for `kiln compare`'s tests: it registers IdentityConv version "1" namespace ""
// (the plugin of examples/onnx_identity_conv's model) through getCreators, as examples/onnx_identity_conv's library
// does, but its enqueueHost adds kError to the element at flat index kWrongIndex of the copy ([0, 0, 4, 5] of the
// example's 2x3x8x8 input). Compared against the example's stored output, that one element is off by exactly kError.
// No CUDA enqueue: the tests run the host backend.
#include "kiln/plugin_host.h"

#include "NvInferRuntime.h"

#include <cstdint>
#include <cstring>

using namespace nvinfer1;

namespace
{

constexpr char const* kName = "IdentityConv";
constexpr char const* kVersion = "1";
constexpr char const* kNamespace = "";
constexpr int64_t kWrongIndex = 37; // [0, 0, 4, 5] in 2x3x8x8
constexpr float kError = 0.5F;

int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

class WrongIdentityConv final : public IPluginV3,
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
    IPluginV3* clone() noexcept override { return new WrongIdentityConv(); }

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
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t, IExprBuilder&) noexcept override
    {
        if (nbInputs != 2)
        {
            return -1;
        }
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
        int64_t const count = volume(inputDesc[0].dims);
        std::memcpy(outputs[0], inputs[0], static_cast<std::size_t>(count) * sizeof(float));
        if (count > kWrongIndex)
        {
            static_cast<float*>(outputs[0])[kWrongIndex] += kError; // the planted mistake
        }
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

private:
    PluginFieldCollection mNoFields{};
};

class WrongIdentityConvCreator final : public IPluginCreatorV3One
{
public:
    // The example's fields (the ONNX Conv attributes the node carries), declared so that the parser passes them;
    // the plugin ignores them.
    WrongIdentityConvCreator()
    {
        mFields[0] = PluginField("kernel_shape", nullptr, PluginFieldType::kINT32, 2);
        mFields[1] = PluginField("strides", nullptr, PluginFieldType::kINT32, 2);
        mFields[2] = PluginField("pads", nullptr, PluginFieldType::kINT32, 4);
        mFields[3] = PluginField("group", nullptr, PluginFieldType::kINT32, 1);
        mFieldNames = PluginFieldCollection{4, mFields};
    }

    IPluginV3* createPlugin(char const*, PluginFieldCollection const*, TensorRTPhase) noexcept override
    {
        return new WrongIdentityConv();
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }
    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    char const* getPluginNamespace() const noexcept override { return kNamespace; }

private:
    PluginField mFields[4];
    PluginFieldCollection mFieldNames{};
};

WrongIdentityConvCreator gCreator;
IPluginCreatorInterface* const gCreators[] = {&gCreator};

} // namespace

extern "C" __attribute__((visibility("default"))) IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
