// SPDX-License-Identifier: Apache-2.0
#include "plugin/registry.h"

#include "core/logging.h"
#include "plugin/plugin_lookup.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

namespace kiln
{
namespace
{

using nvinfer1::ErrorCode;
using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorInterface;
using nvinfer1::IPluginCreatorV3One;

constexpr char const* kV2CreatorKind = "PLUGIN CREATOR_V1";
constexpr char const* kV3OneCreatorKind = "PLUGIN CREATOR_V3ONE";
constexpr char const* kV3QuickCreatorKind = "PLUGIN CREATOR_V3QUICK";
constexpr std::size_t kMaxStringBytes = 1024; // including the terminating NUL

//! How many listings of each kind stay valid after the registry changes (for readers on other threads).
constexpr std::size_t kListingsKept = 4096;

char const* orEmpty(char const* text) noexcept
{
    return text != nullptr ? text : "";
}

//! An error if text is null, (when required) empty, or longer than the API allows.
std::optional<Error> checkString(char const* text, char const* what, bool required)
{
    if (text == nullptr || (required && *text == '\0'))
    {
        return Error{ErrorCode::kINVALID_ARGUMENT, std::string("the ") + what + " is " + (text ? "empty" : "null")};
    }
    if (strnlen(text, kMaxStringBytes) >= kMaxStringBytes)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            std::string("the ") + what + " is longer than " + std::to_string(kMaxStringBytes - 1) + " bytes"};
    }
    return std::nullopt;
}

std::string describeHandle(void const* handle)
{
    std::ostringstream text;
    text << handle;
    return text.str();
}

//! The names a creator reports, read through the interface its kind says it implements.
struct CreatorNames
{
    char const* name;
    char const* version;
    char const* pluginNamespace;
};

CreatorNames namesOf(IPluginCreatorInterface const& creator, CreatorKind kind) noexcept
{
    auto& mutableCreator = const_cast<IPluginCreatorInterface&>(creator);
    if (kind == CreatorKind::kV2)
    {
        auto& v2 = static_cast<IPluginCreator&>(mutableCreator);
        return {v2.getPluginName(), v2.getPluginVersion(), v2.getPluginNamespace()};
    }
    if (kind == CreatorKind::kV3Quick)
    {
        auto& quick = static_cast<nvinfer1::IPluginCreatorV3Quick&>(mutableCreator);
        return {quick.getPluginName(), quick.getPluginVersion(), quick.getPluginNamespace()};
    }
    auto& v3 = static_cast<IPluginCreatorV3One&>(mutableCreator);
    return {v3.getPluginName(), v3.getPluginVersion(), v3.getPluginNamespace()};
}

//! `plugin "X" version "1" namespace "ns"` for a creator, or `a creator of unknown kind` when it has none.
std::string describeCreator(IPluginCreatorInterface const& creator)
{
    auto const kind = classifyCreator(creator);
    if (!kind)
    {
        return "a creator of unknown kind";
    }
    CreatorNames const names = namesOf(creator, kind.value());
    return describePlugin(names.name, names.version, names.pluginNamespace);
}

//! Runs body, turning an escaping exception into a reported internal error and the fallback value.
template <typename R, typename Report, typename Body>
R guarded(Report const& report, R fallback, Body&& body) noexcept
{
    try
    {
        return body();
    }
    catch (std::exception const& e)
    {
        report(Error{ErrorCode::kINTERNAL_ERROR, std::string("unexpected failure: ") + e.what()});
    }
    catch (...)
    {
        report(Error{ErrorCode::kINTERNAL_ERROR, "unexpected failure"});
    }
    return fallback;
}

} // namespace

Expected<CreatorKind> classifyCreator(IPluginCreatorInterface const& creator)
{
    nvinfer1::InterfaceInfo const info = creator.getInterfaceInfo();
    if (info.kind != nullptr && std::strcmp(info.kind, kV2CreatorKind) == 0)
    {
        return CreatorKind::kV2;
    }
    if (info.kind != nullptr && std::strcmp(info.kind, kV3OneCreatorKind) == 0 && info.major == 1)
    {
        return CreatorKind::kV3One;
    }
    if (info.kind != nullptr && std::strcmp(info.kind, kV3QuickCreatorKind) == 0 && info.major == 1)
    {
        return CreatorKind::kV3Quick;
    }
    return Error{ErrorCode::kINVALID_ARGUMENT,
        "the creator reports interface kind " + quoted(info.kind) + " version " + std::to_string(info.major) + "."
            + std::to_string(info.minor) + "; kiln accepts \"PLUGIN CREATOR_V1\" (IPluginCreator), "
            + "\"PLUGIN CREATOR_V3ONE\" version 1 (IPluginCreatorV3One) and \"PLUGIN CREATOR_V3QUICK\" version 1 "
            + "(IPluginCreatorV3Quick)"};
}

