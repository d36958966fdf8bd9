// SPDX-License-Identifier: Apache-2.0
#include "plugin/plugin_lookup.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <set>
#include <tuple>

namespace kiln
{
namespace
{

//! How many near misses a message lists at most.
constexpr std::size_t kMaxNearMisses = 5;

//! The entry points that make a shared library a plugin library (IPluginRegistry::loadLibrary's and
//! libnvinfer_plugin's).
constexpr char const* kPluginEntryPoints[] = {"getCreators", "getPluginCreators", "initLibNvInferPlugins"};

std::string absolutePath(std::string path)
{
    if (path.empty() || path.front() == '/')
    {
        return path;
    }
    std::error_code ignored;
    std::filesystem::path const absolute = std::filesystem::absolute(path, ignored);
    return ignored ? path : absolute.string();
}

//! Whether the shared library loaded as name defines one of the plugin entry points itself (not through one of the
//! libraries it depends on).
bool exportsPluginEntryPoint(std::string const& name)
{
    void* handle = dlopen(name.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr)
    {
        return false;
    }
    bool found = false;
    for (char const* symbol : kPluginEntryPoints)
    {
        void* address = dlsym(handle, symbol);
        Dl_info info{};
        if (address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr && name == info.dli_fname)
        {
            found = true;
            break;
        }
    }
    dlclose(handle);
    return found;
}

//! The names of the shared objects loaded in the process, in load order (the program itself and the vDSO left out).
std::vector<std::string> loadedObjects()
{
    std::vector<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0')
            {
                static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
            }
            return 0;
        },
        &names);
    return names;
}

//! How far a registered key is from the missing one, for ordering; why it is near, for the message.
struct NearMiss
{
    std::size_t distance;
    PluginKey key;
    char const* why;
};

std::string quotedKey(PluginKey const& key)
{
    return "'" + key.name + "' version '" + key.version + "' namespace '" + key.pluginNamespace + "'";
}

} // namespace

std::string pluginLibraryOf(nvinfer1::IPluginCreatorInterface const& creator)
{
    // A polymorphic object's first word is its virtual table, which lies in the code of the library that defines
    // the class (the object itself may be on the heap).
    void const* vtable = *reinterpret_cast<void const* const*>(&creator);
    Dl_info info{};
    link_map* map = nullptr;
    if (dladdr1(vtable, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr
        || map->l_name == nullptr || map->l_name[0] == '\0')
    {
        return {};
    }
    return absolutePath(map->l_name);
}

std::vector<std::string> loadedPluginLibraries(std::vector<RegisteredCreator> const& creators)
{
    std::set<std::string> holdingCreators;
    for (RegisteredCreator const& entry : creators)
    {
        holdingCreators.insert(pluginLibraryOf(*entry.creator));
    }
    std::vector<std::string> libraries;
    for (std::string const& name : loadedObjects())
    {
        std::string path = absolutePath(name);
        if (holdingCreators.count(path) != 0 || exportsPluginEntryPoint(name))
        {
            libraries.push_back(std::move(path));
        }
    }
    return libraries;
}

std::size_t editDistance(std::string_view a, std::string_view b)
{
    auto const same = [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    };
    // One row of the dynamic-programming table at a time.
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            std::size_t const above = row[j];
            row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string describeNearMisses(nvinfer1::IPluginRegistry& registry, PluginKey const& key)
{
    std::vector<RegisteredCreator> const creators = listCreators(registry);
    // A name is near when a few edits make it the one asked for: 1 for short names, up to 3 for long ones.
    std::size_t const limit = std::clamp<std::size_t>(key.name.size() / 4, 1, 3);
    std::vector<NearMiss> near;
    for (RegisteredCreator const& entry : creators)
    {
        PluginKey const& other = entry.key;
        if (other == key)
        {
            continue;
        }
        if (other.name == key.name)
        {
            bool const version = other.version != key.version;
            bool const space = other.pluginNamespace != key.pluginNamespace;
            near.push_back({0, other,
                version && space ? "another version and namespace"
                    : version    ? "another version"
                                 : "another namespace"});
            continue;
        }
        std::size_t const distance = editDistance(other.name, key.name);
        if (distance <= limit)
        {
            near.push_back({distance + 1, other, "a similar name"});
        }
    }
    std::sort(near.begin(), near.end(), [](NearMiss const& a, NearMiss const& b) {
        return std::tie(a.distance, a.key.name, a.key.version, a.key.pluginNamespace)
            < std::tie(b.distance, b.key.name, b.key.version, b.key.pluginNamespace);
    });
    near.erase(
        std::unique(near.begin(), near.end(), [](NearMiss const& a, NearMiss const& b) { return a.key == b.key; }),
        near.end());

    std::string message;
    if (near.empty())
    {
        message = "No creator of that name or a similar one is registered (" + std::to_string(creators.size())
            + " creators are).";
    }
    else
    {
        message = "Did you mean ";
        for (std::size_t i = 0; i < near.size() && i < kMaxNearMisses; ++i)
        {
            message += (i == 0 ? "" : " or ") + quotedKey(near[i].key) + " (" + near[i].why + ")";
        }
        message += near.size() > kMaxNearMisses ? " (" + std::to_string(near.size() - kMaxNearMisses) + " more)?" : "?";
    }
    std::vector<std::string> const libraries = loadedPluginLibraries(creators);
    if (libraries.empty())
    {
        message += " No plugin library is loaded.";
    }
    else
    {
        message += " Plugin libraries loaded:";
        for (std::size_t i = 0; i < libraries.size(); ++i)
        {
            message += (i == 0 ? " " : ", ") + libraries[i];
        }
        message += ".";
    }
    return message;
}

char const* fieldTypeName(nvinfer1::PluginFieldType type) noexcept
{
    using nvinfer1::PluginFieldType;
    switch (type)
    {
    case PluginFieldType::kFLOAT16: return "kFLOAT16";
    case PluginFieldType::kFLOAT32: return "kFLOAT32";
    case PluginFieldType::kFLOAT64: return "kFLOAT64";
    case PluginFieldType::kINT8: return "kINT8";
    case PluginFieldType::kINT16: return "kINT16";
    case PluginFieldType::kINT32: return "kINT32";
    case PluginFieldType::kCHAR: return "kCHAR";
    case PluginFieldType::kDIMS: return "kDIMS";
    case PluginFieldType::kUNKNOWN: return "kUNKNOWN";
    case PluginFieldType::kBF16: return "kBF16";
    case PluginFieldType::kINT64: return "kINT64";
    case PluginFieldType::kFP8: return "kFP8";
    case PluginFieldType::kINT4: return "kINT4";
    case PluginFieldType::kFP4: return "kFP4";
    }
    return "an unknown type";
}

} // namespace kiln
