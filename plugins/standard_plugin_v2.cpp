// SPDX-License-Identifier: Apache-2.0
#include "standard_plugin_v2.h"

#include "plugin/plugin_lookup.h"

#include <cstring>
#include <mutex>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

namespace
{

//! Sends kiln's host backend to the plugin's enqueueHost(). It is registered only for the names, versions and
//! namespaces of this library's V2 creators that keep the default hostRunner(): their plugins are StandardPluginV2s.
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

StandardHostRunner& standardRunner()
{
    static auto* runner = new StandardHostRunner(); // Outlives every engine: never destroyed.
    return *runner;
}

//! The V2 creators this library made; they live as long as the process.
std::vector<std::unique_ptr<StandardCreatorV2>>& creatorsV2()
{
    static auto* all = new std::vector<std::unique_ptr<StandardCreatorV2>>();
    return *all;
}

bool isScalarField(nvinfer1::PluginField const& field)
{
    return field.length == 1
        && (field.type == nvinfer1::PluginFieldType::kINT32 || field.type == nvinfer1::PluginFieldType::kFLOAT32);
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
        logError(getPluginType(), "out of memory setting the namespace");
    }
}

size_t StandardPluginV2::getSerializationSize() const noexcept
{
    try
    {
        return serializedFields().size() * sizeof(int32_t);
    }
    catch (...)
    {
        return 0;
    }
}

void StandardPluginV2::serialize(void* buffer) const noexcept
{
    try
    {
        auto* out = static_cast<char*>(buffer);
        for (nvinfer1::PluginField const& field : serializedFields())
        {
            std::memcpy(out, field.data, sizeof(int32_t)); // Every field is one kINT32 or kFLOAT32.
            out += sizeof(int32_t);
        }
    }
    catch (...)
    {
        logError(getPluginType(), "out of memory serializing the plugin");
    }
}

nvinfer1::IPluginV2* StandardCreatorV2::deserializePlugin(
    char const* name, void const* serialData, size_t serialLength) noexcept
{
    try
    {
        size_t const expected = mDeclared.size() * sizeof(int32_t);
        if (serialData == nullptr || serialLength != expected)
        {
            logError(getPluginName(),
                "version " + std::string(getPluginVersion()) + " namespace \"" + mNamespace
                    + "\": the serialized plugin has " + std::to_string(serialLength) + " bytes; it must have "
                    + std::to_string(expected) + " (its fields)");
            return nullptr;
        }
        std::vector<nvinfer1::PluginField> fields = mDeclared;
        auto const* in = static_cast<char const*>(serialData);
        for (size_t i = 0; i < fields.size(); ++i)
        {
            if (!isScalarField(fields[i]))
            {
                return nullptr; // Never: the standard V2 creators declare scalar fields only.
            }
            fields[i].data = in + i * sizeof(int32_t);
        }
        nvinfer1::PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
        return createPlugin(name, &fc);
    }
    catch (...)
    {
        return nullptr;
    }
}

kiln::IPluginV2HostRunner& StandardCreatorV2::hostRunner() const noexcept
{
    return standardRunner();
}

void registerStandardV2(
    nvinfer1::IPluginRegistry& registry, char const* pluginNamespace, std::unique_ptr<StandardCreatorV2> creator)
{
    static std::mutex mutex;
    std::lock_guard<std::mutex> const lock(mutex);
    // Probed quietly: getCreator reports a miss as an error, as TensorRT's registry does.
    if (kiln::findCreatorQuietly(registry, {creator->getPluginName(), creator->getPluginVersion(), pluginNamespace})
        != nullptr)
    {
        return; // Registered already (a duplicate is skipped quietly).
    }
    creator->setPluginNamespace(pluginNamespace);
    // The V2 overload of registerCreator, as TensorRT's initLibNvInferPlugins reaches it.
    if (!registry.registerCreator(static_cast<nvinfer1::IPluginCreator&>(*creator), pluginNamespace))
    {
        return;
    }
    kilnRegisterPluginV2HostRunner(
        creator->getPluginName(), creator->getPluginVersion(), pluginNamespace, &creator->hostRunner());
    creatorsV2().push_back(std::move(creator));
}

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
