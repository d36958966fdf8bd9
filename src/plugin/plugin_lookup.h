// SPDX-License-Identifier: Apache-2.0
// Finding plugin creators through the public IPluginRegistry interface, and saying what is there when one is
// missing: creators of the same name under other versions or namespaces, names a few edits away, and the plugin
// libraries loaded in the process. The registry (getCreator / getPluginCreator misses), the ONNX parser (plugin
// nodes) and the runtime (the plugins of a plan) all use it. It needs only the public headers, as the ONNX parser,
// a client of the public API, compiles it into its own library.
//
//     PluginKey const key{"ROIAlign_TRT", "1", ""};
//     if (findCreatorQuietly(registry, key) == nullptr)
//     {
//         log("no creator ... " + describeNearMisses(registry, key));
//         // "Did you mean 'ROIAlign_TRT' version '2' namespace '' (another version)? Plugin libraries loaded:
//         //  /opt/kiln/lib/libnvinfer_plugin.so.10."
//     }
#pragma once

#include "NvInferRuntime.h"
#include "kiln/plugin_quick.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln
{

//! What a creator is registered under.
struct PluginKey
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    bool operator==(PluginKey const&) const = default;
};

//! A creator with the key it reports.
struct RegisteredCreator
{
    nvinfer1::IPluginCreatorInterface* creator{};
    PluginKey key;
};

//! The key creator reports, read through the interface of its kind ("PLUGIN CREATOR_V1", "PLUGIN CREATOR_V3ONE" or
//! "PLUGIN CREATOR_V3QUICK"); false for other kinds.
inline bool readCreatorKey(nvinfer1::IPluginCreatorInterface& creator, PluginKey& key)
{
    auto const text = [](char const* s) { return s != nullptr ? std::string{s} : std::string{}; };
    char const* kind = creator.getInterfaceInfo().kind;
    if (kind != nullptr && std::string_view{kind} == "PLUGIN CREATOR_V1")
    {
        auto& v1 = static_cast<nvinfer1::IPluginCreator&>(creator);
        key = {text(v1.getPluginName()), text(v1.getPluginVersion()), text(v1.getPluginNamespace())};
        return true;
    }
    if (kind != nullptr && std::string_view{kind} == "PLUGIN CREATOR_V3ONE")
    {
        auto& v3 = static_cast<nvinfer1::IPluginCreatorV3One&>(creator);
        key = {text(v3.getPluginName()), text(v3.getPluginVersion()), text(v3.getPluginNamespace())};
        return true;
    }
    if (kind != nullptr && std::string_view{kind} == "PLUGIN CREATOR_V3QUICK")
    {
        auto& quick = static_cast<nvinfer1::IPluginCreatorV3Quick&>(creator);
        key = {text(quick.getPluginName()), text(quick.getPluginVersion()), text(quick.getPluginNamespace())};
        return true;
    }
    return false;
}

//! The creators registry lists with getAllCreatorsRecursive (its own, then its parents'), with their keys; creators
//! of other kinds are left out. (Inline, as kiln's standard plugin library uses it too.)
inline std::vector<RegisteredCreator> listCreators(nvinfer1::IPluginRegistry& registry)
{
    int32_t count = 0;
    nvinfer1::IPluginCreatorInterface* const* creators = registry.getAllCreatorsRecursive(&count);
    std::vector<RegisteredCreator> listed;
    for (int32_t i = 0; creators != nullptr && i < count; ++i)
    {
        RegisteredCreator entry{creators[i], {}};
        if (entry.creator != nullptr && readCreatorKey(*entry.creator, entry.key))
        {
            listed.push_back(std::move(entry));
        }
    }
    return listed;
}

//! The creator registered under exactly key in registry or its parents (the first one listed), or nullptr. Unlike
//! getCreator it logs nothing, so callers may probe with it.
inline nvinfer1::IPluginCreatorInterface* findCreatorQuietly(nvinfer1::IPluginRegistry& registry, PluginKey const& key)
{
    for (RegisteredCreator const& entry : listCreators(registry))
    {
        if (entry.key == key)
        {
            return entry.creator;
        }
    }
    return nullptr;
}

//! The path of the shared library that holds creator's code (its virtual table), or "" when that is the program
//! itself. A relative path is made absolute.
std::string pluginLibraryOf(nvinfer1::IPluginCreatorInterface const& creator);

//! The plugin libraries loaded in the process, in load order: every shared library that exports getCreators,
//! getPluginCreators or initLibNvInferPlugins itself, and every one that holds the code of one of creators.
std::vector<std::string> loadedPluginLibraries(std::vector<RegisteredCreator> const& creators);

//! The Levenshtein distance between a and b, ignoring ASCII case.
std::size_t editDistance(std::string_view a, std::string_view b);

//! What registry holds near the missing key, as sentences to append to a "not found" message: the creators of the
//! same name under other versions or namespaces and of names a few edits away ("Did you mean 'X' version 'Y'
//! namespace 'Z' (another version)?"), or that none is; then the plugin libraries loaded, by path, or that none is.
std::string describeNearMisses(nvinfer1::IPluginRegistry& registry, PluginKey const& key);

//! "kINT32", for messages.
char const* fieldTypeName(nvinfer1::PluginFieldType type) noexcept;

} // namespace kiln