Expected<CreatorIdentity> identifyCreator(IPluginCreatorInterface& creator)
{
    auto const kind = classifyCreator(creator);
    if (!kind)
    {
        return kind.error();
    }
    CreatorNames const names = namesOf(creator, kind.value());
    for (auto const& [text, what, required] : {std::tuple{names.name, "plugin name (getPluginName())", true},
             std::tuple{names.version, "plugin version (getPluginVersion())", true},
             std::tuple{orEmpty(names.pluginNamespace), "plugin namespace (getPluginNamespace())", false}})
    {
        if (auto error = checkString(text, what, required))
        {
            error->message = "creator of " + describePlugin(names.name, names.version, names.pluginNamespace) + ": "
                + error->message;
            return *error;
        }
    }
    return CreatorIdentity{names.name, names.version, orEmpty(names.pluginNamespace), kind.value()};
}

PluginRegistry::PluginRegistry(nvinfer1::IPluginRegistry* parent)
    : mParent(parent)
{
}

PluginRegistry::~PluginRegistry() noexcept
{
    // While the registry is whole, so that a resource's release() may still call it.
    mResources.releaseAll();
    std::list<PluginLibrary> libraries;
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mEntries.clear();
        libraries.swap(mLibraries);
    }
    for (PluginLibrary& library : libraries)
    {
        unload(std::move(library.library));
    }
    if (mRecorder != nullptr)
    {
        mRecorder->decRefCount();
    }
}

void PluginRegistry::unload(std::unique_ptr<SharedLibrary> library) noexcept
{
    if (library != nullptr && isReferencedByAnyRegistry(*library))
    {
        log(Severity::kVERBOSE,
            "IPluginRegistry: plugin library " + quoted(library->path().c_str())
                + " stays loaded: a registry still holds a creator or resource whose code is in it");
        library->pin();
    }
    library.reset();
}

bool PluginRegistry::refersInto(SharedLibrary const& library) const
{
    auto const inLibrary = [&](void const* object) {
        // The object itself, or its vtable (the first word of a polymorphic object), may live in the library.
        return library.contains(object) || library.contains(*static_cast<void const* const*>(object));
    };
    {
        std::lock_guard<std::mutex> lock(mMutex);
        for (Entry const& entry : mEntries)
        {
            // Creators that came with a library keep that library loaded themselves.
            if (entry.library == nullptr && inLibrary(entry.creator))
            {
                return true;
            }
        }
    }
    bool found = false;
    mResources.forEach([&](nvinfer1::IPluginResource const& resource) { found = found || inLibrary(&resource); });
    return found;
}

void PluginRegistry::report(Error const& error, char const* operation) const noexcept
{
    try
    {
        std::string const message = std::string("IPluginRegistry::") + operation + ": " + error.message;
        log(Severity::kERROR, message);

        // The recorder is called with no lock held; the reference keeps it registered meanwhile.
        nvinfer1::IErrorRecorder* recorder = nullptr;
        {
            std::lock_guard<std::mutex> lock(mRecorderMutex);
            recorder = mRecorder;
        }
        if (recorder != nullptr)
        {
            recorder->incRefCount();
            std::string description = message;
            if (description.size() > nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH)
            {
                description.resize(nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH - 3);
                description += "...";
            }
            recorder->reportError(error.code, description.c_str());
            recorder->decRefCount();
        }
    }
    catch (...)
    {
        log(Severity::kINTERNAL_ERROR, "IPluginRegistry: out of memory while reporting an error");
    }
}

