// SPDX-License-Identifier: Apache-2.0
// A V3 creator that only has a name, a version and a namespace: registered beside a missing one, it is the near miss
// that "not found" messages must name. It makes no plugins.
#pragma once

#include "NvInferRuntime.h"

#include <string>

namespace kiln::test
{

class NamedCreator final : public nvinfer1::IPluginCreatorV3One
{
public:
    NamedCreator(std::string name, std::string version, std::string pluginNamespace)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mNamespace(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return nullptr;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mName;
    std::string mVersion;
    std::string mNamespace;
    nvinfer1::PluginFieldCollection mFields{};
};

} // namespace kiln::test
