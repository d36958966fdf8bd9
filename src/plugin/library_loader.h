// SPDX-License-Identifier: Apache-2.0
// Opening plugin shared libraries and reading their creators through the documented entry points.
#pragma once

#include "core/error.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kiln
{

//! A shared library opened with dlopen and closed when destroyed.
class SharedLibrary
{
public:
    //! Opens the library at path, resolving every symbol now so that missing ones fail here, not later.
    static Expected<std::unique_ptr<SharedLibrary>> open(std::string path);

    //! Opens a library held in memory (a plan's: runtime/plan_libraries.h), called name in messages: its bytes are
    //! written to an anonymous in-memory file (memfd_create) that is loaded as /proc/self/fd/N, so no file is made on
    //! any file system. The in-memory file stays open while the library is loaded (for good, should the loader keep
    //! the library): the loader knows a library by the path it was opened with, and no other file may take that path
    //! meanwhile. The library's dependencies must be found by name or already loaded ($ORIGIN means /proc/self/fd).
    static Expected<std::unique_ptr<SharedLibrary>> openInMemory(std::string name, std::span<uint8_t const> bytes);

    //! The same through a temporary file in directory, removed as soon as it is loaded (where in-memory files are not
    //! allowed or not available). Each such file's path is one this process never used before, for the reason above.
    static Expected<std::unique_ptr<SharedLibrary>> openTemporaryCopy(
        std::string name, std::span<uint8_t const> bytes, std::string const& directory);

    ~SharedLibrary();
    SharedLibrary(SharedLibrary const&) = delete;
    SharedLibrary& operator=(SharedLibrary const&) = delete;

    //! The address of a symbol the library itself defines (not one of its dependencies), or nullptr.
    void* symbol(char const* name) const noexcept;

    //! Whether address lies in this library's code or data.
    bool contains(void const* address) const noexcept;

    std::string const& path() const noexcept { return mPath; }

    //! What messages call the library: its path, or the name it was opened from memory under.
    std::string const& name() const noexcept { return mName.empty() ? mPath : mName; }

    //! Keeps the library mapped for the life of the process, even after this object is destroyed.
    void pin() noexcept;

private:
    SharedLibrary(void* handle, void* linkMap, std::string path) noexcept;

    //! dlopen of path for a library called name, which mFd (when not -1) holds in memory.
    static Expected<std::unique_ptr<SharedLibrary>> load(std::string path, std::string const& name, int fd);

    void* mHandle;
    void* mLinkMap; //!< The dynamic loader's record of the library, which identifies it for dladdr1.
    std::string mPath;
    std::string mName; //!< Empty for a library opened from a file.
    int mFd{-1};       //!< The in-memory file of a library opened with openInMemory; -1 for others.
};

//! The creators a plugin library offers, and the entry point they came from.
struct PluginLibraryCreators
{
    std::vector<nvinfer1::IPluginCreatorInterface*> creators;
    char const* entryPoint{};
};

//! Calls the library's setLoggerFinder (when it has one) with finder, then getCreators, or the deprecated
//! getPluginCreators when getCreators is missing. Refuses a library with neither, naming both symbols.
Expected<PluginLibraryCreators> readPluginLibrary(SharedLibrary const& library, nvinfer1::ILoggerFinder& finder);

} // namespace kiln
