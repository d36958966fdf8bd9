// SPDX-License-Identifier: Apache-2.0
// Registration of the BERT family of standard plugins: their IPluginV3 versions (CustomSkipLayerNormPluginDynamic "5",
// CustomEmbLayerNormPluginDynamic "6", CustomQKVToContextPluginDynamic "4", DisentangledAttention_TRT "2") and their
// IPluginV2DynamicExt versions "1" (bert_legacy.h, each with its host runner). TensorRT registers these with static
// REGISTER_TENSORRT_PLUGIN objects, so they are in the registry (namespace "") as soon as libnvinfer_plugin is
// loaded, and not through initLibNvInferPlugins. kiln does both, explicitly:
// - initLibNvInferPlugins(logger, ns) calls registerBertPlugins(registry, ns), like its other creators;
// - load_registration.cpp, compiled only into the shared library libnvinfer_plugin.so.10 (never into libkiln, nor into
//   the static archive the tests link), calls registerBertPlugins(registry, "") when the library is loaded.
// A creator already registered under the same name, version and namespace is skipped quietly.
#pragma once

#include "NvInferRuntime.h"

namespace kiln::plugins
{

//! Registers the eight BERT-family creators (four V3, four V1) in registry under pluginNamespace (each
//! setPluginNamespace'd first), skipping quietly those registered already. Thread-safe; no exception leaves it.
void registerBertPlugins(nvinfer1::IPluginRegistry& registry, char const* pluginNamespace) noexcept;

} // namespace kiln::plugins
