// SPDX-License-Identifier: Apache-2.0
// What kiln's standard V2 plugins share (those TensorRT 10.16 still ships as IPluginV2DynamicExt, such as
// EfficientNMS_TRT and BatchedNMSDynamic_TRT): the base class of such a plugin, which adds enqueueHost() for kiln's
// host backend; the base class of its creator, whose serialized form is the plugin's scalar fields in declared order (4
// bytes each) so that deserializePlugin() goes through the same checks as createPlugin(); the host runner that routes
// kiln's host backend to enqueueHost() (a creator of another kind of V2 plugin, such as ResizeNearest_TRT's
// IPluginV2Ext, supplies its own); and the registration of a creator with its runner under a namespace.
//
//     class EfficientNmsCreator final : public plugins::StandardCreatorV2 { ... };
//     registerStandardV2(registry, "", std::make_unique<EfficientNmsCreator>());   // creator and host runner
#pragma once

#include "NvInferRuntime.h"
#include "common.h"
#include "kiln/plugin_host.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::plugins
{

//! A standard IPluginV2DynamicExt plugin that also runs on kiln's host backend. Its fields are scalars (kINT32 or
//! kFLOAT32, one element each) and its serialized form is their values in the order its creator declares them.
class StandardPluginV2 : public nvinfer1::IPluginV2DynamicExt
{
public:
    explicit StandardPluginV2(std::string pluginNamespace)
        : mNamespace(std::move(pluginNamespace))
    {
    }

    using nvinfer1::IPluginV2Ext::configurePlugin; // The dynamic form below; nvcc warns of the hidden legacy one.
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* /*in*/, int32_t /*nbInputs*/,
        nvinfer1::DynamicPluginTensorDesc const* /*out*/, int32_t /*nbOutputs*/) noexcept override
    {
    }
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;

    //! The same computation as enqueue(), on host memory, finished before it returns (kiln's host backend).
    virtual int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc,
        nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs,
        void* workspace) noexcept = 0;

protected:
    StandardPluginV2(StandardPluginV2 const&) = default;

    //! The plugin's fields, pointing into the plugin, in its creator's declared order.
    virtual std::vector<nvinfer1::PluginField> serializedFields() const = 0;

    std::string mNamespace;
};

//! The part of a V2 creator that every standard one has: its namespace, its declared scalar fields, and
//! deserializePlugin() as createPlugin() over the serialized field values.
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
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;

    //! What runs this creator's plugins on kiln's host backend; by default StandardPluginV2::enqueueHost(). A creator
    //! of plugins of another class (an IPluginV2Ext) returns a runner of its own, which lives as long as the process.
    virtual kiln::IPluginV2HostRunner& hostRunner() const noexcept;

protected:
    std::string mNamespace;

private:
    std::vector<nvinfer1::PluginField> mDeclared;
    nvinfer1::PluginFieldCollection mFieldNames;
};

//! Registers creator under pluginNamespace (skipped quietly when a creator of its name, version and namespace is
//! registered already), with its hostRunner() for the plugins of that name, version and namespace. The creator lives
//! as long as the process.
void registerStandardV2(
    nvinfer1::IPluginRegistry& registry, char const* pluginNamespace, std::unique_ptr<StandardCreatorV2> creator);

} // namespace kiln::plugins

KILN_IGNORE_DEPRECATED_END
