// SPDX-License-Identifier: Apache-2.0
// The key-value store of resources shared among plugins (IPluginRegistry::acquirePluginResource).
#pragma once

#include "core/error.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace kiln
{

//! Holds one clone per key with a count of its users. Thread-safe, and no lock is held while a resource's own
//! clone() or release() runs: they may take as long as they need, use other keys, or wait for other threads.
class ResourceStore
{
public:
    ResourceStore() = default;
    ResourceStore(ResourceStore const&) = delete;
    ResourceStore& operator=(ResourceStore const&) = delete;
    ~ResourceStore();

    //! The resource stored under key; the first acquire stores resource.clone(), while later acquirers of that
    //! key wait for it. Counts one more user. A clone() that acquires its own key is refused.
    Expected<nvinfer1::IPluginResource*> acquire(std::string const& key, nvinfer1::IPluginResource& resource);

    //! Counts one user less; the last one calls release() and deletes the clone. Returns release()'s status.
    Expected<int32_t> release(std::string const& key);

    //! Releases and deletes every resource still held, newest first (a resource acquired inside another's clone()
    //! outlives it), warning about each key. Nested releases made by release() find their keys still there.
    void releaseAll() noexcept;

    //! Calls visit with every stored resource.
    void forEach(std::function<void(nvinfer1::IPluginResource const&)> const& visit) const;

private:
    struct Entry
    {
        nvinfer1::IPluginResource* object{}; //!< nullptr while its clone() runs.
        int64_t users{};
        uint64_t sequence{};       //!< Order in which clones completed.
        std::thread::id cloningIn; //!< The thread running clone() for this entry.
    };

    //! Waits until key's clone is ready or gone; returns the entry, or end(). An error if this thread is the
    //! one cloning it.
    Expected<std::unordered_map<std::string, Entry>::iterator> waitReady(
        std::unique_lock<std::mutex>& lock, std::string const& key, char const* operation);

    mutable std::mutex mMutex;
    std::condition_variable mReady;
    std::unordered_map<std::string, Entry> mEntries;
    uint64_t mNextSequence{0};
};

} // namespace kiln
