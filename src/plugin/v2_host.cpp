// SPDX-License-Identifier: Apache-2.0
#include "plugin/v2_host.h"

#include "core/logging.h"
#include "network/checks.h"

#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <tuple>

namespace kiln
{
namespace
{

constexpr char const* kRunnerKind = "KILN_PLUGIN_V2_HOST_RUNNER";
constexpr int32_t kRunnerMajor = 1;

using Key = std::tuple<std::string, std::string, std::string>;

Key keyOf(PluginIdentity const& identity)
{
    return Key{identity.name, identity.version, identity.pluginNamespace};
}

struct RunnerTable
{
    std::mutex mutex;
    std::map<Key, IPluginV2HostRunner*> runners;
};

// Never destroyed: plugin libraries' static objects may deregister while the process exits.
RunnerTable& table() noexcept
{
    static auto* runners = new RunnerTable;
    return *runners;
}

} // namespace

bool registerV2HostRunner(PluginIdentity const& identity, IPluginV2HostRunner& runner, std::string* why)
{
    nvinfer1::InterfaceInfo const info = runner.getInterfaceInfo();
    if (info.kind == nullptr || std::strcmp(info.kind, kRunnerKind) != 0 || info.major != kRunnerMajor)
    {
        *why = "the runner reports interface " + quoted(info.kind) + " version " + std::to_string(info.major)
            + "; kiln needs \"" + kRunnerKind + "\" version " + std::to_string(kRunnerMajor);
        return false;
    }
    RunnerTable& runners = table();
    std::lock_guard<std::mutex> const lock(runners.mutex);
    if (!runners.runners.emplace(keyOf(identity), &runner).second)
    {
        *why = "a runner is registered for it already; deregister that one first";
        return false;
    }
    return true;
}

bool deregisterV2HostRunner(PluginIdentity const& identity)
{
    RunnerTable& runners = table();
    std::lock_guard<std::mutex> const lock(runners.mutex);
    return runners.runners.erase(keyOf(identity)) != 0;
}

IPluginV2HostRunner* findV2HostRunner(PluginIdentity const& identity)
{
    RunnerTable& runners = table();
    std::lock_guard<std::mutex> const lock(runners.mutex);
    auto const found = runners.runners.find(keyOf(identity));
    return found == runners.runners.end() ? nullptr : found->second;
}

Expected<IPluginV2HostRunner*> requireV2HostRunner(PluginIdentity const& identity)
{
    if (IPluginV2HostRunner* const runner = findV2HostRunner(identity))
    {
        return runner;
    }
    return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
        describeIdentity(identity)
            + " cannot run on kiln's host backend: no kiln::IPluginV2HostRunner is registered for it. V2 plugins "
              "run on the host through a runner registered before an execution context runs them (or a build times "
              "them): "
              "kilnRegisterPluginV2HostRunner(\""
            + identity.name + "\", \"" + identity.version + "\", \"" + identity.pluginNamespace
            + "\", &runner) (include/kiln/plugin_host.h)"};
}

bool identityEntryPoint(char const* where, char const* name, char const* version, char const* pluginNamespace,
    std::function<std::optional<std::string>(PluginIdentity const&)> const& what) noexcept
{
    try
    {
        if (name == nullptr || version == nullptr)
        {
            log(Severity::kERROR,
                std::string(where) + ": the plugin " + (name == nullptr ? "name" : "version")
                    + " is null; give the name, version and namespace the plugin reports");
            return false;
        }
        PluginIdentity const identity{name, version, pluginNamespace != nullptr ? pluginNamespace : ""};
        std::optional<std::string> const problem = what(identity);
        if (problem)
        {
            log(Severity::kERROR, std::string(where) + ": " + describeIdentity(identity) + *problem);
        }
        return !problem;
    }
    catch (std::bad_alloc const&)
    {
        log(Severity::kERROR, std::string(where) + ": out of memory");
        return false;
    }
}

} // namespace kiln

extern "C" TENSORRTAPI bool kilnRegisterPluginV2HostRunner(
    char const* name, char const* version, char const* pluginNamespace, kiln::IPluginV2HostRunner* runner) noexcept
{
    return kiln::identityEntryPoint("kilnRegisterPluginV2HostRunner", name, version, pluginNamespace,
        [&](kiln::PluginIdentity const& identity) -> std::optional<std::string> {
            std::string why = "the runner is null";
            if (runner != nullptr && kiln::registerV2HostRunner(identity, *runner, &why))
            {
                return std::nullopt;
            }
            return ": " + why;
        });
}

extern "C" TENSORRTAPI bool kilnDeregisterPluginV2HostRunner(
    char const* name, char const* version, char const* pluginNamespace) noexcept
{
    return kiln::identityEntryPoint("kilnDeregisterPluginV2HostRunner", name, version, pluginNamespace,
        [](kiln::PluginIdentity const& identity) -> std::optional<std::string> {
            if (kiln::deregisterV2HostRunner(identity))
            {
                return std::nullopt;
            }
            return ": no runner is registered for it";
        });
}
