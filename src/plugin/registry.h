// SPDX-License-Identifier: Apache-2.0
// kiln's plugin registry: creators keyed by name/version/namespace, loaded plugin libraries, shared resources.
#pragma once

#include "core/error.h"
#include "plugin/library_loader.h"
#include "plugin/plugin_lookup.h"
#include "plugin/registry_lookup.h"
#include "plugin/resource_store.h"

#include <atomic>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln
{

//! The generations of plugin creator, told apart by their interface-info kind string.
enum class CreatorKind
{
    kV2,    //!< "PLUGIN CREATOR_V1": IPluginCreator, makes IPluginV2 plugins.
    kV3One, //!< "PLUGIN CREATOR_V3ONE": IPluginCreatorV3One, makes IPluginV3 plugins.
    //! "PLUGIN CREATOR_V3QUICK": IPluginCreatorV3Quick (kiln/plugin_quick.h), makes Quick IPluginV3 plugins.
    kV3Quick,
};

//! The kind of a creator, or an error naming the kind string it reported.
Expected<CreatorKind> classifyCreator(nvinfer1::IPluginCreatorInterface const& creator);

//! What a creator says it is: its name, version and namespace, and its kind.
struct CreatorIdentity
{
    std::string name;
    std::string version;
    std::string pluginNamespace;
    CreatorKind kind{};
};

//! The identity of creator, checked as registering it checks it (a known kind, a name and version that are neither
//! null nor empty, strings of at most 1023 bytes), or the error naming what is wrong.
Expected<CreatorIdentity> identifyCreator(nvinfer1::IPluginCreatorInterface& creator);

//! A thread-safe implementation of IPluginRegistry. One instance is process-wide (getPluginRegistry());
//! others are private registries with an optional parent (kilnCreatePluginRegistry).
class PluginRegistry final : public nvinfer1::IPluginRegistry
{
public:
    explicit PluginRegistry(nvinfer1::IPluginRegistry* parent = nullptr);
    ~PluginRegistry() noexcept override;

    bool registerCreator(nvinfer1::IPluginCreator& creator, char const* const pluginNamespace) noexcept override;
    nvinfer1::IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreator* getPluginCreator(char const* const pluginName, char const* const pluginVersion,
        char const* const pluginNamespace = "") noexcept override;
    void setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept override;
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreator const& creator) noexcept override;
    bool isParentSearchEnabled() const override;
    void setParentSearchEnabled(bool const enabled) override;
    PluginLibraryHandle loadLibrary(char const* pluginPath) noexcept override;
    void deregisterLibrary(PluginLibraryHandle handle) noexcept override;
    bool registerCreator(
        nvinfer1::IPluginCreatorInterface& creator, char const* const pluginNamespace) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept override;
    nvinfer1::IPluginCreatorInterface* getCreator(char const* const pluginName, char const* const pluginVersion,
        char const* const pluginNamespace = "") noexcept override;
    bool deregisterCreator(nvinfer1::IPluginCreatorInterface const& creator) noexcept override;
    nvinfer1::IPluginResource* acquirePluginResource(
        char const* key, nvinfer1::IPluginResource* resource) noexcept override;
    int32_t releasePluginResource(char const* key) noexcept override;
    nvinfer1::IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept override;

    //! The creator registered under key here or (while parent search is enabled) in a parent, as getCreator finds
    //! it, but logging nothing on a miss.
    nvinfer1::IPluginCreatorInterface* findQuietly(PluginKey const& key);

    //! Unloads a library, or keeps it mapped for good if some registry still refers into its code.
    static void unload(std::unique_ptr<SharedLibrary> library) noexcept;

    //! The parent given at construction.
    nvinfer1::IPluginRegistry* parent() const noexcept { return mParent; }

    //! Whether a creator registered here without a library, or a stored resource, has its object or its vtable in
    //! library's code: then unloading library would leave them dangling.
    bool refersInto(SharedLibrary const& library) const;

private:
    struct Key
    {
        std::string name;
        std::string version;
        std::string pluginNamespace;
        bool operator==(Key const&) const = default;
    };

    struct Entry
    {
        Key key;
        nvinfer1::IPluginCreatorInterface* creator{};
        CreatorKind kind{};
        void const* library{}; //!< The PluginLibrary that provided the creator, or nullptr.
    };

    struct PluginLibrary
    {
        std::unique_ptr<SharedLibrary> library;
        std::vector<nvinfer1::IPluginCreatorInterface*> creators;
    };

    //! A creator's key and kind, read from the creator, or an error naming what was wrong with it.
    static Expected<Entry> describe(nvinfer1::IPluginCreatorInterface& creator, char const* pluginNamespace);

    bool registerEntry(Entry entry, char const* operation) noexcept;
    bool deregister(nvinfer1::IPluginCreatorInterface const& creator, char const* operation) noexcept;
    Entry const* findLocked(Key const& key) const;
    //! A copy of this registry's own entry for the key, std::nullopt when absent, an error for a null name or
    //! version.
    Expected<std::optional<Entry>> findOwn(
        char const* pluginName, char const* pluginVersion, char const* pluginNamespace) const;

    //! The arrays the listing calls have returned. Each distinct listing is kept once, so a returned array stays valid
    //! while other threads change the registry and list it again; only after kListingsKept other distinct listings
    //! have been published is the oldest one freed.
    template <typename T>
    struct Listings
    {
        std::set<std::vector<T*>> kept;
        std::deque<typename std::set<std::vector<T*>>::const_iterator> order;
    };

    //! Returns the listing's array (the same array for the same listing) and its length.
    template <typename T>
    T* const* publish(Listings<T>& listings, std::vector<T*> snapshot, int32_t* numCreators) const;

    //! The creator of key in the parents (while parent search is enabled), or nullptr; logs nothing.
    nvinfer1::IPluginCreatorInterface* findInherited(PluginKey const& key);
    //! The error for a look-up of key that found nothing, naming the near misses and the loaded plugin libraries.
    Error missing(PluginKey const& key);

    //! Logs the error and reports it to the error recorder.
    void report(Error const& error, char const* operation) const noexcept;

    nvinfer1::IPluginRegistry* const mParent;
    std::atomic<bool> mParentSearch{true};

    mutable std::mutex mMutex; // guards everything below but the resource store and the recorder
    std::vector<Entry> mEntries;
    std::list<PluginLibrary> mLibraries;
    mutable Listings<nvinfer1::IPluginCreatorInterface> mAllSnapshots;
    mutable Listings<nvinfer1::IPluginCreatorInterface> mRecursiveSnapshots;
    mutable Listings<nvinfer1::IPluginCreator> mV2Snapshots;

    mutable std::mutex mRecorderMutex;
    nvinfer1::IErrorRecorder* mRecorder{};

    ResourceStore mResources;
};

//! Whether the process-wide registry or any private one refers into library (see PluginRegistry::refersInto).
bool isReferencedByAnyRegistry(SharedLibrary const& library);

} // namespace kiln
