// SPDX-License-Identifier: Apache-2.0
#include "runtime/plan_libraries.h"

#include "core/logging.h"
#include "plan/model_support.h"
#include "plan/plugin_libraries.h"
#include "plugin/library_loader.h"
#include "plugin/registry.h"
#include "plugin/registry_lookup.h"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <mutex>

namespace kiln
{

//! A plan's library loaded in this process, shared by the engines that use it.
struct SharedPlanLibrary
{
    std::string name;
    std::vector<uint8_t> bytes; //!< What the library was loaded from: another plan's copy is recognised by its bytes.
    std::unique_ptr<SharedLibrary> library;
    std::vector<nvinfer1::IPluginCreatorInterface*> offered; //!< What its entry point gave.
    std::vector<CreatorIdentity> identities;                 //!< offered's identities.
    nvinfer1::IPluginRegistry* registry{};
    std::vector<nvinfer1::IPluginCreatorInterface*>
        registered; //!< Registered in registry for engines; deregistered last.
    int32_t users{};
};

namespace
{

using nvinfer1::ErrorCode;

//! Every plan library loaded in the process, and the lock under which engines take, share and release them (their
//! creators are registered and deregistered, their code loaded and unloaded, under it too: a library is never found
//! half gone). Never destroyed: engines may outlive static destruction.
struct LoadedLibraries
{
    std::recursive_mutex mutex;
    std::list<SharedPlanLibrary> libraries;
};

LoadedLibraries& loaded()
{
    static auto* table = new LoadedLibraries;
    return *table;
}

std::string describe(PluginIdentity const& id)
{
    return describePlugin(id.name.c_str(), id.version.c_str(), id.pluginNamespace.c_str());
}

//! The loaded library that registered creator in registry, or nullptr (a creator registered some other way).
SharedPlanLibrary* registeredBy(nvinfer1::IPluginRegistry& registry, nvinfer1::IPluginCreatorInterface* creator)
{
    for (SharedPlanLibrary& library : loaded().libraries)
    {
        if (library.registry == &registry
            && std::find(library.registered.begin(), library.registered.end(), creator) != library.registered.end())
        {
            return &library;
        }
    }
    return nullptr;
}

//! The library's code in this process: written to a file that is not left behind, then loaded as a plugin library.
Expected<std::unique_ptr<SharedLibrary>> loadCode(PluginLibraryRecord const& record, PlanLibraryPolicy const& policy)
{
    std::string const where = cat("the plan's plugin library ", quotedText(record.name));
    std::optional<Error> inMemoryFailure;
    if (policy.inMemoryFiles)
    {
        auto library = SharedLibrary::openInMemory(record.name, record.bytes);
        if (library || !policy.temporaryFiles)
        {
            return library;
        }
        inMemoryFailure = library.error();
        log(Severity::kWARNING, cat(library.error().message, "; trying a temporary file instead"));
    }
    if (!policy.temporaryFiles)
    {
        return Error{ErrorCode::kINVALID_STATE,
            cat(where, " cannot be loaded: the runtime's TempfileControlFlags allow neither in-memory files ",
                "(kALLOW_IN_MEMORY_FILES) nor temporary files (kALLOW_TEMPORARY_FILES)")};
    }
    std::string directory = policy.temporaryDirectory;
    if (directory.empty())
    {
        char const* tmpdir = std::getenv("TMPDIR");
        directory = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
    }
    return SharedLibrary::openTemporaryCopy(record.name, record.bytes, directory);
}

//! Loads record's library for the process's table, its creators read (not yet registered).
Expected<SharedPlanLibrary*> loadLibrary(
    PluginLibraryRecord const& record, nvinfer1::IPluginRegistry& registry, PlanLibraryPolicy const& policy)
{
    std::string const where = cat("the plan's plugin library ", quotedText(record.name));
    // The plan reader checked the checksum already; the bytes are checked again right before they become code.
    if (pluginLibraryChecksum(record.bytes) != record.checksum)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, cat(where, " is corrupted: its bytes do not match their checksum")};
    }
    auto code = loadCode(record, policy);
    if (!code)
    {
        return code.error();
    }
    auto found = readPluginLibrary(*code.value(), loggerFinder());
    std::vector<CreatorIdentity> identities;
    std::optional<Error> problem;
    if (!found)
    {
        problem = found.error();
    }
    else
    {
        for (nvinfer1::IPluginCreatorInterface* creator : found.value().creators)
        {
            auto identity = identifyCreator(*creator);
            if (!identity)
            {
                problem = Error{identity.error().code, cat(where, ": ", identity.error().message)};
                break;
            }
            identities.push_back(std::move(identity.value()));
        }
    }
    if (problem)
    {
        PluginRegistry::unload(std::move(code.value()));
        return *problem;
    }
    SharedPlanLibrary& library = loaded().libraries.emplace_back();
    library.name = record.name;
    library.bytes = record.bytes;
    library.library = std::move(code.value());
    library.offered = std::move(found.value().creators);
    library.identities = std::move(identities);
    library.registry = &registry;
    log(Severity::kINFO,
        cat("loaded ", where, " (", record.bytes.size(), " bytes) from ",
            library.library->path().rfind("/proc/self/fd/", 0) == 0 ? "an in-memory file" : "a removed temporary file",
            "; it offers ", library.offered.size(), " creator(s) through ", found.value().entryPoint));
    return &library;
}