Expected<PluginRegistry::Entry> PluginRegistry::describe(IPluginCreatorInterface& creator, char const* pluginNamespace)
{
    auto const kind = classifyCreator(creator);
    if (!kind)
    {
        return kind.error();
    }
    CreatorNames const names = namesOf(creator, kind.value());
    char const* const registeredNamespace
        = pluginNamespace != nullptr ? pluginNamespace : orEmpty(names.pluginNamespace);
    auto const withPlugin = [&](Error error) {
        error.message
            = "creator of " + describePlugin(names.name, names.version, registeredNamespace) + ": " + error.message;
        return error;
    };
    if (auto error = checkString(names.name, "plugin name (getPluginName())", true))
    {
        return withPlugin(*error);
    }
    if (auto error = checkString(names.version, "plugin version (getPluginVersion())", true))
    {
        return withPlugin(*error);
    }
    if (auto error = checkString(registeredNamespace, "plugin namespace", false))
    {
        return withPlugin(*error);
    }
    return Entry{Key{names.name, names.version, registeredNamespace}, &creator, kind.value(), nullptr};
}

PluginRegistry::Entry const* PluginRegistry::findLocked(Key const& key) const
{
    auto const found = std::find_if(mEntries.begin(), mEntries.end(), [&](Entry const& e) { return e.key == key; });
    return found == mEntries.end() ? nullptr : &*found;
}

bool PluginRegistry::registerEntry(Entry entry, char const* operation) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, operation); };
    return guarded(reportHere, false, [&] {
        {
            std::lock_guard<std::mutex> lock(mMutex);
            if (findLocked(entry.key) == nullptr)
            {
                mEntries.push_back(entry);
                return true;
            }
        }
        reportHere(Error{ErrorCode::kINVALID_ARGUMENT,
            "a creator for "
                + describePlugin(entry.key.name.c_str(), entry.key.version.c_str(), entry.key.pluginNamespace.c_str())
                + " is already registered; nothing changed (deregister the other creator first, or register this one "
                  "under another namespace)"});
        return false;
    });
}

bool PluginRegistry::registerCreator(IPluginCreatorInterface& creator, char const* const pluginNamespace) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "registerCreator"); };
    return guarded(reportHere, false, [&] {
        auto entry = describe(creator, orEmpty(pluginNamespace));
        if (!entry)
        {
            reportHere(entry.error());
            return false;
        }
        CreatorNames const names = namesOf(creator, entry.value().kind);
        if (std::strcmp(orEmpty(names.pluginNamespace), entry.value().key.pluginNamespace.c_str()) != 0)
        {
            log(Severity::kWARNING,
                "IPluginRegistry::registerCreator: the creator of "
                    + describePlugin(names.name, names.version, names.pluginNamespace)
                    + " is registered under namespace " + quoted(entry.value().key.pluginNamespace.c_str())
                    + ", which differs from the namespace it reports; look-ups by the plugin's own namespace will not "
                      "find it");
        }
        return registerEntry(std::move(entry.value()), "registerCreator");
    });
}

bool PluginRegistry::registerCreator(IPluginCreator& creator, char const* const pluginNamespace) noexcept
{
    return registerCreator(static_cast<IPluginCreatorInterface&>(creator), pluginNamespace);
}

bool PluginRegistry::deregister(IPluginCreatorInterface const& creator, char const* operation) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, operation); };
    return guarded(reportHere, false, [&] {
        {
            std::lock_guard<std::mutex> lock(mMutex);
            auto const removed = std::erase_if(mEntries, [&](Entry const& e) { return e.creator == &creator; });
            if (removed > 0)
            {
                return true;
            }
        }
        reportHere(Error{ErrorCode::kINVALID_ARGUMENT,
            "the creator of " + describeCreator(creator) + " is not registered in this registry"});
        return false;
    });
}

bool PluginRegistry::deregisterCreator(IPluginCreatorInterface const& creator) noexcept
{
    return deregister(creator, "deregisterCreator");
}

bool PluginRegistry::deregisterCreator(IPluginCreator const& creator) noexcept
{
    return deregister(static_cast<IPluginCreatorInterface const&>(creator), "deregisterCreator");
}

Expected<std::optional<PluginRegistry::Entry>> PluginRegistry::findOwn(
    char const* pluginName, char const* pluginVersion, char const* pluginNamespace) const
{
    if (pluginName == nullptr || pluginVersion == nullptr)
    {
        return Error{ErrorCode::kINVALID_ARGUMENT,
            "asked for " + describePlugin(pluginName, pluginVersion, pluginNamespace)
                + "; the plugin name and version must not be null"};
    }
    std::lock_guard<std::mutex> lock(mMutex);
    Entry const* entry = findLocked(Key{pluginName, pluginVersion, orEmpty(pluginNamespace)});
    return entry != nullptr ? std::optional<Entry>(*entry) : std::nullopt;
}

