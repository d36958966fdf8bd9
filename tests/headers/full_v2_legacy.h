// Test fixture: complete plugins of the two oldest V2 levels, IPluginV2 and IPluginV2Ext, overriding every method a
// plugin of that level may override, with the spec's exact signatures (section 6.1, 6.2). Neither overrides
// getTensorRTVersion(), so tests can read the level the headers encode. These classes are deprecated by design: a
// translation unit that includes this file warns. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_FULL_V2_LEGACY_H
#define KILN_TESTS_HEADERS_FULL_V2_LEGACY_H

#include "NvInferRuntime.h"
#include "fixture_common.h"

#include <cstring>

namespace kiln_test
{

constexpr char const* kV2PluginVersion = "2";

//! A bare IPluginV2 (level 0): implicit batch, one type and format for every tensor.
class FullV2Plugin : public nvinfer1::IPluginV2
{
public:
    explicit FullV2Plugin(int32_t value = 0) noexcept
        : mValue(value)
    {
    }

    ~FullV2Plugin() override = default;

    nvinfer1::AsciiChar const* getPluginType() const noexcept override { return "KilnFullV2"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV2PluginVersion; }

    int32_t getNbOutputs() const noexcept override { return kV2NbOutputs; }

    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        return (nbInputDims > 0) ? inputs[0] : nvinfer1::Dims{1, {index}};
    }

    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return type == nvinfer1::DataType::kFLOAT && format == nvinfer1::PluginFormat::kLINEAR;
    }

    void configureWithFormat(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType type, nvinfer1::PluginFormat format,
        int32_t maxBatchSize) noexcept override
    {
        static_cast<void>(inputDims);
        static_cast<void>(outputDims);
        static_cast<void>(type);
        static_cast<void>(format);
        mConfigured = nbInputs + nbOutputs + maxBatchSize;
    }

    int32_t initialize() noexcept override { return kV2InitializeResult; }

    void terminate() noexcept override { mConfigured = 0; }

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

    nvinfer1::IPluginV2* clone() const noexcept override { return new FullV2Plugin(*this); }

    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace; }

    int32_t configured() const noexcept { return mConfigured; }

private:
    LiveCounter mCounter;
    int32_t mValue{0};
    int32_t mConfigured{0};
    char const* mNamespace{""};
};

//! An IPluginV2Ext (level 1): adds output types, broadcast queries, the ten-argument configurePlugin and context
//! attachment.
class FullV2ExtPlugin : public nvinfer1::IPluginV2Ext
{
public:
    explicit FullV2ExtPlugin(int32_t value = 0) noexcept
        : mValue(value)
    {
    }

    ~FullV2ExtPlugin() override = default;

    // IPluginV2.
    nvinfer1::AsciiChar const* getPluginType() const noexcept override { return "KilnFullV2Ext"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return kV2PluginVersion; }

    int32_t getNbOutputs() const noexcept override { return kV2NbOutputs; }

    nvinfer1::Dims getOutputDimensions(
        int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept override
    {
        return (nbInputDims > 0) ? inputs[0] : nvinfer1::Dims{1, {index}};
    }

    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override
    {
        return type == nvinfer1::DataType::kHALF && format == nvinfer1::PluginFormat::kLINEAR;
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
        return (nbInputs > 0) ? inputTypes[0] : nvinfer1::DataType::kHALF;
    }

    bool isOutputBroadcastAcrossBatch(
        int32_t outputIndex, bool const* inputIsBroadcasted, int32_t nbInputs) const noexcept override
    {
        return outputIndex < nbInputs && inputIsBroadcasted[outputIndex];
    }

    bool canBroadcastInputAcrossBatch(int32_t inputIndex) const noexcept override { return inputIndex == 0; }

    void configurePlugin(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType const* inputTypes, nvinfer1::DataType const* outputTypes,
        bool const* inputIsBroadcast, bool const* outputIsBroadcast, nvinfer1::PluginFormat floatFormat,
        int32_t maxBatchSize) noexcept override
    {
        static_cast<void>(inputDims);
        static_cast<void>(outputDims);
        static_cast<void>(inputTypes);
        static_cast<void>(outputTypes);
        static_cast<void>(inputIsBroadcast);
        static_cast<void>(outputIsBroadcast);
        static_cast<void>(floatFormat);
        mConfigured = nbInputs + nbOutputs + maxBatchSize;
    }

    void attachToContext(
        cudnnContext* cudnn, cublasContext* cublas, nvinfer1::IGpuAllocator* allocator) noexcept override
    {
        static_cast<void>(cudnn);
        static_cast<void>(cublas);
        mAllocator = allocator;
    }

    void detachFromContext() noexcept override { mAllocator = nullptr; }

    nvinfer1::IPluginV2Ext* clone() const noexcept override { return new FullV2ExtPlugin(*this); }

    int32_t configured() const noexcept { return mConfigured; }

    nvinfer1::IGpuAllocator* allocator() const noexcept { return mAllocator; }

private:
    LiveCounter mCounter;
    int32_t mValue{0};
    int32_t mConfigured{0};
    char const* mNamespace{""};
    nvinfer1::IGpuAllocator* mAllocator{nullptr};
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_V2_LEGACY_H
