// SPDX-License-Identifier: Apache-2.0
#include "builder/plugin_libraries.h"

#include "core/logging.h"
#include "plan/engine_codec.h"
#include "plan/model_support.h"
#include "plan/plugin_libraries.h"
#include "plugin/library_loader.h"
#include "plugin/registry.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;

Error failure(ErrorCode code, std::string const& path, std::string const& why)
{
    return Error{code, cat("IBuilderConfig::setPluginsToSerialize: plugin library ", quotedText(path), " ", why)};
}

//! The whole file at path.
Expected<std::vector<uint8_t>> readLibrary(std::string const& path)
{
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error))
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, path, "does not exist or is not a file");
    }
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, path, cat("cannot be opened: ", std::strerror(errno)));
    }
    std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    if (file.bad())
    {
        return failure(ErrorCode::kINVALID_ARGUMENT, path, "cannot be read");
    }
    if (bytes.size() >= kMaxPayloadBytes)
    {
        return failure(ErrorCode::kUNSUPPORTED_STATE, path,
            cat("takes ", bytes.size(), " bytes; a plan holds at most ", kMaxPayloadBytes));
    }
    return bytes;
}

//! The creators the library at path provides, through its entry points.
Expected<std::vector<PluginCreatorRecord>> creatorsOf(std::string const& path)
{
    auto opened = SharedLibrary::open(path);
    if (!opened)
    {
        return failure(
            opened.error().code, path, cat("cannot be loaded to list its creators: ", opened.error().message));
    }
    std::unique_ptr<SharedLibrary> library = std::move(opened.value());
    std::vector<PluginCreatorRecord> records;
    std::optional<Error> problem;
    if (auto found = readPluginLibrary(*library, loggerFinder()); !found)
    {
        problem = failure(found.error().code, path, cat("cannot be carried: ", found.error().message));
    }
    else
    {
        for (nvinfer1::IPluginCreatorInterface* creator : found.value().creators)
        {
            auto identity = identifyCreator(*creator);
            if (!identity)
            {
                problem = failure(identity.error().code, path, cat("cannot be carried: ", identity.error().message));
                break;
            }
            CreatorIdentity const& id = identity.value();
            records.push_back(PluginCreatorRecord{PluginIdentity{id.name, id.version, id.pluginNamespace},
                id.kind == CreatorKind::kV2 ? PluginCreatorRecord::Kind::kV2 : PluginCreatorRecord::Kind::kV3});
        }
    }
    // Closed again (the application's own handle, if it loaded the library too, keeps it loaded), unless a registry
    // refers into its code: then it stays.
    PluginRegistry::unload(std::move(library));
    if (problem)
    {
        return *problem;
    }
    return records;
}

} // namespace

Expected<std::vector<PluginLibraryRecord>> pluginLibrariesToSerialize(std::vector<std::string> const& paths)
{
    std::vector<PluginLibraryRecord> libraries;
    std::map<std::string, std::string> pathOfName;
    for (std::string const& path : paths)
    {
        PluginLibraryRecord record;
        record.name = std::filesystem::path(path).filename().string();
        if (record.name.empty() || record.name.size() > kMaxPluginLibraryName)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT, path,
                cat("has a file name of ", record.name.size(), " bytes; a plan names the libraries it carries by ",
                    "their file names, of 1 to ", kMaxPluginLibraryName, " bytes"));
        }
        if (auto const [earlier, added] = pathOfName.emplace(record.name, path); !added)
        {
            return failure(ErrorCode::kINVALID_ARGUMENT, path,
                cat("has the file name of ", quotedText(earlier->second),
                    "; a plan names the libraries it carries by their file names, so they must differ"));
        }
        auto bytes = readLibrary(path);
        if (!bytes)
        {
            return bytes.error();
        }
        record.bytes = std::move(bytes.value());
        record.checksum = pluginLibraryChecksum(record.bytes);
        auto creators = creatorsOf(path);
        if (!creators)
        {
            return creators.error();
        }
        record.creators = std::move(creators.value());
        libraries.push_back(std::move(record));
    }
    // A creator two libraries provide: the runtime could register only one of them.
    EngineModel check;
    check.pluginLibraries = std::move(libraries);
    if (auto problem = pluginLibrariesProblem(check))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, "IBuilderConfig::setPluginsToSerialize: " + *problem};
    }
    for (PluginLibraryRecord const& library : check.pluginLibraries)
    {
        log(library.creators.empty() ? Severity::kWARNING : Severity::kINFO,
            cat("the plan carries plugin library ", describePluginLibrary(library), ", ", library.bytes.size(),
                " bytes", library.creators.empty() ? "; it provides no creators, so no runtime will load it" : ""));
    }
    return std::move(check.pluginLibraries);
}

} // namespace kiln