IPluginCreatorInterface* PluginRegistry::findQuietly(PluginKey const& key)
{
    {
        std::lock_guard<std::mutex> lock(mMutex);
        if (Entry const* entry = findLocked(Key{key.name, key.version, key.pluginNamespace}))
        {
            return entry->creator;
        }
    }
    return findInherited(key);
}

IPluginCreatorInterface* PluginRegistry::findInherited(PluginKey const& key)
{
    if (mParent == nullptr || !mParentSearch.load())
    {
        return nullptr;
    }
    // Not the parent's getCreator: a miss there would log one more "not found".
    return findRegisteredQuietly(*mParent, key);
}

IPluginCreatorInterface* findRegisteredQuietly(nvinfer1::IPluginRegistry& registry, PluginKey const& key)
{
    if (auto* kilnRegistry = dynamic_cast<PluginRegistry*>(&registry))
    {
        return kilnRegistry->findQuietly(key);
    }
    return findCreatorQuietly(registry, key); // another implementation: its listing
}

Error PluginRegistry::missing(PluginKey const& key)
{
    // TensorRT's registry reports a miss as an error too, though callers may only be probing: kiln's own callers
    // probe with findCreatorQuietly instead.
    return Error{ErrorCode::kINVALID_ARGUMENT,
        "no creator is registered for "
            + describePlugin(key.name.c_str(), key.version.c_str(), key.pluginNamespace.c_str())
            + (mParent != nullptr && mParentSearch.load() ? " in this registry or its parents. " : ". ")
            + describeNearMisses(*this, key)};
}

IPluginCreatorInterface* PluginRegistry::getCreator(
    char const* const pluginName, char const* const pluginVersion, char const* const pluginNamespace) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "getCreator"); };
    return guarded(reportHere, static_cast<IPluginCreatorInterface*>(nullptr), [&]() -> IPluginCreatorInterface* {
        auto const own = findOwn(pluginName, pluginVersion, pluginNamespace);
        if (!own)
        {
            reportHere(own.error());
            return nullptr;
        }
        if (own.value())
        {
            return own.value()->creator;
        }
        PluginKey const key{pluginName, pluginVersion, orEmpty(pluginNamespace)};
        if (IPluginCreatorInterface* inherited = findInherited(key))
        {
            return inherited;
        }
        reportHere(missing(key));
        return nullptr;
    });
}

IPluginCreator* PluginRegistry::getPluginCreator(
    char const* const pluginName, char const* const pluginVersion, char const* const pluginNamespace) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "getPluginCreator"); };
    return guarded(reportHere, static_cast<IPluginCreator*>(nullptr), [&]() -> IPluginCreator* {
        auto const own = findOwn(pluginName, pluginVersion, pluginNamespace);
        if (!own)
        {
            reportHere(own.error());
            return nullptr;
        }
        PluginKey const key{pluginName, pluginVersion, orEmpty(pluginNamespace)};
        IPluginCreatorInterface* found = own.value() ? own.value()->creator : findInherited(key);
        if (found == nullptr)
        {
            reportHere(missing(key));
            return nullptr;
        }
        auto const kind = classifyCreator(*found);
        if (kind && kind.value() == CreatorKind::kV2)
        {
            return static_cast<IPluginCreator*>(found);
        }
        log(Severity::kWARNING,
            "IPluginRegistry::getPluginCreator: " + describePlugin(pluginName, pluginVersion, pluginNamespace)
                + " has a V3 creator (IPluginCreatorV3One or IPluginCreatorV3Quick); getPluginCreator returns V2 "
                  "creators only, use getCreator");
        return nullptr;
    });
}

template <typename T>
T* const* PluginRegistry::publish(Listings<T>& listings, std::vector<T*> snapshot, int32_t* numCreators) const
{
    *numCreators = static_cast<int32_t>(snapshot.size());
    if (snapshot.empty())
    {
        return nullptr;
    }
    auto const [where, added] = listings.kept.insert(std::move(snapshot));
    if (added)
    {
        listings.order.push_back(where);
        if (listings.order.size() > kListingsKept)
        {
            listings.kept.erase(listings.order.front());
            listings.order.pop_front();
        }
    }
    return where->data();
}

