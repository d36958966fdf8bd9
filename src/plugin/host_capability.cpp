// SPDX-License-Identifier: Apache-2.0
#include "plugin/host_capability.h"

#include "core/logging.h"
#include "network/checks.h"
#include "plugin/v2_host.h"

#include <cstring>
#include <mutex>
#include <set>
#include <tuple>
#include <typeinfo>

namespace kiln
{

namespace
{

constexpr char const* kHostKind = "KILN_PLUGIN_V3ONE_HOST";
constexpr int32_t kHostMajor = 1;
constexpr char const* kCoreKind = "PLUGIN_V3ONE_CORE";

using Key = std::tuple<std::string, std::string, std::string>;

struct DeclaredTable
{
    std::mutex mutex;
    std::set<Key> declared;
};

// Never destroyed: plugin libraries' static objects may withdraw while the process exits.
DeclaredTable& declaredTable() noexcept
{
    static auto* table = new DeclaredTable;
    return *table;
}

Key keyOf(PluginIdentity const& identity)
{
    return Key{identity.name, identity.version, identity.pluginNamespace};
}

bool isHostCapability(nvinfer1::InterfaceInfo const& info) noexcept
{
    return info.kind != nullptr && std::strcmp(info.kind, kHostKind) == 0 && info.major == kHostMajor;
}

//! The core capability of plugin when it is a well-formed one, else nullptr.
nvinfer1::IPluginV3OneCore const* coreOf(nvinfer1::IPluginV3& plugin) noexcept
{
    nvinfer1::IPluginCapability* const core = plugin.getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE);
    if (core == nullptr)
    {
        return nullptr;
    }
    nvinfer1::InterfaceInfo const info = core->getInterfaceInfo();
    if (info.kind == nullptr || std::strcmp(info.kind, kCoreKind) != 0 || info.major != 1)
    {
        return nullptr;
    }
    return static_cast<nvinfer1::IPluginV3OneCore const*>(core);
}

//! How messages name plugin: by its core capability's name, version and namespace, or (null) for each without one.
std::string describeV3(nvinfer1::IPluginV3& plugin)
{
    nvinfer1::IPluginV3OneCore const* const core = coreOf(plugin);
    return core == nullptr
        ? describePlugin(nullptr, nullptr, nullptr)
        : describePlugin(core->getPluginName(), core->getPluginVersion(), core->getPluginNamespace());
}

//! Whether plugin's identity was declared with kilnRegisterPluginV3Host().
bool isDeclared(nvinfer1::IPluginV3& plugin)
{
    nvinfer1::IPluginV3OneCore const* const core = coreOf(plugin);
    if (core == nullptr || core->getPluginName() == nullptr || core->getPluginVersion() == nullptr)
    {
        return false;
    }
    char const* const ns = core->getPluginNamespace();
    Key const key{core->getPluginName(), core->getPluginVersion(), ns != nullptr ? ns : ""};
    DeclaredTable& table = declaredTable();
    std::lock_guard<std::mutex> const lock(table.mutex);
    return table.declared.count(key) != 0;
}

//! Whether the object behind plugin carries RTTI: the Itanium C++ ABI keeps a pointer to its type information just
//! before the vtable's virtual function pointers, null when the class was compiled with -fno-rtti.
bool hasTypeInformation(nvinfer1::IPluginV3 const& plugin) noexcept
{
    void const* const* vtable = nullptr;
    std::memcpy(static_cast<void*>(&vtable), static_cast<void const*>(&plugin), sizeof(vtable));
    return vtable != nullptr && vtable[-1] != nullptr;
}

//! The IPluginV3OneHost base of plugin's class, or nullptr (no RTTI, no such public base, or an ambiguous one).
IPluginV3OneHost* hostBase(nvinfer1::IPluginV3& plugin) noexcept
{
    if (!hasTypeInformation(plugin))
    {
        return nullptr;
    }
    return dynamic_cast<IPluginV3OneHost*>(&plugin);
}

} // namespace

