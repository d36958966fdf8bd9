// Test fixture: a complete IPluginV2DynamicExt and a complete IPluginV2IOExt, each overriding every method a plugin
// of that level may override (the private `final` ones excepted), with the spec's exact signatures (section 6.3,
// 6.4); and a complete IPluginCreator (section 6.6) that makes all four V2 levels. Deprecated by design: a
// translation unit that includes this file warns. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_FULL_V2_PLUGINS_H
#define KILN_TESTS_HEADERS_FULL_V2_PLUGINS_H

#include "NvInferRuntime.h"
#include "fixture_common.h"
#include "full_v2_legacy.h"

#include <cstring>

namespace kiln_test
{

//! An IPluginV2DynamicExt (level 3): symbolic output shapes, per-tensor descriptors.
class FullV2DynamicPlugin : public nvinfer1::IPluginV2DynamicExt
{
public:
    explicit FullV2DynamicPlugin(int32_t value = 0) noexcept
        : mValue(value)
    {
    }

    ~FullV2DynamicPlugin() override = default;

    // IPluginV2.
    nvinfer1::AsciiChar const* getPluginType() const noexcept override { return "KilnFullV2Dynamic"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV2PluginVersion; }

    int32_t getNbOutputs() const noexcept override { return kV2NbOutputs; }

    int32_t initialize() noexcept override { return kV2InitializeResult; }

    void terminate() noexcept override { mAllocator = nullptr; }

    size_t getSerializationSize() const noexcept override { return sizeof(mValue); }

    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mValue, sizeof(mValue)); }

    void destroy() noexcept override { delete this; }

    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

    // IPluginV2Ext.
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        static_cast<void>(index);
        return (nbInputs > 0) ? inputTypes[0] : nvinfer1::DataType::kINT8;
    }

    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        static_cast<void>(cudnn);
        static_cast<void>(cublas);
        mAllocator = allocator;
    }

    void detachFromContext() noexcept override { mAllocator = nullptr; }

    // IPluginV2DynamicExt.
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override { return new FullV2DynamicPlugin(*this); }

    //! Output outputIndex has the shape of input 0 with outputIndex added to its first extent.
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override
    {
        nvinfer1::DimsExprs out{};
        if (nbInputs < 1 || inputs[0].nbDims < 1)
        {
            out.nbDims = -1;
            return out;
        }
        out = inputs[0];
        out.d[0] = exprBuilder.operation(
            nvinfer1::DimensionOperation::kSUM, *inputs[0].d[0], *exprBuilder.constant(outputIndex));
        return out;
    }

    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        return pos < nbInputs + nbOutputs && inOut[pos].format == nvinfer1::TensorFormat::kLINEAR;
    }

    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override
    {
        mConfigured = (in != nullptr && out != nullptr) ? nbInputs * 10 + nbOutputs : -1;
    }

    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* inputs, int32_t nbInputs,
        nvinfer1::PluginTensorDesc const* outputs, int32_t nbOutputs) const noexcept override
    {
        static_cast<void>(inputs);
        static_cast<void>(outputs);
        return static_cast<size_t>(kV2DynamicWorkspaceSize + nbInputs + nbOutputs);
    }

    //! Host-side stand-in for a kernel: output[0] = input[0] + value, one float.
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        static_cast<void>(inputDesc);
        static_cast<void>(outputDesc);
        static_cast<void>(workspace);
        static_cast<void>(stream);
        static_cast<float*>(outputs[0])[0] = static_cast<float const*>(inputs[0])[0] + static_cast<float>(mValue);
        return kV2DynamicEnqueueResult;
    }

    // Test accessors.
    int32_t value() const noexcept { return mValue; }

    int32_t configured() const noexcept { return mConfigured; }

    nvinfer1::IGpuAllocator* allocator() const noexcept { return mAllocator; }

private:
    LiveCounter mCounter;
    int32_t mValue{0};
    int32_t mConfigured{0};
    char const* mNamespace{""};
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
};

//! An IPluginV2IOExt (level 2): per-tensor types and formats, still with implicit-batch enqueue.
class FullV2IOExtPlugin : public nvinfer1::IPluginV2IOExt
{
public:
    explicit FullV2IOExtPlugin(int32_t value = 0) noexcept
        : mValue(value)
    {
    }

    ~FullV2IOExtPlugin() override = default;

    // IPluginV2.
    nvinfer1::AsciiChar const* getPluginType() const noexcept override { return "KilnFullV2IOExt"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV2PluginVersion; }

