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
std::mutex& loaderMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::string lastDlError()
{
    char const* text = dlerror();
    return text != nullptr ? text : "unknown dynamic-loader error";
}
} // namespace

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::open(std::string path)
{
    std::lock_guard<std::mutex> lock(loaderMutex());
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "cannot load plugin library " + quoted(path.c_str()) + ": " + lastDlError()};
    }
    return std::unique_ptr<SharedLibrary>(new SharedLibrary(handle, std::move(path)));
}

SharedLibrary::SharedLibrary(void* handle, std::string path) noexcept
    : mHandle(handle)
    , mPath(std::move(path))
{
}

SharedLibrary::~SharedLibrary()
{
    std::lock_guard<std::mutex> lock(loaderMutex());
    dlclose(mHandle);
}

void SharedLibrary::pin() noexcept
{
    std::lock_guard<std::mutex> lock(loaderMutex());
    // Re-opening with RTLD_NODELETE marks the already-loaded object as never to be unloaded.
    if (void* pinned = dlopen(mPath.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
    {
        dlclose(pinned);
    }
}

void* SharedLibrary::symbol(char const* name) const noexcept
{
    return dlsym(mHandle, name);
}

Expected<PluginLibraryCreators> readPluginLibrary(SharedLibrary const& library, nvinfer1::ILoggerFinder& finder)
{
    std::string const where = "plugin library " + quoted(library.path().c_str());

    // Entry points write library globals (the logger finder) without locks of their own: call one at a time.
    std::lock_guard<std::mutex> lock(loaderMutex());
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
