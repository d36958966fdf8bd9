// SPDX-License-Identifier: Apache-2.0
// A quiet look-up in any registry, for kiln's own callers (the runtime): what getCreator would return, without the
// error getCreator reports for a miss. Defined with the registry (registry.cpp), as it knows kiln's registries.
#pragma once

#include "plugin/plugin_lookup.h"

namespace kiln
{

//! The creator registry's getCreator would return for key, logging nothing on a miss: PluginRegistry::findQuietly
//! (the keys creators were registered under, then the parents) for kiln's registries, findCreatorQuietly (a scan of
//! getAllCreatorsRecursive) for other implementations.
nvinfer1::IPluginCreatorInterface* findRegisteredQuietly(nvinfer1::IPluginRegistry& registry, PluginKey const& key);

} // namespace kiln
