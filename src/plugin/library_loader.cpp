// SPDX-License-Identifier: Apache-2.0
#include "plugin/library_loader.h"

#include <algorithm>
#include <dlfcn.h>
#include <mutex>

namespace kiln
{
namespace
{
// The entry points a plugin library exports (no header declares them; library authors write them).
using GetCreatorsFn = nvinfer1::IPluginCreatorInterface* const* (*)(int32_t&);
using GetPluginCreatorsFn = nvinfer1::IPluginCreator* const* (*)(int32_t&);
using SetLoggerFinderFn = void (*)(nvinfer1::ILoggerFinder*);

constexpr char const* kGetCreators = "getCreators";
constexpr char const* kGetPluginCreators = "getPluginCreators";
constexpr char const* kSetLoggerFinder = "setLoggerFinder";

//! Orders kiln's loads, unloads and calls to library entry points. glibc already serialises loads and unloads
//! under its own loader lock, which sanitizers cannot see; this makes that order visible (a library's static
//! destructors finish before a reload's constructors start), and keeps two registries from calling one
//! library's entry points at once.
std::recursive_mutex& loaderMutex()
{
    // Recursive: a library's static initialiser or entry point may itself load or unload libraries.
    static auto* mutex = new std::recursive_mutex;
    return *mutex;
}

std::string lastDlError()
{
    char const* text = dlerror();
    return text != nullptr ? text : "unknown dynamic-loader error";
}
} // namespace

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::open(std::string path)
{
    std::lock_guard<std::recursive_mutex> lock(loaderMutex());
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "cannot load plugin library " + quoted(path.c_str()) + ": " + lastDlError()};
    }
    void* linkMap = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &linkMap) != 0)
    {
        std::string const message = lastDlError();
        dlclose(handle);
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "cannot inspect plugin library " + quoted(path.c_str()) + ": " + message};
    }
    return std::unique_ptr<SharedLibrary>(new SharedLibrary(handle, linkMap, std::move(path)));
}

SharedLibrary::SharedLibrary(void* handle, void* linkMap, std::string path) noexcept
    : mHandle(handle)
    , mLinkMap(linkMap)
    , mPath(std::move(path))
{
}

bool SharedLibrary::contains(void const* address) const noexcept
{
    Dl_info info{};
    void* linkMap = nullptr;
    return address != nullptr && dladdr1(address, &info, &linkMap, RTLD_DL_LINKMAP) != 0 && linkMap == mLinkMap;
}

SharedLibrary::~SharedLibrary()
{
    std::lock_guard<std::recursive_mutex> lock(loaderMutex());
    dlclose(mHandle);
}

void SharedLibrary::pin() noexcept
{
    std::lock_guard<std::recursive_mutex> lock(loaderMutex());
    // Re-opening with RTLD_NODELETE marks the already-loaded object as never to be unloaded.
    if (void* pinned = dlopen(mPath.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
    {
        dlclose(pinned);
    }
}

void* SharedLibrary::symbol(char const* name) const noexcept
{
    // dlsym also searches the library's dependencies; an entry point must be the library's own.
    void* address = dlsym(mHandle, name);
    return contains(address) ? address : nullptr;
}

Expected<PluginLibraryCreators> readPluginLibrary(SharedLibrary const& library, nvinfer1::ILoggerFinder& finder)
{
    std::string const where = "plugin library " + quoted(library.path().c_str());

    // Entry points write library globals (the logger finder) without locks of their own: call one at a time.
    std::lock_guard<std::recursive_mutex> lock(loaderMutex());
    if (auto* setLoggerFinder = reinterpret_cast<SetLoggerFinderFn>(library.symbol(kSetLoggerFinder)))
    {
        setLoggerFinder(&finder);
    }

    PluginLibraryCreators result;
    int32_t count = 0;
    if (auto* getCreators = reinterpret_cast<GetCreatorsFn>(library.symbol(kGetCreators)))
    {
        result.entryPoint = kGetCreators;
        nvinfer1::IPluginCreatorInterface* const* creators = getCreators(count);
        if (count > 0 && creators == nullptr)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                where + ": getCreators reported " + std::to_string(count) + " creators but returned nullptr"};
        }
        result.creators.assign(creators, creators + std::max(count, 0));
    }
    else if (auto* getPluginCreators = reinterpret_cast<GetPluginCreatorsFn>(library.symbol(kGetPluginCreators)))
    {
        result.entryPoint = kGetPluginCreators;
        nvinfer1::IPluginCreator* const* creators = getPluginCreators(count);
        if (count > 0 && creators == nullptr)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                where + ": getPluginCreators reported " + std::to_string(count) + " creators but returned nullptr"};
        }
        for (int32_t i = 0; i < count; ++i)
        {
            result.creators.push_back(creators[i]);
        }
    }
    else
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            where
                + " exports neither the symbol getCreators nor getPluginCreators; a plugin library must define "
                  "extern \"C\" IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)"};
    }

    if (count < 0)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            where + ": " + result.entryPoint + " reported a negative creator count (" + std::to_string(count) + ")"};
    }
    for (std::size_t i = 0; i < result.creators.size(); ++i)
    {
        if (result.creators[i] == nullptr)
        {
            return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
                where + ": " + result.entryPoint + " returned a null creator at index " + std::to_string(i)};
        }
    }
    return result;
}

} // namespace kiln