//! The loaded library of the same bytes as record's for registry, or nullptr.
SharedPlanLibrary* alreadyLoaded(PluginLibraryRecord const& record, nvinfer1::IPluginRegistry& registry)
{
    for (SharedPlanLibrary& library : loaded().libraries)
    {
        if (library.registry == &registry && library.bytes == record.bytes)
        {
            return &library;
        }
    }
    return nullptr;
}

//! Registers library's creator of identity (an entry of record's inventory) in its registry.
std::optional<Error> registerFrom(SharedPlanLibrary& library, PluginIdentity const& identity)
{
    for (std::size_t c = 0; c < library.offered.size(); ++c)
    {
        CreatorIdentity const& offered = library.identities[c];
        if (offered.name != identity.name || offered.version != identity.version
            || offered.pluginNamespace != identity.pluginNamespace)
        {
            continue;
        }
        if (!library.registry->registerCreator(*library.offered[c], identity.pluginNamespace.c_str()))
        {
            return Error{ErrorCode::kINTERNAL_ERROR,
                cat("the plan's plugin library ", quotedText(library.name), ": registering its creator of ",
                    describe(identity), " failed (the registry's error says why)")};
        }
        library.registered.push_back(library.offered[c]);
        log(Severity::kINFO,
            cat(describe(identity), ": registered the creator of the plan's plugin library ",
                quotedText(library.name)));
        return std::nullopt;
    }
    return Error{ErrorCode::kINVALID_ARGUMENT,
        cat("the plan's plugin library ", quotedText(library.name), " does not offer a creator of ", describe(identity),
            ", though its entry point did when the plan was built")};
}

//! Deregisters what library registered and unloads it; the table's lock is held.
void release(SharedPlanLibrary& library) noexcept
{
    for (nvinfer1::IPluginCreatorInterface* creator : library.registered)
    {
        library.registry->deregisterCreator(*creator);
    }
    std::string const name = library.name;
    std::size_t const count = library.registered.size();
    PluginRegistry::unload(std::move(library.library));
    loaded().libraries.remove_if([&](SharedPlanLibrary const& l) { return &l == &library; });
    log(Severity::kINFO,
        cat("the plan's plugin library ", quotedText(name), " is no longer used by any engine: its ", count,
            " creator(s) deregistered and the library closed"));
}

} // namespace

void PlanLibraries::hold(SharedPlanLibrary& library)
{
    if (std::find(mHeld.begin(), mHeld.end(), &library) == mHeld.end())
    {
        mHeld.push_back(&library);
        ++library.users;
    }
}

PlanLibraries::~PlanLibraries()
{
    std::lock_guard<std::recursive_mutex> lock(loaded().mutex);
    for (SharedPlanLibrary* library : mHeld)
    {
        if (--library->users == 0)
        {
            release(*library);
        }
    }
}

