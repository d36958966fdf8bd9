// SPDX-License-Identifier: Apache-2.0
#include "plugin/library_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

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

//! Writes every byte to fd; the reason when it cannot.
std::optional<std::string> writeAll(int fd, std::span<uint8_t const> bytes)
{
    std::size_t written = 0;
    while (written < bytes.size())
    {
        ssize_t const count = write(fd, bytes.data() + written, bytes.size() - written);
        if (count < 0 && errno == EINTR)
        {
            continue;
        }
        if (count <= 0)
        {
            return std::string(count < 0 ? std::strerror(errno) : "the write made no progress");
        }
        written += static_cast<std::size_t>(count);
    }
    return std::nullopt;
}
//! An anonymous in-memory file that may hold code: MFD_EXEC (Linux 6.3, 0x10) asks for it explicitly where the kernel
//! makes such files non-executable by default (vm.memfd_noexec = 1); older kernels refuse the flag, and their files
//! may hold code anyway.
int makeMemoryFile(char const* label)
{
    constexpr unsigned int kExec = 0x0010U;
    int const fd = memfd_create(label, MFD_CLOEXEC | kExec);
    if (fd >= 0 || errno != EINVAL)
    {
        return fd;
    }
    return memfd_create(label, MFD_CLOEXEC);
}
} // namespace

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::open(std::string path)
{
    return load(std::move(path), {}, -1);
}

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::load(std::string path, std::string const& name, int fd)
{
    std::string const shown = name.empty() ? path : name;
    std::lock_guard<std::recursive_mutex> lock(loaderMutex());
    dlerror();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "cannot load plugin library " + quoted(shown.c_str()) + ": " + lastDlError()};
    }
    void* linkMap = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &linkMap) != 0)
    {
        std::string const message = lastDlError();
        dlclose(handle);
        return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
            "cannot inspect plugin library " + quoted(shown.c_str()) + ": " + message};
    }
    std::unique_ptr<SharedLibrary> library(new SharedLibrary(handle, linkMap, std::move(path)));
    library->mName = name;
    library->mFd = fd;
    return library;
}

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::openInMemory(std::string name, std::span<uint8_t const> bytes)
{
    // The name shows in /proc/self/maps ("/memfd:kiln:libx.so (deleted)"); memfd_create takes at most 249 bytes.
    std::string const label = ("kiln:" + name).substr(0, 249);
    int const fd = makeMemoryFile(label.c_str());
    if (fd < 0)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
            "cannot make an in-memory file for plugin library " + quoted(name.c_str())
                + ": memfd_create failed: " + std::strerror(errno)};
    }
    if (auto problem = writeAll(fd, bytes))
    {
        close(fd);
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "cannot write plugin library " + quoted(name.c_str()) + " to an in-memory file: " + *problem};
    }
    auto library = load("/proc/self/fd/" + std::to_string(fd), name, fd);
    if (!library)
    {
        close(fd);
    }
    return library;
}

Expected<std::unique_ptr<SharedLibrary>> SharedLibrary::openTemporaryCopy(
    std::string name, std::span<uint8_t const> bytes, std::string const& directory)
{
    // The loader knows libraries by path: a path it saw before, even of a file since removed, could name the library
    // it loaded from there. The process id and a counter make each path new; mkstemp makes the file exclusively.
    static std::atomic<uint64_t> counter{0};
    std::string path
        = directory + "/kiln-plugin-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-XXXXXX";
    int const fd = mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
    {
        return Error{nvinfer1::ErrorCode::kUNSUPPORTED_STATE,
            "cannot make a temporary file in " + quoted(directory.c_str()) + " for plugin library "
                + quoted(name.c_str()) + ": " + std::strerror(errno)};
    }
    auto problem = writeAll(fd, bytes);
    close(fd);
    if (problem)
    {
        unlink(path.c_str());
        return Error{nvinfer1::ErrorCode::kFAILED_ALLOCATION,
            "cannot write plugin library " + quoted(name.c_str()) + " to the temporary file " + quoted(path.c_str())
                + ": " + *problem};
    }
    auto library = load(path, name, -1);
    unlink(path.c_str()); // loaded or not, the file goes now: the mapping keeps what the library needs
    return library;
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
    if (mFd >= 0)
    {
        // The loader may keep the library (pinned, or holding unique symbols): then its path must go on naming it.
        if (void* kept = dlopen(mPath.c_str(), RTLD_LAZY | RTLD_NOLOAD))
        {
            dlclose(kept);
            return;
        }
        close(mFd);
    }
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
    std::string const where = "plugin library " + quoted(library.name().c_str());

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
