// SPDX-License-Identifier: Apache-2.0
#include "plugin/host_capability.h"

#include <cstring>

namespace kiln
{

namespace
{

constexpr char const* kHostKind = "KILN_PLUGIN_V3ONE_HOST";
constexpr int32_t kHostMajor = 1;
constexpr char const* kCoreKind = "PLUGIN_V3ONE_CORE";

bool isHostCapability(nvinfer1::InterfaceInfo const& info) noexcept
{
    return info.kind != nullptr && std::strcmp(info.kind, kHostKind) == 0 && info.major == kHostMajor;
}

//! How messages name plugin: by its core capability's name, version and namespace, or (null) for each without one.
std::string describeV3(nvinfer1::IPluginV3& plugin)
{
    nvinfer1::IPluginCapability* const core = plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE);
    if (core == nullptr)
    {
        return describePlugin(nullptr, nullptr, nullptr);
    }
    nvinfer1::InterfaceInfo const info = core->getInterfaceInfo();
    if (info.kind == nullptr || std::strcmp(info.kind, kCoreKind) != 0 || info.major != 1)
    {
        return describePlugin(nullptr, nullptr, nullptr);
    }
    auto const* identity = static_cast<nvinfer1::IPluginV3OneCore const*>(core);
    return describePlugin(identity->getPluginName(), identity->getPluginVersion(), identity->getPluginNamespace());
}

} // namespace

IPluginV3OneHost* findHostCapability(nvinfer1::IPluginV3& plugin) noexcept
{
    nvinfer1::IPluginCapability* const capability = plugin.getCapabilityInterface(kPLUGIN_CAPABILITY_HOST);
    if (capability == nullptr || !isHostCapability(capability->getInterfaceInfo()))
    {
        return nullptr;
    }
    return static_cast<IPluginV3OneHost*>(capability);
}

std::string hostCapabilityProblem(nvinfer1::IPluginV3& plugin)
{
    std::string answer;
    nvinfer1::IPluginCapability* const capability = plugin.getCapabilityInterface(kPLUGIN_CAPABILITY_HOST);
    if (capability == nullptr)
    {
        answer = "returned null";
    }
    else
    {
        nvinfer1::InterfaceInfo const info = capability->getInterfaceInfo();
        answer = "returned an interface that reports " + quoted(info.kind) + " version " + std::to_string(info.major)
            + "." + std::to_string(info.minor);
    }
    return describeV3(plugin) + " cannot run on kiln's host backend: it does not implement kiln::IPluginV3OneHost "
        + "(include/kiln/plugin_host.h); getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST) " + answer
        + ", where kiln needs \"" + kHostKind + "\" version " + std::to_string(kHostMajor)
        + " (build the engine for the CUDA backend, or add the host capability to the plugin)";
}

Expected<IPluginV3OneHost*> requireHostCapability(nvinfer1::IPluginV3& plugin)
{
    if (IPluginV3OneHost* const host = findHostCapability(plugin))
    {
        return host;
    }
    return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE, hostCapabilityProblem(plugin)};
}

} // namespace kiln
