// SPDX-License-Identifier: Apache-2.0
// The key-value store of resources shared among plugins (IPluginRegistry::acquirePluginResource).
#pragma once

#include "core/error.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kiln
{

//! Holds one clone per key with a count of its users. Thread-safe. A resource's clone() may itself acquire
//! other resources (the lock is recursive).
class ResourceStore
{
public:
    ResourceStore() = default;
    ResourceStore(ResourceStore const&) = delete;
    ResourceStore& operator=(ResourceStore const&) = delete;

    ~ResourceStore();

    //! Releases and deletes every resource still held, warning about each key. A release() that calls back
    //! into the store finds the other keys already gone.
    void releaseAll() noexcept;

    //! The resource stored under key; the first acquire stores resource->clone(). Counts one more user.
    Expected<nvinfer1::IPluginResource*> acquire(std::string const& key, nvinfer1::IPluginResource& resource);

    //! Counts one user less; the last one calls release() and deletes the clone. Returns release()'s status.
    Expected<int32_t> release(std::string const& key);

    //! The number of users of key (0 when absent).
    int64_t useCount(std::string const& key) const;

private:
    struct Entry
    {
        nvinfer1::IPluginResource* object{};
        int64_t users{};
    };

    mutable std::recursive_mutex mMutex;
    std::unordered_map<std::string, Entry> mEntries;
};

} // namespace kiln
