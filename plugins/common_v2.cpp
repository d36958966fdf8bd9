// SPDX-License-Identifier: Apache-2.0
#include "common_v2.h"

#include "common.h"
#include "plugin/plugin_lookup.h"

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{

//! Runs every standard V2 plugin on the host backend: each one derives from StandardPluginV2.
class StandardHostRunner final : public kiln::IPluginV2HostRunner
{
public:
    int32_t enqueueHost(nvinfer1::IPluginV2& plugin, nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept override
    {
        return static_cast<StandardPluginV2&>(plugin).enqueueHost(inputDesc, outputDesc, inputs, outputs, workspace);
    }
};

StandardHostRunner& hostRunner()
{
    static auto* runner = new StandardHostRunner(); // outlives every engine: never destroyed
    return *runner;
}

std::vector<std::unique_ptr<StandardCreatorV2>>& creatorsV2()
{
    static auto* all = new std::vector<std::unique_ptr<StandardCreatorV2>>();
    return *all;
}

} // namespace

void StandardPluginV2::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
        logError(getPluginType(), "out of memory for the namespace");
    }
}

nvinfer1::DataType StandardPluginV2::getOutputDataType(
    int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (index != 0 || nbInputs < 1 || inputTypes == nullptr)
    {
        logError(getPluginType(), "has one output, of the type of input 0");
        return nvinfer1::DataType::kFLOAT;
    }
    return inputTypes[0];
}

void registerStandardV2(
    nvinfer1::IPluginRegistry& registry, std::unique_ptr<StandardCreatorV2> creator, char const* pluginNamespace)
{
    if (kiln::findCreatorQuietly(registry, {creator->getPluginName(), creator->getPluginVersion(), pluginNamespace})
        != nullptr)
    {
        return; // Registered already (a duplicate is skipped quietly).
    }
    creator->setPluginNamespace(pluginNamespace);
    if (registry.registerCreator(*creator, pluginNamespace))
    {
        kilnRegisterPluginV2HostRunner(
            creator->getPluginName(), creator->getPluginVersion(), pluginNamespace, &hostRunner());
        creatorsV2().push_back(std::move(creator));
    }
}

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
