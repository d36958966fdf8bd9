// SPDX-License-Identifier: Apache-2.0
// Quick plugins (include/kiln/plugin_quick.h) seen as V3One ones: small adapters that present a Quick plugin's
// capabilities as IPluginV3OneCore, IPluginV3OneBuildV2, IPluginV3OneRuntime, kiln::IPluginV3AotBuild and
// kiln::IPluginV3OneHost, so that the network, the builder and the runtime drive a Quick plugin exactly like a V3One
// one (capabilitiesOf in plugin_v3.h makes them). The adapters of one plugin object live in one QuickAdapters, which
// whoever holds the plugin's capabilities keeps (V3Capabilities::quick, PluginV3Params::quick): they point into the
// plugin, so calls through them need the plugin alive; deleting them after the plugin is fine.
//
//     auto quick = std::make_shared<QuickAdapters>(plugin, "layer 'add': plugin \"add\" version \"1\" ...");
//     nvinfer1::IPluginV3OneBuildV2* build = quick->build(static_cast<nvinfer1::IPluginV3QuickBuild&>(*capability));
//     quick->setInputRanks({2});          // getOutputDataTypes() of a Quick plugin also receives the inputs' ranks
//
// How each V3One call becomes a Quick one:
// - supportsFormatCombination(pos, inOut): the list of getNbSupportedFormatCombinations() and
//   getSupportedFormatCombinations() for inOut, asked again when pos is 0 or inOut's types change; pos is accepted when
//   a listed combination has inOut's types and formats at every position up to pos.
// - getWorkspaceSize() is 0 and getFormatCombinationLimit() the default (a Quick plugin has neither).
// - onShapeChange() records the numbers of inputs and outputs; enqueue() passes them with each tensor's strides (in
//   elements, of the linear layout of its dims) to the Quick enqueue().
// - attachToContext() gives the plugin's clone(), given the tactic of the latest setTactic() again (a Quick plugin
//   has no resources to attach).
// - The AOT build capability: setTactic(), getOutputShapes() (again, with the AOT expression builder, so that the
//   expressions a plugin keeps from it, as tensorrt.plugin does, belong to the builder of the next call),
//   getLaunchParams() and getKernel() become one getAotKernel().
// - The host capability: kiln::IPluginV3QuickHost::enqueueHost() with the counts and strides enqueue() would get.
#pragma once

#include "core/error.h"
#include "kiln/plugin_aot.h"
#include "kiln/plugin_host.h"
#include "kiln/plugin_quick.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

//! Interface kinds of the Quick capabilities and creator.
inline constexpr char const* kQuickCoreKind = "PLUGIN_V3QUICK_CORE";
inline constexpr char const* kQuickBuildKind = "PLUGIN_V3QUICK_BUILD";
inline constexpr char const* kQuickAotBuildKind = "PLUGIN_V3QUICKAOT_BUILD";
inline constexpr char const* kQuickRuntimeKind = "PLUGIN_V3QUICK_RUNTIME";
inline constexpr char const* kQuickCreatorKind = "PLUGIN CREATOR_V3QUICK";

//! Whether info is kind, major version 1.
bool isQuickKind(nvinfer1::InterfaceInfo const& info, char const* kind) noexcept;

class QuickCoreAdapter;
class QuickBuildAdapter;
class QuickRuntimeAdapter;
class QuickAotAdapter;
class QuickHostAdapter;

//! The adapters of one Quick plugin object, each made once, when first asked for.
class QuickAdapters
{
public:
    //! who names the plugin in the messages the adapters log ("layer 'add': plugin \"add\" ...").
    QuickAdapters(nvinfer1::IPluginV3& plugin, std::string who);
    ~QuickAdapters();
    QuickAdapters(QuickAdapters const&) = delete;
    QuickAdapters& operator=(QuickAdapters const&) = delete;

    nvinfer1::IPluginV3OneCore* core(nvinfer1::IPluginV3QuickCore& quick);
    //! A major-2 build capability (getAliasedInput() forwards to the Quick one).
    nvinfer1::IPluginV3OneBuildV2* build(nvinfer1::IPluginV3QuickBuild& quick);
    //! kiln's AOT build capability over quick (whose build capability build() must have made first).
    IPluginV3AotBuild* aot(nvinfer1::IPluginV3QuickAOTBuild& quick);
    nvinfer1::IPluginV3OneRuntime* runtime(nvinfer1::IPluginV3QuickRuntime& quick);
    //! The host capability over the plugin's kiln::IPluginV3QuickHost (found through RTTI), after runtime(); an error
    //! naming the plugin when it has none.
    Expected<IPluginV3OneHost*> host();

    //! The data inputs' ranks, which the Quick getOutputDataTypes() receives (-1 for an input not given).
    void setInputRanks(std::vector<int32_t> ranks);

private:
    nvinfer1::IPluginV3& mPlugin;
    std::string mWho;
    std::unique_ptr<QuickCoreAdapter> mCore;
    std::unique_ptr<QuickBuildAdapter> mBuild;
    std::unique_ptr<QuickAotAdapter> mAot;
    std::unique_ptr<QuickRuntimeAdapter> mRuntime;
    std::unique_ptr<QuickHostAdapter> mHost;
};

//! The contiguous strides (in elements) of a tensor of dims: 1 for the last axis.
nvinfer1::Dims linearStrides(nvinfer1::Dims const& dims) noexcept;

} // namespace kiln