IPluginCreatorInterface* const* PluginRegistry::getAllCreators(int32_t* const numCreators) const noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "getAllCreators"); };
    return guarded(
        reportHere, static_cast<IPluginCreatorInterface* const*>(nullptr), [&]() -> IPluginCreatorInterface* const* {
            if (numCreators == nullptr)
            {
                reportHere(Error{ErrorCode::kINVALID_ARGUMENT, "numCreators is null"});
                return nullptr;
            }
            std::lock_guard<std::mutex> lock(mMutex);
            std::vector<IPluginCreatorInterface*> snapshot;
            for (Entry const& entry : mEntries)
            {
                snapshot.push_back(entry.creator);
            }
            return publish(mAllSnapshots, std::move(snapshot), numCreators);
        });
}

IPluginCreator* const* PluginRegistry::getPluginCreatorList(int32_t* const numCreators) const noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "getPluginCreatorList"); };
    return guarded(reportHere, static_cast<IPluginCreator* const*>(nullptr), [&]() -> IPluginCreator* const* {
        if (numCreators == nullptr)
        {
            reportHere(Error{ErrorCode::kINVALID_ARGUMENT, "numCreators is null"});
            return nullptr;
        }
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<IPluginCreator*> snapshot;
        for (Entry const& entry : mEntries)
        {
            if (entry.kind == CreatorKind::kV2)
            {
                snapshot.push_back(static_cast<IPluginCreator*>(entry.creator));
            }
        }
        return publish(mV2Snapshots, std::move(snapshot), numCreators);
    });
}

IPluginCreatorInterface* const* PluginRegistry::getAllCreatorsRecursive(int32_t* const numCreators) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "getAllCreatorsRecursive"); };
    return guarded(
        reportHere, static_cast<IPluginCreatorInterface* const*>(nullptr), [&]() -> IPluginCreatorInterface* const* {
            if (numCreators == nullptr)
            {
                reportHere(Error{ErrorCode::kINVALID_ARGUMENT, "numCreators is null"});
                return nullptr;
            }
            std::vector<IPluginCreatorInterface*> inherited;
            if (mParent != nullptr && mParentSearch.load())
            {
                int32_t count = 0;
                IPluginCreatorInterface* const* parents = mParent->getAllCreatorsRecursive(&count);
                if (parents != nullptr)
                {
                    inherited.assign(parents, parents + count);
                }
            }
            std::lock_guard<std::mutex> lock(mMutex);
            std::vector<IPluginCreatorInterface*> snapshot;
            for (Entry const& entry : mEntries)
            {
                snapshot.push_back(entry.creator);
            }
            snapshot.insert(snapshot.end(), inherited.begin(), inherited.end());
            return publish(mRecursiveSnapshots, std::move(snapshot), numCreators);
        });
}

void PluginRegistry::setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept
{
    if (recorder != nullptr)
    {
        recorder->incRefCount();
    }
    nvinfer1::IErrorRecorder* previous = nullptr;
    {
        std::lock_guard<std::mutex> lock(mRecorderMutex);
        previous = std::exchange(mRecorder, recorder);
    }
    if (previous != nullptr)
    {
        previous->decRefCount();
    }
}

nvinfer1::IErrorRecorder* PluginRegistry::getErrorRecorder() const noexcept
{
    std::lock_guard<std::mutex> lock(mRecorderMutex);
    return mRecorder;
}

bool PluginRegistry::isParentSearchEnabled() const
{
    return mParentSearch.load();
}

void PluginRegistry::setParentSearchEnabled(bool const enabled)
{
    mParentSearch.store(enabled);
}

