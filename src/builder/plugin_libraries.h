// SPDX-License-Identifier: Apache-2.0
// The plugin libraries a build puts in its plan (IBuilderConfig::setPluginsToSerialize): each file read whole, its
// checksum, and the creators it provides, found by loading the library as IPluginRegistry::loadLibrary loads one
// (its setLoggerFinder, then getCreators or the deprecated getPluginCreators) and unloading it again. The plan records
// them (plan/plugin_libraries.h); the runtime loads them (runtime/plan_libraries.h).
//
//     auto libraries = pluginLibrariesToSerialize(settings.pluginsToSerialize);   // before the layers are built
//     model.pluginLibraries = std::move(libraries.value());
#pragma once

#include "core/error.h"
#include "plan/engine_model.h"

#include <string>
#include <vector>

namespace kiln
{

//! The records of the libraries at paths, in their order. An error names the library and says why: a file that cannot
//! be read, that dlopen refuses, without either entry point, with a creator the registry would refuse, two libraries
//! of one file name (a plan names its libraries by file name), or a creator two libraries provide.
Expected<std::vector<PluginLibraryRecord>> pluginLibrariesToSerialize(std::vector<std::string> const& paths);

} // namespace kiln
