// SPDX-License-Identifier: Apache-2.0
// The process-wide registry behind getPluginRegistry(), and kiln's private-registry entry points.
#include "core/logging.h"
#include "kiln/kiln.h"
#include "plugin/registry.h"

#include <algorithm>
#include <memory>
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
    std::unordered_set<PluginRegistry*> live;
};

PrivateRegistries& privateRegistries() noexcept
{
    static auto* registries = new PrivateRegistries;
    return *registries;
}

std::string describeRegistry(void const* registry)
{
    std::ostringstream text;
    text << "registry " << registry;
    return text.str();
}

} // namespace

bool isReferencedByAnyRegistry(SharedLibrary const& library)
{
    if (globalRegistry().refersInto(library))
    {
        return true;
    }
    auto& registries = privateRegistries();
    std::lock_guard<std::mutex> lock(registries.mutex);
    return std::any_of(registries.live.begin(), registries.live.end(),
        [&](PluginRegistry const* registry) { return registry->refersInto(library); });
}

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
        auto registry = std::make_unique<kiln::PluginRegistry>(parent);
        std::lock_guard<std::mutex> lock(registries.mutex);
        registries.live.insert(registry.get());
        return registry.release();
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
    kiln::PluginRegistry* destroying = nullptr;
    char const* refusal = nullptr;
    {
        std::lock_guard<std::mutex> lock(registries.mutex);
        auto const found = std::find_if(registries.live.begin(), registries.live.end(),
            [&](kiln::PluginRegistry* r) { return static_cast<nvinfer1::IPluginRegistry*>(r) == registry; });
        if (registry == &kiln::globalRegistry())
        {
            refusal = " is the process-wide registry, which is never destroyed";
        }
        else if (found == registries.live.end())
        {
            refusal = " was not made by kilnCreatePluginRegistry (or was destroyed already)";
        }
        else if (std::any_of(registries.live.begin(), registries.live.end(),
                     [&](kiln::PluginRegistry* r) { return r->parent() == registry; }))
        {
            refusal = " is still the parent of another registry; destroy the children first";
        }
        else
        {
            destroying = *found;
            registries.live.erase(found);
        }
    }
    if (refusal != nullptr)
    {
        kiln::log(kiln::Severity::kERROR, "kilnDestroyPluginRegistry: " + kiln::describeRegistry(registry) + refusal);
        return;
    }
    delete destroying;
}
