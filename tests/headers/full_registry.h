// Test fixture: a complete, minimal IPluginRegistry overriding all eighteen methods with the spec's exact signatures
// (section 5.1: the two deprecated V2 overloads, parent search without `noexcept`, getAllCreatorsRecursive). It lets
// tests check overload selection and the "" default namespace through an IPluginRegistry&. Names the deprecated
// IPluginCreator, so a translation unit that includes it warns. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_FULL_REGISTRY_H
#define KILN_TESTS_HEADERS_FULL_REGISTRY_H

#include "NvInferRuntime.h"
#include "fixture_common.h"

#include <cstring>
#include <string>
#include <vector>

namespace kiln_test
{

class FullPluginRegistry : public nvinfer1::IPluginRegistry
{
public:
    ~FullPluginRegistry() noexcept override
    {
        for (Resource& resource : mResources)
        {
            delete resource.object;
        }
    }

    bool registerCreator(
        nvinfer1::IPluginCreator& creator, nvinfer1::AsciiChar const* const pluginNamespace) noexcept override
    {
        mLastCall = "registerCreator(IPluginCreator&)";
        mLastNamespace = pluginNamespace;
        mV2Creators.push_back(&creator);
        mAllCreators.push_back(&creator);
        return true;
    }

    nvinfer1::IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept override
    {
        mLastCall = "getPluginCreatorList";
        *numCreators = static_cast<int32_t>(mV2Creators.size());
        return mV2Creators.empty() ? nullptr : mV2Creators.data();
    }

    nvinfer1::IPluginCreator* getPluginCreator(nvinfer1::AsciiChar const* const pluginName,
        nvinfer1::AsciiChar const* const pluginVersion,
        nvinfer1::AsciiChar const* const pluginNamespace) noexcept override
    {
        mLastCall = "getPluginCreator";
        mLastNamespace = pluginNamespace;
        for (nvinfer1::IPluginCreator* creator : mV2Creators)
        {
            if (std::strcmp(creator->getPluginName(), pluginName) == 0
                && std::strcmp(creator->getPluginVersion(), pluginVersion) == 0)
            {
                return creator;
            }
        }
        return nullptr;
    }

    void setErrorRecorder(nvinfer1::IErrorRecorder* const recorder) noexcept override
    {
        mLastCall = "setErrorRecorder";
        mRecorder = recorder;
    }

    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override
    {
        mLastCall = "getErrorRecorder";
        return mRecorder;
    }

    bool deregisterCreator(nvinfer1::IPluginCreator const& creator) noexcept override
    {
        mLastCall = "deregisterCreator(IPluginCreator const&)";
        return erase(&creator);
    }

    bool isParentSearchEnabled() const override
    {
        mLastCall = "isParentSearchEnabled";
        return mParentSearch;
    }

    void setParentSearchEnabled(bool const enabled) override
    {
        mLastCall = "setParentSearchEnabled";
        mParentSearch = enabled;
    }

    PluginLibraryHandle loadLibrary(nvinfer1::AsciiChar const* pluginPath) noexcept override
    {
        mLastCall = "loadLibrary";
        static_cast<void>(pluginPath);
        return nullptr;
    }

    void deregisterLibrary(PluginLibraryHandle handle) noexcept override
    {
        mLastCall = "deregisterLibrary";
        static_cast<void>(handle);
    }

    bool registerCreator(
        nvinfer1::IPluginCreatorInterface& creator, nvinfer1::AsciiChar const* const pluginNamespace) noexcept override
    {
        mLastCall = "registerCreator(IPluginCreatorInterface&)";
        mLastNamespace = pluginNamespace;
        mAllCreators.push_back(&creator);
        return true;
    }

    nvinfer1::IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept override
    {
        mLastCall = "getAllCreators";
        *numCreators = static_cast<int32_t>(mAllCreators.size());
        return mAllCreators.empty() ? nullptr : mAllCreators.data();
    }

    nvinfer1::IPluginCreatorInterface* getCreator(nvinfer1::AsciiChar const* const pluginName,
        nvinfer1::AsciiChar const* const pluginVersion,
        nvinfer1::AsciiChar const* const pluginNamespace) noexcept override
    {
        mLastCall = "getCreator";
        mLastNamespace = pluginNamespace;
        static_cast<void>(pluginName);
        static_cast<void>(pluginVersion);
        return mAllCreators.empty() ? nullptr : mAllCreators.front();
    }

    bool deregisterCreator(nvinfer1::IPluginCreatorInterface const& creator) noexcept override
    {
        mLastCall = "deregisterCreator(IPluginCreatorInterface const&)";
        return erase(&creator);
    }

    nvinfer1::IPluginResource* acquirePluginResource(
        nvinfer1::AsciiChar const* key, nvinfer1::IPluginResource* resource) noexcept override
    {
        mLastCall = "acquirePluginResource";
        for (Resource& stored : mResources)
        {
            if (stored.key == key)
            {
                ++stored.users;
                return stored.object;
            }
        }
        nvinfer1::IPluginResource* const copy = resource->clone();
        mResources.push_back(Resource{key, copy, 1});
        return copy;
    }

    int32_t releasePluginResource(nvinfer1::AsciiChar const* key) noexcept override
    {
        mLastCall = "releasePluginResource";
        for (size_t i = 0; i < mResources.size(); ++i)
        {
            if (mResources[i].key == key && --mResources[i].users == 0)
            {
                int32_t const status = mResources[i].object->release();
                delete mResources[i].object;
                mResources.erase(mResources.begin() + static_cast<std::ptrdiff_t>(i));
                return status;
            }
        }
        return 0;
    }

    nvinfer1::IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept override
    {
        mLastCall = "getAllCreatorsRecursive";
        *numCreators = static_cast<int32_t>(mAllCreators.size());
        return mAllCreators.empty() ? nullptr : mAllCreators.data();
    }

    // Test accessors.
    char const* lastCall() const noexcept { return mLastCall; }

    char const* lastNamespace() const noexcept { return mLastNamespace; }

private:
    struct Resource
    {
        std::string key;
        nvinfer1::IPluginResource* object;
        int32_t users;
    };

    bool erase(nvinfer1::IPluginCreatorInterface const* creator) noexcept
    {
        bool found = false;
        for (size_t i = 0; i < mAllCreators.size(); ++i)
        {
            if (mAllCreators[i] == creator)
            {
                mAllCreators.erase(mAllCreators.begin() + static_cast<std::ptrdiff_t>(i));
                found = true;
                break;
            }
        }
        for (size_t i = 0; i < mV2Creators.size(); ++i)
        {
            if (mV2Creators[i] == creator)
            {
                mV2Creators.erase(mV2Creators.begin() + static_cast<std::ptrdiff_t>(i));
                break;
            }
        }
        return found;
    }

    LiveCounter mCounter;
    mutable char const* mLastCall{""};
    char const* mLastNamespace{nullptr};
    nvinfer1::IErrorRecorder* mRecorder{nullptr};
    bool mParentSearch{true};
    std::vector<nvinfer1::IPluginCreator*> mV2Creators;
    std::vector<nvinfer1::IPluginCreatorInterface*> mAllCreators;
    std::vector<Resource> mResources;
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_REGISTRY_H
