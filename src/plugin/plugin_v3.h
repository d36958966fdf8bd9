// SPDX-License-Identifier: Apache-2.0
// A V3 plugin object's capabilities, found the way TensorRT's contract gives them: getCapabilityInterface() for
// kCORE, kBUILD, kRUNTIME (and kiln's host capability), each recognised by its interface info ("PLUGIN_V3ONE_CORE"
// 1, "PLUGIN_V3ONE_BUILD" 1 or 2, "PLUGIN_V3ONE_RUNTIME" 1), never by RTTI. The builder and the runtime share it.
// A Quick plugin's capabilities ("PLUGIN_V3QUICK_CORE", "PLUGIN_V3QUICK_BUILD" or "PLUGIN_V3QUICKAOT_BUILD",
// "PLUGIN_V3QUICK_RUNTIME"; include/kiln/plugin_quick.h) are found the same way and presented through adapters
// (plugin/plugin_quick.h) that V3Capabilities::quick keeps; an AOT Quick plugin has no runtime capability, and is
// never asked for one.
//
//     auto caps = capabilitiesOf(plugin, {.build = true, .host = true}, "layer 'pad'", describeIdentity(identity));
//     caps.value().runtime->setTactic(0);
#pragma once

#include "core/error.h"
#include "kiln/plugin_aot.h"
#include "kiln/plugin_host.h"

#include "NvInferRuntime.h"

#include <memory>
#include <string>

namespace kiln
{

//! The capabilities of one V3 plugin object.
class QuickAdapters;

//! The capabilities of one V3 plugin. For a Quick plugin they are adapters that quick owns: keep quick (copies of
//! this share it) while they are used, and the plugin alive while they are called.
struct V3Capabilities
{
    nvinfer1::IPluginV3OneCore* core{};
    nvinfer1::IPluginV3OneBuild* build{};     //!< Null unless asked for.
    nvinfer1::IPluginV3OneBuildV2* build2{};  //!< build as the major-2 interface, or null for a major-1 one.
    nvinfer1::IPluginV3OneRuntime* runtime{}; //!< Null for an AOT Quick plugin, which has none.
    IPluginV3OneHost* host{};                 //!< Null unless asked for.
    IPluginV3AotBuild* aot{};             //!< An AOT Quick plugin's build capability as kiln's AOT one; null otherwise.
    std::shared_ptr<QuickAdapters> quick; //!< The adapters of a Quick plugin; null for a V3One one.
};

//! What capabilitiesOf must find besides kCORE and kRUNTIME.
struct CapabilityNeeds
{
    bool build{};
    bool host{};
};

//! The capabilities of plugin. The error says which one is missing or malformed, after layer ("layer 'pad'") and
//! described (the plugin as describePlugin() names it).
Expected<V3Capabilities> capabilitiesOf(
    nvinfer1::IPluginV3& plugin, CapabilityNeeds needs, std::string const& layer, std::string const& described);

//! The IPluginResourceContext kiln gives attachToContext(), at build time (the builder's) and per execution context:
//! a GPU allocator and an error recorder, either of which may be null.
class PluginResourceContext final : public nvinfer1::IPluginResourceContext
{
public:
    PluginResourceContext(nvinfer1::IErrorRecorder* recorder, nvinfer1::IGpuAllocator* allocator) noexcept
        : mRecorder(recorder)
        , mAllocator(allocator)
    {
    }
    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override { return mAllocator; }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override { return mRecorder; }

private:
    nvinfer1::IErrorRecorder* mRecorder;
    nvinfer1::IGpuAllocator* mAllocator;
};

//! A PluginTensorDesc.
nvinfer1::PluginTensorDesc pluginDesc(
    nvinfer1::Dims const& dims, nvinfer1::DataType type, nvinfer1::TensorFormat format, float scale) noexcept;

} // namespace kiln
