// SPDX-License-Identifier: Apache-2.0
// The process-wide registry behind getPluginRegistry(), and kiln's private-registry entry points.
#include "core/logging.h"
#include "kiln/kiln.h"
#include "plugin/registry.h"

#include <mutex>
#include <new>
#include <sstream>
#include <unordered_set>

namespace kiln
{
namespace
{

// Never destroyed: plugin libraries' static objects may still use it while the process exits.
PluginRegistry& globalRegistry() noexcept
{
    static auto* registry = new PluginRegistry(nullptr);
    return *registry;
}

//! The registries made by kilnCreatePluginRegistry, so that only those are ever deleted.
struct PrivateRegistries
{
    std::mutex mutex;
    std::unordered_set<nvinfer1::IPluginRegistry*> live;
};

PrivateRegistries& privateRegistries() noexcept
{
    static auto* registries = new PrivateRegistries;
    return *registries;
}

} // namespace
} // namespace kiln

extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* getPluginRegistry() noexcept
{
    return &kiln::globalRegistry();
}

extern "C" TENSORRTAPI nvinfer1::IPluginRegistry* kilnCreatePluginRegistry(nvinfer1::IPluginRegistry* parent) noexcept
{
    try
    {
        auto& registries = kiln::privateRegistries();
        auto* registry = new kiln::PluginRegistry(parent);
        std::lock_guard<std::mutex> lock(registries.mutex);
        registries.live.insert(registry);
        return registry;
    }
    catch (std::bad_alloc const&)
    {
        kiln::log(kiln::Severity::kERROR, "kilnCreatePluginRegistry: out of memory");
        return nullptr;
    }
}

extern "C" TENSORRTAPI void kilnDestroyPluginRegistry(nvinfer1::IPluginRegistry* registry) noexcept
{
    if (registry == nullptr)
    {
        return;
    }
    auto& registries = kiln::privateRegistries();
    {
        std::lock_guard<std::mutex> lock(registries.mutex);
        if (registries.live.erase(registry) == 0)
        {
            std::ostringstream address;
            address << static_cast<void const*>(registry);
            kiln::log(kiln::Severity::kERROR,
                "kilnDestroyPluginRegistry: registry " + address.str()
                    + (registry == &kiln::globalRegistry() ? " is the process-wide registry, which is never destroyed"
                                                           : " was not made by kilnCreatePluginRegistry"));
            return;
        }
    }
    delete static_cast<kiln::PluginRegistry*>(registry);
}
