// SPDX-License-Identifier: Apache-2.0
#include "plugin/resource_store.h"

#include "core/logging.h"

namespace kiln
{

ResourceStore::~ResourceStore()
{
    releaseAll();
}

void ResourceStore::releaseAll() noexcept
{
    std::unordered_map<std::string, Entry> remaining;
    {
        std::lock_guard<std::recursive_mutex> lock(mMutex);
        remaining.swap(mEntries);
    }
    for (auto& [key, entry] : remaining)
    {
        log(Severity::kWARNING,
            "plugin resource " + quoted(key.c_str()) + " was still acquired " + std::to_string(entry.users)
                + " time(s) when its registry was destroyed; releasing it now");
        entry.object->release();
        delete entry.object;
    }
}

Expected<nvinfer1::IPluginResource*> ResourceStore::acquire(std::string const& key, nvinfer1::IPluginResource& resource)
{
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    if (auto found = mEntries.find(key); found != mEntries.end())
    {
        ++found->second.users;
        return found->second.object;
    }
    nvinfer1::IPluginResource* clone = resource.clone();
    if (clone == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "clone() of the plugin resource for key " + quoted(key.c_str()) + " returned nullptr; nothing was stored"};
    }
    mEntries.emplace(key, Entry{clone, 1});
    return clone;
}

Expected<int32_t> ResourceStore::release(std::string const& key)
{
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    auto found = mEntries.find(key);
    if (found == mEntries.end())
    {
        return Error{
            nvinfer1::ErrorCode::kINVALID_ARGUMENT, "no plugin resource is acquired under key " + quoted(key.c_str())};
    }
    if (--found->second.users > 0)
    {
        return 0;
    }
    nvinfer1::IPluginResource* object = found->second.object;
    mEntries.erase(found);
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

int64_t ResourceStore::useCount(std::string const& key) const
{
    std::lock_guard<std::recursive_mutex> lock(mMutex);
    auto found = mEntries.find(key);
    return found == mEntries.end() ? 0 : found->second.users;
}

} // namespace kiln
