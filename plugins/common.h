// SPDX-License-Identifier: Apache-2.0
// What kiln's standard plugins share: the logger initLibNvInferPlugins() was given, error messages that name the
// plugin, typed reading of plugin fields, and the base class of a single-output IPluginV3 that runs on both backends.
// The library sees kiln only through the public TensorRT API, like any plugin library.
//
//     class RoiAlignPlugin final : public plugins::StandardPlugin
//     {
//         // the identity, shapes, formats, fields and both enqueues of the op
//     };
//     plugins::FieldReader fields(kRoiAlignName, fc);
//     int32_t height = 1;
//     if (!fields.readInt("output_height", height)) { return nullptr; }   // a wrong type is logged and refused
#pragma once

#include "NvInferRuntime.h"
#include "kiln/plugin_host.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

//! Where the library logs: the logger given to initLibNvInferPlugins(), else kiln's (getLogger()).
void setLibraryLogger(nvinfer1::ILogger* logger) noexcept;

//! Logs "<plugin> plugin: message" as an error.
void logError(char const* plugin, std::string const& message) noexcept;

//! Whether fc (which may be null) has a field of that name.
bool hasField(nvinfer1::PluginFieldCollection const* fc, char const* name) noexcept;

//! Logs "<plugin> plugin: message" as a warning: what kiln accepts but does not honour as asked.
void logWarning(char const* plugin, std::string const& message) noexcept;

//! The fields of one createPlugin() call, read by name with their declared types.
class FieldReader
{
public:
    FieldReader(char const* plugin, nvinfer1::PluginFieldCollection const* fc) noexcept;

    //! Sets value from the INT32 field of that name (one element) and returns true; true and value untouched when
    //! the field is absent; false (logged) when it has another type, no data or no element.
    bool readInt(char const* name, int32_t& value) const;
    //! Sets value from the FLOAT32 field of that name (one element); as readInt otherwise.
    bool readFloat(char const* name, float& value) const;
    //! Sets values from the INT32 field of that name, which must have values.size() elements; as readInt otherwise.
    bool readInts(char const* name, std::vector<int32_t>& values) const;

private:
    //! The field of that name, or nullptr; sets ok to false (logged) when its type or data is wrong.
    nvinfer1::PluginField const* find(char const* name, nvinfer1::PluginFieldType type, int32_t length, bool& ok) const;

    char const* mPlugin;
    nvinfer1::PluginFieldCollection const* mFields;
};

//! A plugin with one output of the type of input 0, no workspace, no tactics, and both kiln backends: enqueue() on
//! CUDA, enqueueHost() (kiln::IPluginV3OneHost) on the host reference backend.
class StandardPlugin : public nvinfer1::IPluginV3,
                       public nvinfer1::IPluginV3OneCore,
                       public nvinfer1::IPluginV3OneBuild,
                       public nvinfer1::IPluginV3OneRuntime,
                       public kiln::IPluginV3OneHost
{
public:
    explicit StandardPlugin(std::string pluginNamespace)
        : mNamespace(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, nvinfer1::DataType const* inputTypes,
        int32_t nbInputs) const noexcept override;
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override;

protected:
    StandardPlugin(StandardPlugin const&) = default;

    std::string mNamespace;
};

//! The part of a creator that every standard creator has: its namespace (set by initLibNvInferPlugins, as
//! TensorRT's creators have a non-virtual setPluginNamespace) and its declared fields.
class StandardCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    explicit StandardCreator(std::vector<nvinfer1::PluginField> declared)
        : mDeclared(std::move(declared))
        , mFieldNames{static_cast<int32_t>(mDeclared.size()), mDeclared.data()}
    {
    }
    StandardCreator(StandardCreator const&) = delete;
    StandardCreator& operator=(StandardCreator const&) = delete;

    void setPluginNamespace(char const* pluginNamespace) noexcept
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

//! Whether type is kFLOAT or kHALF, the types the standard plugins compute in.
inline bool isFloatOrHalf(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF;
}

} // namespace kiln::plugins