Expected<std::unique_ptr<PlanLibraries>> usePlanLibraries(
    EngineModel const& model, nvinfer1::IPluginRegistry& registry, PlanLibraryPolicy const& policy)
{
    auto use = std::make_unique<PlanLibraries>();
    if (model.pluginLibraries.empty())
    {
        return use;
    }
    std::lock_guard<std::recursive_mutex> lock(loaded().mutex);

    // 1. The creators registered already take precedence; the others need their library.
    std::vector<std::vector<std::size_t>> needed(model.pluginLibraries.size());
    use->mStatus.resize(model.pluginLibraries.size());
    for (std::size_t l = 0; l < model.pluginLibraries.size(); ++l)
    {
        PluginLibraryRecord const& record = model.pluginLibraries[l];
        use->mStatus[l].creators.resize(record.creators.size(), PlanLibraries::Source::kPLAN);
        for (std::size_t c = 0; c < record.creators.size(); ++c)
        {
            PluginIdentity const& id = record.creators[c].identity;
            nvinfer1::IPluginCreatorInterface* existing
                = findRegisteredQuietly(registry, PluginKey{id.name, id.version, id.pluginNamespace});
            if (existing == nullptr)
            {
                needed[l].push_back(c);
                continue;
            }
            if (SharedPlanLibrary* owner = registeredBy(registry, existing))
            {
                use->hold(*owner);
                use->mStatus[l].loaded = use->mStatus[l].loaded || owner->bytes == record.bytes;
                log(Severity::kINFO,
                    cat(describe(id), ": the creator registered from the plugin library ", quotedText(owner->name),
                        " of a plan loaded before is used (the two engines share it)"));
                continue;
            }
            use->mStatus[l].creators[c] = PlanLibraries::Source::kREGISTERED;
            log(Severity::kINFO,
                cat(describe(id),
                    ": the creator registered before the engine was loaded (by the application) is used, ",
                    "not the one of the plan's plugin library ", quotedText(record.name)));
        }
    }

    // 2. Loading a library runs its code: only where the application allows it.
    std::string refused;
    for (std::size_t l = 0; l < model.pluginLibraries.size(); ++l)
    {
        if (!needed[l].empty())
        {
            // The library with the creators it would have to provide.
            PluginLibraryRecord const& record = model.pluginLibraries[l];
            refused += cat(refused.empty() ? "" : "; ", quotedText(record.name), " (");
            for (std::size_t n = 0; n < needed[l].size(); ++n)
            {
                refused += (n == 0 ? "" : ", ") + describe(record.creators[needed[l][n]].identity);
            }
            refused += ")";
        }
    }
    if (refused.empty())
    {
        for (std::size_t l = 0; l < model.pluginLibraries.size(); ++l)
        {
            if (!use->mStatus[l].loaded)
            {
                log(Severity::kINFO,
                    cat("the plan's plugin library ", quotedText(model.pluginLibraries[l].name),
                        " is not loaded: every creator it provides is registered already"));
            }
        }
        return use;
    }
    if (!policy.hostCodeAllowed)
    {
        return Error{ErrorCode::kINVALID_STATE,
            cat("the plan carries plugin libraries whose creators are not registered: ", refused,
                ". Loading them would run their code in this process, which this runtime does not allow: call ",
                "IRuntime::setEngineHostCodeAllowed(true) to allow it, or register those creators before ",
                "deserializing (IPluginRegistry::loadLibrary of the same libraries)")};
    }

    // 3. The libraries of the missing creators, loaded once per process, and those creators registered from them.
    for (std::size_t l = 0; l < model.pluginLibraries.size(); ++l)
    {
        if (needed[l].empty())
        {
            continue;
        }
        PluginLibraryRecord const& record = model.pluginLibraries[l];
        SharedPlanLibrary* library = alreadyLoaded(record, registry);
        if (library == nullptr)
        {
            auto loadedLibrary = loadLibrary(record, registry, policy);
            if (!loadedLibrary)
            {
                return loadedLibrary.error(); // use's destructor releases what it holds
            }
            library = loadedLibrary.value();
        }
        use->hold(*library);
        use->mStatus[l].loaded = true;
        for (std::size_t c : needed[l])
        {
            if (auto problem = registerFrom(*library, record.creators[c].identity))
            {
                return *problem;
            }
        }
    }
    return use;
}

} // namespace kiln
