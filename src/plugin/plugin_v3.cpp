// SPDX-License-Identifier: Apache-2.0
#include "plugin/plugin_v3.h"

#include "plugin/host_capability.h"
#include "plugin/plugin_quick.h"

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

//! The error for a capability of type that reports an interface kiln does not take for it.
Error wrongKind(
    nvinfer1::IPluginCapability const& found, char const* typeName, char const* wanted, std::string const& who)
{
    nvinfer1::InterfaceInfo const info = found.getInterfaceInfo();
    return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
        who + ": getCapabilityInterface(" + typeName + ") returned an interface reporting \""
            + (info.kind != nullptr ? info.kind : "(null)") + "\" version " + std::to_string(info.major) + ", not "
            + wanted};
}

//! The capability of type, or an error that says it came back null.
Expected<nvinfer1::IPluginCapability*> anyCapability(
    nvinfer1::IPluginV3& plugin, PluginCapabilityType type, char const* typeName, std::string const& who)
{
    nvinfer1::IPluginCapability* found = plugin.getCapabilityInterface(type);
    if (found == nullptr)
    {
        return Error{
            nvinfer1::ErrorCode::kINVALID_ARGUMENT, who + ": getCapabilityInterface(" + typeName + ") returned null"};
    }
    return found;
}

QuickAdapters& adaptersOf(V3Capabilities& caps, nvinfer1::IPluginV3& plugin, std::string const& who)
{
    if (caps.quick == nullptr)
    {
        caps.quick = std::make_shared<QuickAdapters>(plugin, who);
    }
    return *caps.quick;
}

} // namespace

Expected<V3Capabilities> capabilitiesOf(
    nvinfer1::IPluginV3& plugin, CapabilityNeeds needs, std::string const& layer, std::string const& described)
{
    std::string const who = layer + ": " + described;
    V3Capabilities caps;
    auto core = anyCapability(plugin, PluginCapabilityType::kCORE, "kCORE", who);
    if (!core)
    {
        return core.error();
    }
    if (hasKind(*core.value(), "PLUGIN_V3ONE_CORE", 1, 1))
    {
        caps.core = static_cast<nvinfer1::IPluginV3OneCore*>(core.value());
    }
    else if (isQuickKind(core.value()->getInterfaceInfo(), kQuickCoreKind))
    {
        caps.core = adaptersOf(caps, plugin, who).core(*static_cast<nvinfer1::IPluginV3QuickCore*>(core.value()));
    }
    else
    {
        return wrongKind(*core.value(), "kCORE", "\"PLUGIN_V3ONE_CORE\" or \"PLUGIN_V3QUICK_CORE\"", who);
    }
    if (needs.build)
    {
        auto build = anyCapability(plugin, PluginCapabilityType::kBUILD, "kBUILD", who);
        if (!build)
        {
            return build.error();
        }
        nvinfer1::InterfaceInfo const info = build.value()->getInterfaceInfo();
        if (hasKind(*build.value(), "PLUGIN_V3ONE_BUILD", 1, 2))
        {
            caps.build = static_cast<nvinfer1::IPluginV3OneBuild*>(build.value());
            if (info.major == 2)
            {
                caps.build2 = static_cast<nvinfer1::IPluginV3OneBuildV2*>(build.value());
            }
        }
        else if (isQuickKind(info, kQuickBuildKind) || isQuickKind(info, kQuickAotBuildKind))
        {
            QuickAdapters& quick = adaptersOf(caps, plugin, who);
            caps.build2 = quick.build(*static_cast<nvinfer1::IPluginV3QuickBuild*>(build.value()));
            caps.build = caps.build2;
            if (isQuickKind(info, kQuickAotBuildKind))
            {
                // An AOT Quick plugin has no runtime capability: the engine keeps its kernel instead.
                caps.aot = quick.aot(*static_cast<nvinfer1::IPluginV3QuickAOTBuild*>(build.value()));
                return caps;
            }
        }
        else
        {
            return wrongKind(*build.value(), "kBUILD",
                "\"PLUGIN_V3ONE_BUILD\" (version 1 or 2), \"PLUGIN_V3QUICK_BUILD\" or \"PLUGIN_V3QUICKAOT_BUILD\"",
                who);
        }
    }
    auto runtime = anyCapability(plugin, PluginCapabilityType::kRUNTIME, "kRUNTIME", who);
    if (!runtime)
    {
        return runtime.error();
    }
    if (hasKind(*runtime.value(), "PLUGIN_V3ONE_RUNTIME", 1, 1))
    {
        caps.runtime = static_cast<nvinfer1::IPluginV3OneRuntime*>(runtime.value());
    }
    else if (isQuickKind(runtime.value()->getInterfaceInfo(), kQuickRuntimeKind))
    {
        caps.runtime
            = adaptersOf(caps, plugin, who).runtime(*static_cast<nvinfer1::IPluginV3QuickRuntime*>(runtime.value()));
    }
    else
    {
        return wrongKind(*runtime.value(), "kRUNTIME", "\"PLUGIN_V3ONE_RUNTIME\" or \"PLUGIN_V3QUICK_RUNTIME\"", who);
    }
    if (needs.host)
    {
        // A Quick runtime runs on the host through kiln::IPluginV3QuickHost (its adapter names the layer already).
        bool const quickRuntime = isQuickKind(runtime.value()->getInterfaceInfo(), kQuickRuntimeKind);
        auto host = quickRuntime ? caps.quick->host() : requireHostCapability(plugin);
        if (!host)
        {
            return Error{host.error().code, quickRuntime ? host.error().message : layer + ": " + host.error().message};
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
