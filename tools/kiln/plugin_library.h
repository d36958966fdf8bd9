// SPDX-License-Identifier: Apache-2.0
// A plugin library opened the way kiln's registry opens one (IPluginRegistry::loadLibrary: src/plugin/
// library_loader.cpp), for `kiln inspect` and `kiln check-plugin`: dlopen with RTLD_NOW | RTLD_LOCAL, entry points
// that are the library's own symbols (not its dependencies'), setLoggerFinder first, then getCreators or else
// getPluginCreators, refusing a negative count and null creators. A library with neither entry point offers the
// creators its static initializers registered in getPluginRegistry() while it loaded (REGISTER_TENSORRT_PLUGIN).
//
//     PluginLibrary const library = openPluginLibrary("libmy_plugins.so", "check-plugin");
//     for (LibraryCreator const& c : library.creators) ...   // c.kind: "PLUGIN CREATOR_V3ONE", c.v3() ...
#pragma once

#include "NvInferRuntime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln_tool
{

//! One creator a library offers, with what its getInterfaceInfo() and identity methods report.
struct LibraryCreator
{
    nvinfer1::IPluginCreatorInterface* creator{};
    std::string kind; //!< getInterfaceInfo().kind: "PLUGIN CREATOR_V3ONE", "PLUGIN CREATOR_V1", or another.
    int32_t major{};
    int32_t minor{};
    std::string name; //!< Empty for a kind this tool does not know.
    std::string version;
    std::string pluginNamespace;

    bool isV3() const noexcept { return kind == "PLUGIN CREATOR_V3ONE"; }
    bool isV2() const noexcept { return kind == "PLUGIN CREATOR_V1"; }
    nvinfer1::IPluginCreatorV3One* v3() const noexcept;
    nvinfer1::IPluginCreator* v2() const noexcept;
    //! "kind major.minor", e.g. "PLUGIN CREATOR_V3ONE 1.0".
    std::string interfaceText() const;
    //! "Name version V namespace \"ns\"", how reports name a creator.
    std::string identityText() const;
};

//! A loaded plugin library; it stays loaded for the process's life (its creators may be registered or referenced).
struct PluginLibrary
{
    std::string path;
    void* handle{};
    std::vector<std::string> entryPoints; //!< Which of getCreators, getPluginCreators, setLoggerFinder, setLogger.
    std::string source;                   //!< "getCreators", "getPluginCreators", or "static registration".
    std::vector<LibraryCreator> creators;
};

//! Opens path as a plugin library; a Failure, prefixed with step ("inspect"), says why it is not one.
PluginLibrary openPluginLibrary(std::string const& path, std::string const& step);

//! The identity and interface of creator (null-safe).
LibraryCreator describeCreator(nvinfer1::IPluginCreatorInterface* creator);

} // namespace kiln_tool
