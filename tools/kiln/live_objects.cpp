// SPDX-License-Identifier: Apache-2.0
// Compiled into each executable that links kiln_tool_core (see live_objects.h): the definitions below interpose for
// every library of the process, plugin libraries included.
#include "live_objects.h"

#include "NvInferRuntime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>

namespace
{

std::atomic<int64_t> gLive{0};

void* allocate(std::size_t size)
{
    void* memory = std::malloc(size == 0 ? 1 : size);
    if (memory == nullptr)
    {
        throw std::bad_alloc();
    }
    gLive.fetch_add(1, std::memory_order_relaxed);
    return memory;
}

void release(void* memory) noexcept
{
    if (memory != nullptr)
    {
        gLive.fetch_sub(1, std::memory_order_relaxed);
        std::free(memory);
    }
}

} // namespace

// The replaceable global allocation functions: the plain, array, nothrow and sized forms. The aligned forms keep
// libstdc++'s definitions, which neither call nor are called by these.
void* operator new(std::size_t size)
{
    return allocate(size);
}
void* operator new[](std::size_t size)
{
    return allocate(size);
}
void* operator new(std::size_t size, std::nothrow_t const&) noexcept
{
    try
    {
        return allocate(size);
    }
    catch (...)
    {
        return nullptr;
    }
}
void* operator new[](std::size_t size, std::nothrow_t const&) noexcept
{
    try
    {
        return allocate(size);
    }
    catch (...)
    {
        return nullptr;
    }
}
void operator delete(void* memory) noexcept
{
    release(memory);
}
void operator delete[](void* memory) noexcept
{
    release(memory);
}
void operator delete(void* memory, std::size_t) noexcept
{
    release(memory);
}
void operator delete[](void* memory, std::size_t) noexcept
{
    release(memory);
}
void operator delete(void* memory, std::nothrow_t const&) noexcept
{
    release(memory);
}
void operator delete[](void* memory, std::nothrow_t const&) noexcept
{
    release(memory);
}

namespace
{

using namespace nvinfer1;

struct Counting
{
    std::mutex mutex;
    bool on{false};
    std::map<std::string, kiln_tool::ResourceCount> counts;
};

Counting& counting()
{
    static auto* state = new Counting; // never destroyed: plugins may call in while the process exits
    return *state;
}

void count(char const* key, bool acquired)
{
    Counting& state = counting();
    std::lock_guard<std::mutex> const lock(state.mutex);
    kiln_tool::ResourceCount& entry = state.counts[key != nullptr ? key : ""];
    ++(acquired ? entry.acquired : entry.released);
}

IPluginRegistry* kilnRegistry()
{
    using GetRegistryFn = IPluginRegistry* (*)();
    static auto* const next = reinterpret_cast<GetRegistryFn>(dlsym(RTLD_NEXT, "getPluginRegistry"));
    return next != nullptr ? next() : nullptr;
}

KILN_IGNORE_DEPRECATED_BEGIN

//! kiln's registry with the resource calls counted; everything forwarded unchanged.
class CountingRegistry final : public IPluginRegistry
{
public:
    explicit CountingRegistry(IPluginRegistry& inner)
        : mInner(inner)
    {
    }

    bool registerCreator(IPluginCreator& creator, AsciiChar const* const ns) noexcept override
    {
        return mInner.registerCreator(creator, ns);
    }
    IPluginCreator* const* getPluginCreatorList(int32_t* const numCreators) const noexcept override
    {
        return mInner.getPluginCreatorList(numCreators);
    }
    IPluginCreator* getPluginCreator(
        AsciiChar const* const name, AsciiChar const* const version, AsciiChar const* const ns) noexcept override
    {
        return mInner.getPluginCreator(name, version, ns);
    }
    void setErrorRecorder(IErrorRecorder* const recorder) noexcept override { mInner.setErrorRecorder(recorder); }
    IErrorRecorder* getErrorRecorder() const noexcept override { return mInner.getErrorRecorder(); }
    bool deregisterCreator(IPluginCreator const& creator) noexcept override
    {
        return mInner.deregisterCreator(creator);
    }
    bool isParentSearchEnabled() const override { return mInner.isParentSearchEnabled(); }
    void setParentSearchEnabled(bool const enabled) override { mInner.setParentSearchEnabled(enabled); }
    PluginLibraryHandle loadLibrary(AsciiChar const* path) noexcept override { return mInner.loadLibrary(path); }
    void deregisterLibrary(PluginLibraryHandle handle) noexcept override { mInner.deregisterLibrary(handle); }
    bool registerCreator(IPluginCreatorInterface& creator, AsciiChar const* const ns) noexcept override
    {
        return mInner.registerCreator(creator, ns);
    }
    IPluginCreatorInterface* const* getAllCreators(int32_t* const numCreators) const noexcept override
    {
        return mInner.getAllCreators(numCreators);
    }
    IPluginCreatorInterface* getCreator(
        AsciiChar const* const name, AsciiChar const* const version, AsciiChar const* const ns) noexcept override
    {
        return mInner.getCreator(name, version, ns);
    }
    bool deregisterCreator(IPluginCreatorInterface const& creator) noexcept override
    {
        return mInner.deregisterCreator(creator);
    }
    IPluginResource* acquirePluginResource(AsciiChar const* key, IPluginResource* resource) noexcept override
    {
        IPluginResource* const acquired = mInner.acquirePluginResource(key, resource);
        if (acquired != nullptr)
        {
            count(key, true);
        }
        return acquired;
    }
    int32_t releasePluginResource(AsciiChar const* key) noexcept override
    {
        int32_t const status = mInner.releasePluginResource(key);
        if (status == 0)
        {
            count(key, false);
        }
        return status;
    }
    IPluginCreatorInterface* const* getAllCreatorsRecursive(int32_t* const numCreators) noexcept override
    {
        return mInner.getAllCreatorsRecursive(numCreators);
    }

private:
    IPluginRegistry& mInner;
};

KILN_IGNORE_DEPRECATED_END

} // namespace

extern "C" TENSORRTAPI IPluginRegistry* getPluginRegistry() noexcept
{
    IPluginRegistry* const registry = kilnRegistry();
    Counting& state = counting();
    std::lock_guard<std::mutex> const lock(state.mutex);
    if (!state.on || registry == nullptr)
    {
        return registry;
    }
    static auto* counted = new CountingRegistry(*registry);
    return counted;
}

namespace kiln_tool
{

int64_t liveAllocations() noexcept
{
    return gLive.load(std::memory_order_relaxed);
}

ResourceCounting::ResourceCounting()
{
    Counting& state = counting();
    std::lock_guard<std::mutex> const lock(state.mutex);
    state.counts.clear();
    state.on = true;
}

ResourceCounting::~ResourceCounting()
{
    Counting& state = counting();
    std::lock_guard<std::mutex> const lock(state.mutex);
    state.on = false;
}

std::map<std::string, ResourceCount> ResourceCounting::counts() const
{
    Counting& state = counting();
    std::lock_guard<std::mutex> const lock(state.mutex);
    return state.counts;
}

bool ResourceCounting::available() noexcept
{
    return dlsym(RTLD_DEFAULT, "getPluginRegistry") == reinterpret_cast<void*>(&getPluginRegistry);
}

} // namespace kiln_tool
