// SPDX-License-Identifier: Apache-2.0
// ONNX nodes imported as plugin layers. A node's plugin is the creator registered (in the builder's registry or its
// parents) under the op type, the node's "plugin_version" attribute (default "1") and its "plugin_namespace"
// attribute (default ""), then under the node's domain as namespace. Node attributes become the plugin fields the
// creator declares; "tensorrt_plugin_shape_input_indices" picks a V3 plugin's shape inputs. INT64 inputs of the
// standard plugins TensorRT's parser lists as INT32-only (MultiscaleDeformableAttnPlugin_TRT, ROIAlign_TRT, ...) are
// cast to INT32, as it casts them.
#pragma once

#include "onnx/op_registry.h"

namespace kiln::onnx_import
{

//! What a node's plugin lookup found.
struct PluginMatch
{
    nvinfer1::IPluginCreatorInterface* creator{nullptr};
    std::string name;
    std::string version;
    std::string pluginNamespace;    //!< Where it was found (the attribute's or the node's domain).
    bool viaDomain{false};          //!< Found under the node's domain, not under the attribute's namespace.
    std::string attributeNamespace; //!< With viaDomain: the namespace looked up first (attribute or default "").
};

//! The node's plugin creator, or a match with creator nullptr. withDomain also tries the node's domain.
PluginMatch findNodePlugin(
    ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs, bool withDomain = true);

//! What the builder's registry holds near the node's plugin (op type, plugin_version, plugin_namespace) and the
//! plugin libraries loaded: sentences for a "not found" message.
std::string describeNodePluginNearMisses(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs);

//! Fails, naming the node and what was looked up, unless the node's plugin is registered.
void checkPluginNode(ImportContext& ctx, ::onnx::NodeProto const& node, Attributes const& attrs);

//! Warns, one attribute at a time, that a node imported as importedAs (kiln's importer of its op, or a local
//! function) ignores its plugin_version and plugin_namespace attributes, and why.
void warnIgnoredPluginAttributes(ImportContext& ctx, Node const& node, std::string const& importedAs);

//! Adds the node as a plugin layer (IPluginV2 or IPluginV3, by the creator's interface kind).
std::vector<Value> importPluginNode(ImportContext& ctx, Node& node);

//! Adds one of TensorRT's standard plugins (an IPluginV3 of namespace "", such as ROIAlign_TRT) on inputs, as
//! TensorRT's importers of RoiAlign and DeformConv do: the creator is looked up in the builder's registry; when it is
//! not there, kiln's standard plugin library (libnvinfer_plugin.so.10, beside libkiln or on the library path) is
//! loaded and initLibNvInferPlugins(nullptr, "") called (the library then logs through getLogger()), once per process,
//! and the lookup repeated. Fails like the
//! plugin fallback ("Plugin not found") when the creator is still missing, or when the plugin or layer is refused.
nvinfer1::IPluginV3Layer& addStandardPlugin(ImportContext& ctx, Node const& node, char const* name, char const* version,
    std::vector<nvinfer1::PluginField> const& fields, std::vector<nvinfer1::ITensor*> const& inputs);

} // namespace kiln::onnx_import
