// SPDX-License-Identifier: Apache-2.0
#include "bert_registration.h"

#include "disentangled_attention.h"
#include "emb_layer_norm.h"
#include "plugin/plugin_lookup.h"
#include "qkv_to_context.h"
#include "skip_layer_norm.h"

#include <memory>
#include <mutex>
#include <vector>

namespace kiln::plugins
{

namespace
{

//! The creators registered here; they live as long as the process, as the registry may hold them until exit.
std::vector<std::unique_ptr<StandardCreator>>& bertCreators()
{
    static auto* all = new std::vector<std::unique_ptr<StandardCreator>>();
    return *all;
}

template <typename Creator>
void registerOne(nvinfer1::IPluginRegistry& registry, char const* pluginNamespace)
{
    auto creator = std::make_unique<Creator>();
    if (kiln::findCreatorQuietly(registry, {creator->getPluginName(), creator->getPluginVersion(), pluginNamespace})
        != nullptr)
    {
        return; // Registered already (a duplicate is skipped quietly).
    }
    creator->setPluginNamespace(pluginNamespace);
    if (registry.registerCreator(*creator, pluginNamespace))
    {
        bertCreators().push_back(std::move(creator));
    }
}

} // namespace

void registerBertPlugins(nvinfer1::IPluginRegistry& registry, char const* pluginNamespace) noexcept
{
    static std::mutex mutex;
    try
    {
        std::lock_guard<std::mutex> const lock(mutex);
        char const* const ns = pluginNamespace == nullptr ? "" : pluginNamespace;
        registerOne<SkipLayerNormCreator>(registry, ns);
        registerOne<EmbLayerNormCreator>(registry, ns);
        registerOne<QkvToContextCreator>(registry, ns);
        registerOne<DisentangledAttentionCreator>(registry, ns);
    }
    catch (...)
    {
        // Out of memory: the creators registered so far stay.
    }
}

} // namespace kiln::plugins