    int32_t getNbOutputs() const noexcept override { return kV2NbOutputs; }

    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        return (nbInputDims > 0) ? inputs[0] : nvinfer1::Dims{1, {index}};
    }

    int32_t initialize() noexcept override { return kV2InitializeResult; }

    void terminate() noexcept override { mAllocator = nullptr; }

    size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override
    {
        return static_cast<size_t>(kV2WorkspaceSize + maxBatchSize);
    }

    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override
    {
        static_cast<void>(inputs);
        static_cast<void>(outputs);
        static_cast<void>(workspace);
        static_cast<void>(stream);
        return kV2EnqueueResult + batchSize;
    }

    size_t getSerializationSize() const noexcept override { return sizeof(mValue); }

    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mValue, sizeof(mValue)); }

    void destroy() noexcept override { delete this; }

    nvinfer1::IPluginV2IOExt* clone() const noexcept override { return new FullV2IOExtPlugin(*this); }

    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

    // IPluginV2Ext.
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        static_cast<void>(index);
        return (nbInputs > 0) ? inputTypes[0] : nvinfer1::DataType::kINT32;
    }

    bool isOutputBroadcastAcrossBatch(
        int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept override
    {
        return outputIndex < nbInputs && inputIsBroadcasted[outputIndex];
    }

    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept override { return inputIndex == 1; }

    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        static_cast<void>(cudnn);
        static_cast<void>(cublas);
        mAllocator = allocator;
    }

    void detachFromContext() noexcept override { mAllocator = nullptr; }

    // IPluginV2IOExt.
    void configurePlugin(nvinfer1::PluginTensorDesc const* in, int32_t nbInput, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutput) noexcept override
    {
        mConfigured = (in != nullptr && out != nullptr) ? nbInput * 10 + nbOutput : -1;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) const noexcept override
    {
        return pos < nbInputs + nbOutputs && inOut[pos].type == nvinfer1::DataType::kINT8
            && inOut[pos].format == nvinfer1::TensorFormat::kCHW4;
    }

    // Test accessors.
    int32_t configured() const noexcept { return mConfigured; }

    nvinfer1::IGpuAllocator* allocator() const noexcept { return mAllocator; }

private:
    LiveCounter mCounter;
    int32_t mValue{0};
    int32_t mConfigured{0};
    char const* mNamespace{""};
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
};

//! The V2 creator: field "level" (int32: 0 IPluginV2, 1 Ext, 2 IOExt, 3 DynamicExt, the default) picks the class;
//! field "value" (int32) is what the plugin serializes. deserializePlugin makes a FullV2DynamicPlugin.
class FullV2Creator : public nvinfer1::IPluginCreator
{
public:
    FullV2Creator() noexcept
    {
        mFields[0] = nvinfer1::PluginField("level", nullptr, nvinfer1::PluginFieldType::kINT32, 1);
        mFields[1] = nvinfer1::PluginField("value", nullptr, nvinfer1::PluginFieldType::kINT32, 1);
        mFieldNames.nbFields = 2;
        mFieldNames.fields = mFields;
    }

    ~FullV2Creator() override = default;

    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return "KilnFullV2Dynamic"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV2PluginVersion; }

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }

    nvinfer1::IPluginV2* createPlugin(
        nvinfer1::AsciiChar const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        if (name == nullptr)
        {
            return nullptr;
        }
        int32_t level = 3;
        int32_t value = 0;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            if (field.type != nvinfer1::PluginFieldType::kINT32 || field.length != 1)
            {
                continue;
            }
            if (std::strcmp(field.name, "level") == 0)
            {
                level = *static_cast<int32_t const*>(field.data);
            }
            else if (std::strcmp(field.name, "value") == 0)
            {
                value = *static_cast<int32_t const*>(field.data);
            }
        }
        nvinfer1::IPluginV2* plugin = nullptr;
        switch (level)
        {
        case 0: plugin = new FullV2Plugin(value); break;
        case 1: plugin = new FullV2ExtPlugin(value); break;
        case 2: plugin = new FullV2IOExtPlugin(value); break;
        default: plugin = new FullV2DynamicPlugin(value); break;
        }
        plugin->setPluginNamespace(mNamespace);
        return plugin;
    }

    nvinfer1::IPluginV2* deserializePlugin(
        nvinfer1::AsciiChar const* name, void const* serialData, size_t serialLength) noexcept override
    {
        int32_t value = 0;
        if (name == nullptr || serialLength != sizeof(value))
        {
            return nullptr;
        }
        std::memcpy(&value, serialData, sizeof(value));
        FullV2DynamicPlugin* const plugin = new FullV2DynamicPlugin(value);
        plugin->setPluginNamespace(mNamespace);
        return plugin;
    }

    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

private:
    LiveCounter mCounter;
    char const* mNamespace{""};
    nvinfer1::PluginField mFields[2];
    nvinfer1::PluginFieldCollection mFieldNames{};
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_V2_PLUGINS_H