nvinfer1::IPluginRegistry::PluginLibraryHandle PluginRegistry::loadLibrary(char const* pluginPath) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "loadLibrary"); };
    return guarded(reportHere, static_cast<PluginLibraryHandle>(nullptr), [&]() -> PluginLibraryHandle {
        if (auto error = checkString(pluginPath, "plugin library path", true))
        {
            reportHere(*error);
            return nullptr;
        }
        std::string const where = "plugin library " + quoted(pluginPath);

        auto opened = SharedLibrary::open(pluginPath);
        if (!opened)
        {
            reportHere(opened.error());
            return nullptr;
        }
        std::unique_ptr<SharedLibrary> library = std::move(opened.value());
        // Every way out of here without registering unloads the library, unless something still uses its code
        // (its static initialisers may have registered creators themselves).
        auto const refuse = [&](Error const& error) -> PluginLibraryHandle {
            unload(std::move(library));
            reportHere(error);
            return nullptr;
        };

        auto found = readPluginLibrary(*library, loggerFinder());
        if (!found)
        {
            return refuse(found.error());
        }
        std::vector<Entry> entries;
        for (IPluginCreatorInterface* creator : found.value().creators)
        {
            auto entry = describe(*creator, nullptr);
            if (!entry)
            {
                return refuse(Error{entry.error().code, where + ": " + entry.error().message});
            }
            entries.push_back(std::move(entry.value()));
        }

        PluginLibrary* loaded = nullptr;
        std::optional<Error> conflict;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            for (std::size_t i = 0; i < entries.size() && !conflict; ++i)
            {
                Key const& key = entries[i].key;
                bool const repeated = std::any_of(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](Entry const& e) { return e.key == key; });
                if (repeated || findLocked(key) != nullptr)
                {
                    conflict = Error{ErrorCode::kINVALID_ARGUMENT,
                        where + " provides a creator for "
                            + describePlugin(key.name.c_str(), key.version.c_str(), key.pluginNamespace.c_str())
                            + (repeated ? " twice" : ", which is already registered")
                            + "; nothing from the library was registered"};
                }
            }
            if (!conflict)
            {
                loaded = &mLibraries.emplace_back(PluginLibrary{std::move(library), {}});
                for (Entry& entry : entries)
                {
                    entry.library = loaded;
                    loaded->creators.push_back(entry.creator);
                    mEntries.push_back(std::move(entry));
                }
            }
        }
        if (conflict)
        {
            return refuse(*conflict);
        }
        log(Severity::kINFO,
            "IPluginRegistry::loadLibrary: registered " + std::to_string(entries.size()) + " creator(s) from " + where
                + " through " + found.value().entryPoint);
        return loaded;
    });
}

void PluginRegistry::deregisterLibrary(PluginLibraryHandle handle) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "deregisterLibrary"); };
    guarded(reportHere, 0, [&] {
        std::unique_ptr<SharedLibrary> unloading;
        {
            std::lock_guard<std::mutex> lock(mMutex);
            auto const found = std::find_if(
                mLibraries.begin(), mLibraries.end(), [&](PluginLibrary const& l) { return &l == handle; });
            if (found != mLibraries.end())
            {
                std::erase_if(mEntries, [&](Entry const& e) { return e.library == handle; });
                unloading = std::move(found->library);
                mLibraries.erase(found);
            }
        }
        if (unloading == nullptr)
        {
            reportHere(Error{ErrorCode::kINVALID_ARGUMENT,
                "handle " + describeHandle(handle)
                    + " was not returned by loadLibrary of this registry (or was deregistered already)"});
            return 0;
        }
        unload(std::move(unloading)); // outside the lock: the library's static destructors run here
        return 0;
    });
}

nvinfer1::IPluginResource* PluginRegistry::acquirePluginResource(
    char const* key, nvinfer1::IPluginResource* resource) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "acquirePluginResource"); };
    return guarded(reportHere, static_cast<nvinfer1::IPluginResource*>(nullptr), [&]() -> nvinfer1::IPluginResource* {
        if (auto error = checkString(key, "resource key", true))
        {
            reportHere(*error);
            return nullptr;
        }
        if (resource == nullptr)
        {
            reportHere(Error{ErrorCode::kINVALID_ARGUMENT, "the resource for key " + quoted(key) + " is null"});
            return nullptr;
        }
        auto acquired = mResources.acquire(key, *resource);
        if (!acquired)
        {
            reportHere(acquired.error());
            return nullptr;
        }
        return acquired.value();
    });
}

int32_t PluginRegistry::releasePluginResource(char const* key) noexcept
{
    auto const reportHere = [&](Error const& error) { report(error, "releasePluginResource"); };
    return guarded(reportHere, int32_t{-1}, [&]() -> int32_t {
        if (auto error = checkString(key, "resource key", true))
        {
            reportHere(*error);
            return -1;
        }
        auto released = mResources.release(key);
        if (!released)
        {
            reportHere(released.error());
            return -1;
        }
        return released.value();
    });
}

} // namespace kiln
