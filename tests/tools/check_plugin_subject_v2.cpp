// SPDX-License-Identifier: Apache-2.0
// The V2 plugin library `kiln check-plugin`'s tests check: KilnCheckScaleV2 version "1" namespace "", an
// IPluginV2DynamicExt computing y = scale * x on linear FP32, with a "scale" field (kFLOAT32, declared with the
// default 2) that it serializes as 4 bytes. It exports getPluginCreators, as V2-era libraries do. Built as it should
// be (libkiln_check_v2_none.so) and with KILN_CHECK_BREAKS_SERIALIZE_ROUND_TRIP, where deserializePlugin ignores the
// bytes it is given.
#include "NvInferRuntime.h"

#include <cstdint>
#include <cstring>
#include <string>

using namespace nvinfer1;

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

constexpr char const* kName = "KilnCheckScaleV2";
constexpr char const* kVersion = "1";
constexpr float kDefaultScale = 2.0F;

class ScalePluginV2 final : public IPluginV2DynamicExt
{
public:
    ScalePluginV2(float scale, std::string pluginNamespace)
        : mScale(scale)
        , mNamespace(std::move(pluginNamespace))
    {
    }

    IPluginV2DynamicExt* clone() const noexcept override { return new ScalePluginV2(mScale, mNamespace); }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t nbInputs, IExprBuilder&) noexcept override
    {
        return nbInputs == 1 ? inputs[0] : DimsExprs{-1, {}};
    }
    bool supportsFormatCombination(int32_t pos, PluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].type == DataType::kFLOAT && inOut[pos].format == TensorFormat::kLINEAR;
    }
    void configurePlugin(
        DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
        cudaStream_t) noexcept override
    {
        return 1; // no CUDA kernel
    }

    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t) const noexcept override
    {
        return inputTypes[0];
    }
    char const* getPluginType() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(mScale); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mScale, sizeof(mScale)); }
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    float mScale;
    std::string mNamespace;
};

class ScaleCreatorV2 final : public IPluginCreator
{
public:
    ScaleCreatorV2()
    {
        mDeclared = PluginField("scale", &kDefaultScale, PluginFieldType::kFLOAT32, 1);
        mFields = PluginFieldCollection{1, &mDeclared};
    }

    char const* getPluginName() const noexcept override { return kName; }
    char const* getPluginVersion() const noexcept override { return kVersion; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    IPluginV2* createPlugin(char const*, PluginFieldCollection const* fc) noexcept override
    {
        float scale = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (std::strcmp(fc->fields[i].name, "scale") == 0 && fc->fields[i].data != nullptr)
            {
                scale = *static_cast<float const*>(fc->fields[i].data);
            }
        }
        return new ScalePluginV2(scale, mNamespace);
    }
    IPluginV2* deserializePlugin(char const*, void const* data, size_t length) noexcept override
    {
        float scale = 1.0F;
#ifndef KILN_CHECK_BREAKS_SERIALIZE_ROUND_TRIP
        if (length == sizeof(scale))
        {
            std::memcpy(&scale, data, sizeof(scale));
        }
#else
        (void)data, (void)length; // the serialized scale is ignored
#endif
        return new ScalePluginV2(scale, mNamespace);
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    char const* getPluginNamespace() const noexcept override
    {
        return mNamespace.c_str();
    }

private:
    PluginField mDeclared{};
    PluginFieldCollection mFields{};
    std::string mNamespace;
};

ScaleCreatorV2 gCreator;
IPluginCreator* const gCreators[] = {&gCreator};

} // namespace

extern "C" __attribute__((visibility("default"))) IPluginCreator* const* getPluginCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}

KILN_IGNORE_DEPRECATED_END
