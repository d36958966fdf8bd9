// SPDX-License-Identifier: Apache-2.0
// Opening plugin shared libraries and reading their creators through the documented entry points.
#pragma once

#include "core/error.h"

#include <memory>
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

    ~SharedLibrary();
    SharedLibrary(SharedLibrary const&) = delete;
    SharedLibrary& operator=(SharedLibrary const&) = delete;

    //! The address of a symbol the library itself defines (not one of its dependencies), or nullptr.
    void* symbol(char const* name) const noexcept;

    //! Whether address lies in this library's code or data.
    bool contains(void const* address) const noexcept;

    std::string const& path() const noexcept { return mPath; }

    //! Keeps the library mapped for the life of the process, even after this object is destroyed.
    void pin() noexcept;

private:
    SharedLibrary(void* handle, void* linkMap, std::string path) noexcept;

    void* mHandle;
    void* mLinkMap; //!< The dynamic loader's record of the library, which identifies it for dladdr1.
    std::string mPath;
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
