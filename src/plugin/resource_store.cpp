// SPDX-License-Identifier: Apache-2.0
#include "plugin/resource_store.h"

#include "core/logging.h"

#include <algorithm>

namespace kiln
{

ResourceStore::~ResourceStore()
{
    releaseAll();
}

Expected<std::unordered_map<std::string, ResourceStore::Entry>::iterator> ResourceStore::waitReady(
    std::unique_lock<std::mutex>& lock, std::string const& key, char const* operation)
{
    while (true)
    {
        auto found = mEntries.find(key);
        if (found == mEntries.end() || found->second.object != nullptr)
        {
            return found;
        }
        if (found->second.cloningIn == std::this_thread::get_id())
        {
            return Error{nvinfer1::ErrorCode::kINVALID_STATE,
                std::string(operation) + " of key " + quoted(key.c_str())
                    + " from inside that key's own clone(); the resource does not exist yet"};
        }
        mReady.wait(lock);
    }
}

Expected<nvinfer1::IPluginResource*> ResourceStore::acquire(std::string const& key, nvinfer1::IPluginResource& resource)
{
    std::unique_lock<std::mutex> lock(mMutex);
    auto found = waitReady(lock, key, "acquirePluginResource");
    if (!found)
    {
        return found.error();
    }
    if (found.value() != mEntries.end())
    {
        ++found.value()->second.users;
        return found.value()->second.object;
    }
    mEntries.emplace(key, Entry{nullptr, 1, 0, std::this_thread::get_id()});
    lock.unlock();

    nvinfer1::IPluginResource* clone = resource.clone();

    lock.lock();
    auto entry = mEntries.find(key); // only this thread removes or completes an entry that is being cloned
    if (clone == nullptr)
    {
        mEntries.erase(entry);
    }
    else
    {
        // Numbered when complete: what its clone() acquired is numbered before it, so it is released after it.
        entry->second.object = clone;
        entry->second.sequence = mNextSequence++;
    }
    lock.unlock();
    mReady.notify_all();
    if (clone == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "clone() of the plugin resource for key " + quoted(key.c_str()) + " returned nullptr; nothing was stored"};
    }
    return clone;
}

Expected<int32_t> ResourceStore::release(std::string const& key)
{
    std::unique_lock<std::mutex> lock(mMutex);
    auto found = waitReady(lock, key, "releasePluginResource");
    if (!found)
    {
        return found.error();
    }
    if (found.value() == mEntries.end())
    {
        return Error{
            nvinfer1::ErrorCode::kINVALID_ARGUMENT, "no plugin resource is acquired under key " + quoted(key.c_str())};
    }
    if (--found.value()->second.users > 0)
    {
        return 0;
    }
    nvinfer1::IPluginResource* object = found.value()->second.object;
    mEntries.erase(found.value());
    lock.unlock();

    int32_t const status = object->release();
    delete object;
    if (status != 0)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_EXECUTION,
            "release() of the plugin resource under key " + quoted(key.c_str()) + " failed with status "
                + std::to_string(status) + "; the resource was removed anyway"};
    }
    return 0;
}

void ResourceStore::releaseAll() noexcept
{
    while (true)
    {
        std::string key;
        Entry entry;
        {
            std::unique_lock<std::mutex> lock(mMutex);
            mReady.wait(lock, [&] {
                return std::none_of(
                    mEntries.begin(), mEntries.end(), [](auto const& e) { return e.second.object == nullptr; });
            });
            auto newest = std::max_element(mEntries.begin(), mEntries.end(),
                [](auto const& a, auto const& b) { return a.second.sequence < b.second.sequence; });
            if (newest == mEntries.end())
            {
                return;
            }
            key = newest->first;
            entry = newest->second;
            mEntries.erase(newest);
        }
        log(Severity::kWARNING,
            "plugin resource " + quoted(key.c_str()) + " was still acquired " + std::to_string(entry.users)
                + " time(s) when its registry was destroyed; releasing it now");
        entry.object->release();
        delete entry.object;
    }
}

void ResourceStore::forEach(std::function<void(nvinfer1::IPluginResource const&)> const& visit) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    for (auto const& [key, entry] : mEntries)
    {
        if (entry.object != nullptr)
        {
            visit(*entry.object);
        }
    }
}

} // namespace kiln