namespace
{

//! What plugin offers as its host capability, by either opt-in, before its interface info is checked.
struct Offered
{
    IPluginV3OneHost* host{};
    bool declared{}; //!< Asked for through kilnRegisterPluginV3Host()'s declaration.
};

Offered offered(nvinfer1::IPluginV3& plugin)
{
    Offered result{hostBase(plugin), false};
    if (result.host == nullptr && isDeclared(plugin))
    {
        result.declared = true;
        result.host = static_cast<IPluginV3OneHost*>(plugin.getCapabilityInterface(kPLUGIN_CAPABILITY_HOST));
    }
    return result;
}

} // namespace

IPluginV3OneHost* findHostCapability(nvinfer1::IPluginV3& plugin) noexcept
{
    try
    {
        IPluginV3OneHost* const host = offered(plugin).host;
        return host != nullptr && isHostCapability(host->getInterfaceInfo()) ? host : nullptr;
    }
    catch (...)
    {
        return nullptr;
    }
}

std::string hostCapabilityProblem(nvinfer1::IPluginV3& plugin)
{
    Offered const found = offered(plugin);
    std::string why;
    if (found.host != nullptr)
    {
        nvinfer1::InterfaceInfo const info = found.host->getInterfaceInfo();
        why = "; its host capability reports " + quoted(info.kind) + " version " + std::to_string(info.major) + "."
            + std::to_string(info.minor) + ", where kiln needs \"" + kHostKind + "\" version "
            + std::to_string(kHostMajor);
    }
    else if (found.declared)
    {
        why = "; it was declared with kilnRegisterPluginV3Host(), but "
              "getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST) returned null";
    }
    else if (plugin.getAPILanguage() == nvinfer1::APILanguage::kPYTHON)
    {
        why = "; it is a Python plugin whose class defines no enqueue_host(input_desc, output_desc, inputs, outputs, "
              "workspace) method, which kiln's host backend calls in place of enqueue() (docs/python.md)";
    }
    else
    {
        why = hasTypeInformation(plugin)
            ? "; its class does not derive from kiln::IPluginV3OneHost, and it was not declared with "
              "kilnRegisterPluginV3Host()"
            : "; its class was compiled without RTTI, so kiln cannot look for a kiln::IPluginV3OneHost base, and it "
              "was not declared with kilnRegisterPluginV3Host()";
    }
    return describeV3(plugin) + " cannot run on kiln's host backend: it offers no kiln::IPluginV3OneHost "
        + "(include/kiln/plugin_host.h)" + why
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

bool declareV3Host(PluginIdentity const& identity)
{
    DeclaredTable& table = declaredTable();
    std::lock_guard<std::mutex> const lock(table.mutex);
    return table.declared.insert(keyOf(identity)).second;
}

bool withdrawV3Host(PluginIdentity const& identity)
{
    DeclaredTable& table = declaredTable();
    std::lock_guard<std::mutex> const lock(table.mutex);
    return table.declared.erase(keyOf(identity)) != 0;
}

} // namespace kiln

extern "C" TENSORRTAPI bool kilnRegisterPluginV3Host(
    char const* name, char const* version, char const* pluginNamespace) noexcept
{
    return kiln::identityEntryPoint("kilnRegisterPluginV3Host", name, version, pluginNamespace,
        [](kiln::PluginIdentity const& identity) -> std::optional<std::string> {
            if (kiln::declareV3Host(identity))
            {
                return std::nullopt;
            }
            return " is declared already";
        });
}

extern "C" TENSORRTAPI bool kilnDeregisterPluginV3Host(
    char const* name, char const* version, char const* pluginNamespace) noexcept
{
    return kiln::identityEntryPoint("kilnDeregisterPluginV3Host", name, version, pluginNamespace,
        [](kiln::PluginIdentity const& identity) -> std::optional<std::string> {
            if (kiln::withdrawV3Host(identity))
            {
                return std::nullopt;
            }
            return " was not declared";
        });
}
