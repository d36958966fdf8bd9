// SPDX-License-Identifier: Apache-2.0
// MultiscaleDeformableAttnPlugin_TRT version "1": TensorRT's legacy IPluginV2DynamicExt of the op version "2"
// (ms_deform_attn.cpp) runs, with the same checks, arithmetic and kernels.
#include "ms_deform_attn.h"

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

class MsDeformAttnLegacyPlugin final : public OneOutputPluginV2
{
public:
    char const* getPluginType() const noexcept override { return kMsDeformAttnName; }
    char const* getPluginVersion() const noexcept override { return kMsDeformAttnLegacyVersion; }

    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* plugin = new MsDeformAttnLegacyPlugin();
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
        nvinfer1::DimsExprs out{};
        std::string const problem = msDeformAttnBuildProblem(inputs, nbInputs);
        if (!problem.empty() || outputIndex != 0)
        {
            logError(kMsDeformAttnName, problem.empty() ? std::string("has one output") : problem);
            out.nbDims = -1;
            return out;
        }
        out.nbDims = 4;
        out.d[0] = inputs[0].d[0];
        out.d[1] = inputs[3].d[1];
        out.d[2] = inputs[0].d[2];
        out.d[3] = inputs[0].d[3];
        return out;
    }

    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t /*nbInputs*/,
        int32_t /*nbOutputs*/) noexcept override
    {
        return msDeformAttnSupports(pos, inOut);
    }

    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/, cudaStream_t stream) noexcept override
    {
        return msDeformAttnEnqueue(inputDesc, outputDesc, inputs, outputs, stream);
    }

    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* /*workspace*/) noexcept override
    {
        return msDeformAttnEnqueueHost(inputDesc, outputDesc, inputs, outputs);
    }

    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void* /*buffer*/) const noexcept override {}
};

MsDeformAttnLegacyPlugin* makePlugin(std::string const& pluginNamespace) noexcept
{
    try
    {
        auto* plugin = new MsDeformAttnLegacyPlugin();
        plugin->setPluginNamespace(pluginNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace

MsDeformAttnLegacyCreator::MsDeformAttnLegacyCreator()
    : StandardCreatorV2({})
{
}

nvinfer1::IPluginV2* MsDeformAttnLegacyCreator::createPlugin(
    char const* /*name*/, nvinfer1::PluginFieldCollection const* /*fc*/) noexcept
{
    return makePlugin(mNamespace);
}

nvinfer1::IPluginV2* MsDeformAttnLegacyCreator::deserializePlugin(
    char const* /*name*/, void const* /*serialData*/, size_t /*serialLength*/) noexcept
{
    return makePlugin(mNamespace); // version "1" serializes nothing
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
