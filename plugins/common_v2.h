// SPDX-License-Identifier: Apache-2.0
// The standard V2 plugins with one output of input 0's type and no workspace, serialized in TensorRT's own byte
// layout (GroupNormalizationPlugin, and the legacy versions of InstanceNormalization_TRT, ScatterElements and
// MultiscaleDeformableAttnPlugin_TRT): OneOutputPluginV2 over StandardPluginV2 (standard_plugin_v2.h), whose host
// runner and registration they share. Their creators derive from StandardCreatorV2 and override deserializePlugin()
// for TensorRT's layout.
//
//     class GroupNormPlugin final : public plugins::OneOutputPluginV2 { ... };
//     registerStandardV2(registry, pluginNamespace, std::make_unique<GroupNormCreator>());   // initLibNvInferPlugins
#pragma once

#include "standard_plugin_v2.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

//! A StandardPluginV2 with one output of input 0's type and no workspace, which writes its own serialized bytes
//! (serialize() and getSerializationSize() overridden in TensorRT's layout, so it declares no serialized fields).
class OneOutputPluginV2 : public StandardPluginV2
{
public:
    using nvinfer1::IPluginV2::enqueue;
    using nvinfer1::IPluginV2::getWorkspaceSize;
    using nvinfer1::IPluginV2Ext::configurePlugin;
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

protected:
    OneOutputPluginV2()
        : StandardPluginV2("")
    {
    }
    OneOutputPluginV2(OneOutputPluginV2 const&) = default;

    std::vector<nvinfer1::PluginField> serializedFields() const override { return {}; }
};

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
