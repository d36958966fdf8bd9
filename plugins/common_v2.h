// SPDX-License-Identifier: Apache-2.0
// What kiln's standard plugins that TensorRT keeps as IPluginV2DynamicExt share (GroupNormalizationPlugin, TensorRT's
// only interface for it): the base of such a plugin (one output of input 0's type, its namespace, a host enqueue), the
// base of its IPluginCreator, and registerStandardV2(), which registers a creator and, for kiln's host backend, the
// kiln::IPluginV2HostRunner that calls the plugin's enqueueHost().
//
//     class GroupNormPlugin final : public plugins::StandardPluginV2 { ... };
//     registerStandardV2(registry, std::make_unique<GroupNormCreator>(), pluginNamespace);   // initLibNvInferPlugins
#pragma once

#include "NvInferRuntime.h"
#include "kiln/plugin_host.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

//! An IPluginV2DynamicExt with one output of input 0's type, no workspace, and a host implementation.
class StandardPluginV2 : public nvinfer1::IPluginV2DynamicExt
{
public:
    using nvinfer1::IPluginV2::enqueue;
    using nvinfer1::IPluginV2::getWorkspaceSize;
    using nvinfer1::IPluginV2Ext::configurePlugin;
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
    }
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const* /*inputs*/, int32_t /*nbInputs*/,
        nvinfer1::PluginTensorDesc const* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override
    {
        return 0;
    }

    //! enqueue() on host memory, called by kiln's host backend through the library's host runner.
    virtual int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept = 0;

protected:
    std::string mNamespace;
};

//! The part of an IPluginCreator every standard V2 creator has: its namespace and its declared fields.
class StandardCreatorV2 : public nvinfer1::IPluginCreator
{
public:
    explicit StandardCreatorV2(std::vector<nvinfer1::PluginField> declared)
        : mDeclared(std::move(declared))
        , mFieldNames{static_cast<int32_t>(mDeclared.size()), mDeclared.data()}
    {
    }
    StandardCreatorV2(StandardCreatorV2 const&) = delete;
    StandardCreatorV2& operator=(StandardCreatorV2 const&) = delete;

    void setPluginNamespace(char const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldNames; }

protected:
    std::string mNamespace;

private:
    std::vector<nvinfer1::PluginField> mDeclared;
    nvinfer1::PluginFieldCollection mFieldNames;
};

//! Registers creator under pluginNamespace, with the host runner of its plugins, unless a creator of its name, version
//! and namespace is registered already (then quietly nothing). The creator lives as long as the process.
void registerStandardV2(
    nvinfer1::IPluginRegistry& registry, std::unique_ptr<StandardCreatorV2> creator, char const* pluginNamespace);

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
