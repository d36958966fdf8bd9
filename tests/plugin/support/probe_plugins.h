// SPDX-License-Identifier: Apache-2.0
// Small V2 and V3 plugins and creators for registry tests and the test plugin libraries. Each creator reports
// the name, version and namespace it was made with; each plugin reports its creator's.
#pragma once

#include "NvInferRuntime.h"

#include <string>

namespace kiln::test
{

//! A V3 plugin with the core capability only: enough for the registry, which never builds with it.
class ProbeV3Plugin final : public nvinfer1::IPluginV3, public nvinfer1::IPluginV3OneCore
{
public:
    ProbeV3Plugin(std::string name, std::string version, std::string pluginNamespace)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        return type == nvinfer1::PluginCapabilityType::kCORE ? static_cast<IPluginV3OneCore*>(this) : nullptr;
    }

    nvinfer1::IPluginV3* clone() noexcept override { return new ProbeV3Plugin(*this); }

    char const* getPluginName() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    ProbeV3Plugin(ProbeV3Plugin const&) = default;

    std::string mName;
    std::string mVersion;
    std::string mNamespace;
};

//! Creates ProbeV3Plugin; logs through an optional logger finder (as plugin libraries do) when it does.
class ProbeV3Creator final : public nvinfer1::IPluginCreatorV3One
{
public:
    ProbeV3Creator(std::string name, std::string version, std::string pluginNamespace,
        nvinfer1::ILoggerFinder* const* finder = nullptr)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
        , mFinder(finder)
    {
    }

    nvinfer1::IPluginV3* createPlugin(char const* /*name*/, nvinfer1::PluginFieldCollection const* /*fc*/,
        nvinfer1::TensorRTPhase /*phase*/) noexcept override
    {
        if (mFinder != nullptr && *mFinder != nullptr)
        {
            std::string const message = "creating " + mName + " through the library's logger finder";
            (*mFinder)->findLogger()->log(nvinfer1::ILogger::Severity::kINFO, message.c_str());
        }
        return new ProbeV3Plugin(mName, mVersion, mNamespace);
    }

    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    nvinfer1::ILoggerFinder* const* mFinder;
    nvinfer1::PluginFieldCollection mFields{};
};

//! A resource that holds nothing; its clones' code lives wherever this header was compiled.
class ProbeResource final : public nvinfer1::IPluginResource
{
public:
    int32_t release() noexcept override { return 0; }
    nvinfer1::IPluginResource* clone() noexcept override { return new ProbeResource; }
};

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

//! A minimal IPluginV2 that only reports its identity.
class ProbeV2Plugin final : public nvinfer1::IPluginV2
{
public:
    ProbeV2Plugin(std::string name, std::string version, std::string pluginNamespace)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    char const* getPluginType() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::Dims getOutputDimensions(int32_t, nvinfer1::Dims const* inputs, int32_t) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormat(nvinfer1::DataType, nvinfer1::PluginFormat) const noexcept override { return true; }
    void configureWithFormat(nvinfer1::Dims const*, int32_t, nvinfer1::Dims const*, int32_t, nvinfer1::DataType,
        nvinfer1::PluginFormat, int32_t) noexcept override
    {
    }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t, void const* const*, void* const*, void*, cudaStream_t) noexcept override { return 0; }
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override { delete this; }
    nvinfer1::IPluginV2* clone() const noexcept override { return new ProbeV2Plugin(mName, mVersion, mNamespace); }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
};

//! Creates ProbeV2Plugin.
class ProbeV2Creator final : public nvinfer1::IPluginCreator
{
public:
    ProbeV2Creator(std::string name, std::string version, std::string pluginNamespace)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    char const* getPluginName() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override
    {
        return new ProbeV2Plugin(mName, mVersion, mNamespace);
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override
    {
        return new ProbeV2Plugin(mName, mVersion, mNamespace);
    }
    void setPluginNamespace(char const* pluginNamespace) noexcept override { mNamespace = pluginNamespace; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

} // namespace kiln::test
