// SPDX-License-Identifier: Apache-2.0
#include "bert_registration.h"

#include "bert_legacy.h"

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

//! The V1 creators registered here, kept as long as the process, like the V3 ones.
std::vector<std::unique_ptr<BertLegacyCreator>>& legacyCreators()
{
    static auto* all = new std::vector<std::unique_ptr<BertLegacyCreator>>();
    return *all;
}

//! Registers version "1" (IPluginV2DynamicExt) over the V3 plugin Creator makes, and its host runner.
template <typename Creator>
void registerLegacy(nvinfer1::IPluginRegistry& registry, char const* pluginNamespace)
{
    auto creator = std::make_unique<BertLegacyCreator>(std::make_unique<Creator>());
    if (kiln::findCreatorQuietly(registry, {creator->getPluginName(), kBertLegacyVersion, pluginNamespace}) != nullptr)
    {
        return; // Registered already (a duplicate is skipped quietly).
    }
    creator->setPluginNamespace(pluginNamespace);
    if (registry.registerCreator(*creator, pluginNamespace))
    {
        // Fails, logging, only when the application registered a runner of its own for this plugin; that one stays.
        static_cast<void>(kilnRegisterPluginV2HostRunner(
            creator->getPluginName(), kBertLegacyVersion, pluginNamespace, &bertLegacyHostRunner()));
        legacyCreators().push_back(std::move(creator));
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
        registerLegacy<SkipLayerNormCreator>(registry, ns);
        registerLegacy<EmbLayerNormCreator>(registry, ns);
        registerLegacy<QkvToContextCreator>(registry, ns);
        registerLegacy<DisentangledAttentionCreator>(registry, ns);
    }
    catch (...)
    {
        // Out of memory: the creators registered so far stay.
    }
}

} // namespace kiln::plugins
