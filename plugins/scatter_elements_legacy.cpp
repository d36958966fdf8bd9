// SPDX-License-Identifier: Apache-2.0
// ScatterElements version "1": TensorRT's legacy IPluginV2DynamicExt of the op version "2" (scatter_elements.cpp)
// runs, with the same fields, checks, arithmetic and kernels.
#include "scatter_elements.h"

#include <cstring>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

class ScatterElementsLegacyPlugin final : public OneOutputPluginV2
{
public:
    ScatterElementsLegacyPlugin(ScatterReduction reduction, int32_t axis)
        : mReduction(reduction)
        , mAxis(axis)
    {
    }

    char const* getPluginType() const noexcept override { return kScatterElementsName; }
    char const* getPluginVersion() const noexcept override { return kScatterElementsLegacyVersion; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new ScatterElementsLegacyPlugin(mReduction, mAxis);
            plugin->mNamespace = mNamespace;
            return plugin;
        }
        catch (...)
        {
            return nullptr;
        }
    }

    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& /*exprBuilder*/) noexcept override
    {
        std::string const problem = scatterBuildProblem(inputs, nbInputs, mAxis);
        if (!problem.empty() || outputIndex != 0)
        {
            logError(kScatterElementsName, problem.empty() ? std::string("has one output") : problem);
            nvinfer1::DimsExprs refused{};
            refused.nbDims = -1;
            return refused;
        }
        return inputs[0];
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return scatterSupports(pos, inOut);
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        return scatterEnqueue(mReduction, mAxis, inputDesc, outputDesc, inputs, outputs, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return scatterEnqueueHost(mReduction, mAxis, inputDesc, outputDesc, inputs, outputs);
    }

    size_t getSerializationSize() const noexcept override { return kSerializedSize; }

    void serialize(void* buffer) const noexcept override
    {
        auto const reduction = static_cast<int32_t>(mReduction);
        std::memcpy(buffer, &reduction, 4);
        std::memcpy(static_cast<char*>(buffer) + 4, &mAxis, 4);
    }

    static constexpr size_t kSerializedSize = 8;

private:
    ScatterReduction mReduction;
    int32_t mAxis;
};

nvinfer1::IPluginV2* makePlugin(ScatterReduction reduction, int32_t axis, std::string const& pluginNamespace) noexcept
{
    try
    {
        auto* plugin = new ScatterElementsLegacyPlugin(reduction, axis);
        plugin->setPluginNamespace(pluginNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace

ScatterElementsLegacyCreator::ScatterElementsLegacyCreator()
    : StandardCreatorV2({PluginField{"reduction", nullptr, PluginFieldType::kCHAR, 1},
        PluginField{"axis", nullptr, PluginFieldType::kINT32, 1}})
{
}

nvinfer1::IPluginV2* ScatterElementsLegacyCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        ScatterReduction reduction{};
        int32_t axis = 0;
        return readScatterFields(fc, reduction, axis) ? makePlugin(reduction, axis, mNamespace) : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* ScatterElementsLegacyCreator::deserializePlugin(
    char const* /*name*/, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        int32_t reduction = -1;
        int32_t axis = 0;
        if (serialData != nullptr && serialLength == ScatterElementsLegacyPlugin::kSerializedSize)
        {
            std::memcpy(&reduction, serialData, 4);
            std::memcpy(&axis, static_cast<char const*>(serialData) + 4, 4);
        }
        if (scatterReductionName(static_cast<ScatterReduction>(reduction)) == nullptr)
        {
            logError(kScatterElementsName,
                "a serialized version 1 plugin is 8 bytes, a reduction from 0 to 5 and an axis; this one is "
                    + std::to_string(serialLength) + " bytes with reduction " + std::to_string(reduction));
            return nullptr;
        }
        return makePlugin(static_cast<ScatterReduction>(reduction), axis, mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
