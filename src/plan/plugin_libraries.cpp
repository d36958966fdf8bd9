// SPDX-License-Identifier: Apache-2.0
#include "plan/plugin_libraries.h"

#include "plan/container.h"
#include "plan/model_support.h"

#include <cinttypes>
#include <cstdio>
#include <set>
#include <tuple>

namespace kiln
{
namespace
{

//! IPluginCreator and IPluginCreatorV3One: the strings are at most 1024 bytes with the NUL.
constexpr std::size_t kMaxIdentity = 1023;

std::string hex(uint64_t value)
{
    char text[19];
    std::snprintf(text, sizeof(text), "0x%016" PRIx64, value);
    return text;
}

std::optional<std::string> creatorProblem(PluginCreatorRecord const& creator)
{
    PluginIdentity const& id = creator.identity;
    if (id.name.empty() || id.version.empty())
    {
        return cat("has a creator with an empty ", id.name.empty() ? "name" : "version");
    }
    for (std::string const* part : {&id.name, &id.version, &id.pluginNamespace})
    {
        if (part->size() > kMaxIdentity || part->find('\0') != std::string::npos)
        {
            return cat("has a creator identity string of ", part->size(),
                " bytes or with a NUL inside; they are at most 1023 bytes");
        }
    }
    if (creator.kind != PluginCreatorRecord::Kind::kV2 && creator.kind != PluginCreatorRecord::Kind::kV3)
    {
        return cat("says the creator of ",
            describePlugin(id.name.c_str(), id.version.c_str(), id.pluginNamespace.c_str()), " is of kind ",
            static_cast<int32_t>(creator.kind), "; kinds are 0 (IPluginCreator) and 1 (IPluginCreatorV3One)");
    }
    return std::nullopt;
}

} // namespace

uint64_t pluginLibraryChecksum(std::span<uint8_t const> bytes) noexcept
{
    return crc64(bytes);
}

std::string pluginLibraryText(EngineModel const& model, std::size_t index)
{
    return cat("plugin library ", index, " (", quotedText(model.pluginLibraries[index].name), ")");
}

std::string describePluginLibrary(PluginLibraryRecord const& library)
{
    std::string text = cat(quotedText(library.name), " (");
    for (std::size_t c = 0; c < library.creators.size(); ++c)
    {
        PluginIdentity const& id = library.creators[c].identity;
        text += (c == 0 ? "" : ", ") + describePlugin(id.name.c_str(), id.version.c_str(), id.pluginNamespace.c_str());
    }
    return text + (library.creators.empty() ? "no creators)" : ")");
}

std::optional<std::string> pluginLibrariesProblem(EngineModel const& model)
{
    std::set<std::string> names;
    std::set<std::tuple<std::string, std::string, std::string>> identities;
    for (std::size_t l = 0; l < model.pluginLibraries.size(); ++l)
    {
        PluginLibraryRecord const& library = model.pluginLibraries[l];
        auto const problem = [&](std::string const& what) { return cat(pluginLibraryText(model, l), " ", what); };
        if (library.name.empty() || library.name.size() > kMaxPluginLibraryName
            || library.name.find_first_of(std::string_view("/\0", 2)) != std::string::npos)
        {
            return problem(cat("has a name of ", library.name.size(),
                " bytes, empty, too long or with a '/' or NUL inside; a library's name is its file name, at most ",
                kMaxPluginLibraryName, " bytes"));
        }
        if (!names.insert(library.name).second)
        {
            return problem("has the name of an earlier library; the libraries a plan carries have distinct names");
        }
        if (library.bytes.empty())
        {
            return problem("holds no bytes");
        }
        if (uint64_t const computed = pluginLibraryChecksum(library.bytes); computed != library.checksum)
        {
            return problem(cat("is corrupted: its ", library.bytes.size(), " bytes have the CRC-64 ", hex(computed),
                ", but the plan recorded ", hex(library.checksum)));
        }
        for (PluginCreatorRecord const& creator : library.creators)
        {
            if (auto creatorIssue = creatorProblem(creator))
            {
                return problem(*creatorIssue);
            }
            PluginIdentity const& id = creator.identity;
            if (!identities.emplace(id.name, id.version, id.pluginNamespace).second)
            {
                return problem(cat("provides a creator of ",
                    describePlugin(id.name.c_str(), id.version.c_str(), id.pluginNamespace.c_str()),
                    ", which an earlier creator of the plan provides too"));
            }
        }
    }
    return std::nullopt;
}

} // namespace kiln
