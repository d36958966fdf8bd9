// Test fixture: implementations that override ONLY the methods the spec calls pure. That they can be instantiated
// proves the headers declare no other pure method and give every other method a body; defaults_test.cpp then
// checks those bodies return the spec's defaults. MinimalV3Plugin takes the build capability (v_1_0 or v_2_0) as a
// parameter. Includes V2 classes, so a translation unit that includes it warns. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_MINIMAL_FIXTURES_H
#define KILN_TESTS_HEADERS_MINIMAL_FIXTURES_H

#include "NvInfer.h"
#include "fixture_common.h"

namespace kiln_test
{

//! A V3 plugin with only the pure methods of IPluginV3, IPluginV3OneCore, Build and IPluginV3OneRuntime.
template <typename Build>
class MinimalV3Plugin : public nvinfer1::IPluginV3,
                        public nvinfer1::IPluginV3OneCore,
                        public Build,
                        public nvinfer1::IPluginV3OneRuntime
{
public:
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<Build*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }

    nvinfer1::IPluginV3* clone() noexcept override { return new MinimalV3Plugin(*this); }

    nvinfer1::AsciiChar const* getPluginName() const noexcept override { return "KilnMinimalV3"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return "1"; }

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return ""; }

    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }

    int32_t getOutputDataTypes(nvinfer1::DataType* /*outputTypes*/, int32_t /*nbOutputs*/,
        nvinfer1::DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept override
    {
        return 0;
    }

    int32_t getOutputShapes(nvinfer1::DimsExprs const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::DimsExprs const* /*shapeInputs*/, int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* /*outputs*/,
        int32_t /*nbOutputs*/, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        return 0;
    }

    bool supportsFormatCombination(int32_t /*pos*/, nvinfer1::DynamicPluginTensorDesc const* /*inOut*/,
        int32_t /*nbInputs*/, int32_t /*nbOutputs*/) noexcept override
    {
        return true;
    }

    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
        return 0;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* /*inputDesc*/, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return 0;
    }

    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override
    {
        return clone();
    }

    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFields; }

private:
    LiveCounter mCounter;
    nvinfer1::PluginFieldCollection mFields{};
};

//! An IPluginV2DynamicExt with only the methods spec 6.4 lists as still pure.
class MinimalV2DynamicPlugin : public nvinfer1::IPluginV2DynamicExt
{
public:
    nvinfer1::AsciiChar const* getPluginType() const noexcept override { return "KilnMinimalV2"; }

    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override { return "1"; }

    int32_t getNbOutputs() const noexcept override { return 1; }

    int32_t initialize() noexcept override { return 0; }

    void terminate() noexcept override {}

    size_t getSerializationSize() const noexcept override { return 0; }

    void serialize(void* /*buffer*/) const noexcept override {}

    void destroy() noexcept override { delete this; }

    void setPluginNamespace(nvinfer1::AsciiChar const* /*pluginNamespace*/) noexcept override {}

    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override { return ""; }

    nvinfer1::DataType getOutputDataType(
        int32_t /*index*/, nvinfer1::DataType const* /*inputTypes*/, int32_t /*nbInputs*/) const noexcept override
    {
        return nvinfer1::DataType::kFLOAT;
    }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override { return new MinimalV2DynamicPlugin(*this); }

    nvinfer1::DimsExprs getOutputDimensions(int32_t /*outputIndex*/, nvinfer1::DimsExprs const* inputs,
        int32_t /*nbInputs*/, nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        return inputs[0];
    }

    bool supportsFormatCombination(int32_t /*pos*/, nvinfer1::PluginTensorDesc const* /*inOut*/, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return true;
    }

    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
    }

    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* /*inputDesc*/, nvinfer1::PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/,
        cudaStream_t /*stream*/) noexcept override
    {
        return 0;
    }

private:
    LiveCounter mCounter;
};

//! An IGpuAllocator with only its two pure (deprecated) methods; counts the calls that reach them.
class MinimalGpuAllocator : public nvinfer1::IGpuAllocator
{
public:
    void* allocate(
        uint64_t const size, uint64_t const /*alignment*/, nvinfer1::AllocatorFlags const flags) noexcept override
    {
        ++mAllocations;
        mLastFlags = flags;
        return (size <= sizeof(mBlock)) ? mBlock : nullptr;
    }

    bool deallocate(void* const memory) noexcept override
    {
        ++mDeallocations;
        return memory == mBlock;
    }

    int32_t allocations() const noexcept { return mAllocations; }

    int32_t deallocations() const noexcept { return mDeallocations; }

    nvinfer1::AllocatorFlags lastFlags() const noexcept { return mLastFlags; }

private:
    alignas(16) unsigned char mBlock[64]{};
    int32_t mAllocations{0};
    int32_t mDeallocations{0};
    nvinfer1::AllocatorFlags mLastFlags{0};
};

//! An IGpuAsyncAllocator with only its two pure methods; records the stream they receive.
class MinimalGpuAsyncAllocator : public nvinfer1::IGpuAsyncAllocator
{
public:
    void* allocateAsync(uint64_t const size, uint64_t const /*alignment*/, nvinfer1::AllocatorFlags const /*flags*/,
        cudaStream_t stream) noexcept override
    {
        ++mCalls;
        mLastStream = stream;
        return (size <= sizeof(mBlock)) ? mBlock : nullptr;
    }

    bool deallocateAsync(void* const memory, cudaStream_t stream) noexcept override
    {
        ++mCalls;
        mLastStream = stream;
        return memory == mBlock;
    }

    int32_t calls() const noexcept { return mCalls; }

    cudaStream_t lastStream() const noexcept { return mLastStream; }

private:
    alignas(16) unsigned char mBlock[64]{};
    int32_t mCalls{0};
    cudaStream_t mLastStream{reinterpret_cast<cudaStream_t>(&mBlock)};
};

//! An IOutputAllocator with only its pure method.
class MinimalOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    void notifyShape(char const* /*tensorName*/, nvinfer1::Dims const& /*dims*/) noexcept override {}
};

//! An IOutputAllocator that implements only the deprecated reallocateOutput, as older applications do.
class LegacyOutputAllocator : public nvinfer1::IOutputAllocator
{
public:
    void* reallocateOutput(
        char const* /*tensorName*/, void* /*currentMemory*/, uint64_t size, uint64_t /*alignment*/) noexcept override
    {
        return (size <= sizeof(mBlock)) ? mBlock : nullptr;
    }

    void notifyShape(char const* /*tensorName*/, nvinfer1::Dims const& /*dims*/) noexcept override {}

    void* block() noexcept { return mBlock; }

private:
    alignas(16) unsigned char mBlock[64]{};
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_MINIMAL_FIXTURES_H
