// SPDX-License-Identifier: Apache-2.0
#include "plugin/plugin_v3.h"

#include "plugin/host_capability.h"

#include <cstring>

namespace kiln
{

using nvinfer1::PluginCapabilityType;

namespace
{

bool hasKind(nvinfer1::IPluginCapability const& capability, char const* kind, int32_t minMajor, int32_t maxMajor)
{
    nvinfer1::InterfaceInfo const info = capability.getInterfaceInfo();
    return info.kind != nullptr && std::strcmp(info.kind, kind) == 0 && info.major >= minMajor
        && info.major <= maxMajor;
}

//! The capability of type, checked against its interface kind, or an error that says what came back.
Expected<nvinfer1::IPluginCapability*> capability(nvinfer1::IPluginV3& plugin, PluginCapabilityType type,
    char const* typeName, char const* kind, int32_t minMajor, int32_t maxMajor, std::string const& who)
{
    nvinfer1::IPluginCapability* found = plugin.getCapabilityInterface(type);
    if (found == nullptr)
    {
        return Error{
            nvinfer1::ErrorCode::kINVALID_ARGUMENT, who + ": getCapabilityInterface(" + typeName + ") returned null"};
    }
    if (!hasKind(*found, kind, minMajor, maxMajor))
    {
        nvinfer1::InterfaceInfo const info = found->getInterfaceInfo();
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            who + ": getCapabilityInterface(" + typeName + ") returned an interface reporting \""
                + (info.kind != nullptr ? info.kind : "(null)") + "\" version " + std::to_string(info.major)
                + ", not \"" + kind + "\""};
    }
    return found;
}

} // namespace

Expected<V3Capabilities> capabilitiesOf(
    nvinfer1::IPluginV3& plugin, CapabilityNeeds needs, std::string const& layer, std::string const& described)
{
    std::string const who = layer + ": " + described;
    V3Capabilities caps;
    auto core = capability(plugin, PluginCapabilityType::kCORE, "kCORE", "PLUGIN_V3ONE_CORE", 1, 1, who);
    if (!core)
    {
        return core.error();
    }
    caps.core = static_cast<nvinfer1::IPluginV3OneCore*>(core.value());
    if (needs.build)
    {
        auto build = capability(plugin, PluginCapabilityType::kBUILD, "kBUILD", "PLUGIN_V3ONE_BUILD", 1, 2, who);
        if (!build)
        {
            return build.error();
        }
        caps.build = static_cast<nvinfer1::IPluginV3OneBuild*>(build.value());
        if (build.value()->getInterfaceInfo().major == 2)
        {
            caps.build2 = static_cast<nvinfer1::IPluginV3OneBuildV2*>(build.value());
        }
    }
    auto runtime = capability(plugin, PluginCapabilityType::kRUNTIME, "kRUNTIME", "PLUGIN_V3ONE_RUNTIME", 1, 1, who);
    if (!runtime)
    {
        return runtime.error();
    }
    caps.runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(runtime.value());
    if (needs.host)
    {
        auto host = requireHostCapability(plugin);
        if (!host)
        {
            return Error{host.error().code, layer + ": " + host.error().message};
        }
        caps.host = host.value();
    }
    return caps;
}

nvinfer1::PluginTensorDesc pluginDesc(
    nvinfer1::Dims const& dims, nvinfer1::DataType type, nvinfer1::TensorFormat format, float scale) noexcept
{
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = type;
    desc.format = format;
    desc.scale = scale;
    return desc;
}

} // namespace kiln
