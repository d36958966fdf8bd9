// SPDX-License-Identifier: Apache-2.0
// The IPluginV2DynamicExt versions "1" of the BERT family (CustomSkipLayerNormPluginDynamic,
// CustomEmbLayerNormPluginDynamic, CustomQKVToContextPluginDynamic, DisentangledAttention_TRT), TensorRT's deprecated
// V2 versions of which its IPluginV3 versions 5, 6, 4 and 2 are ports with the same fields, inputs and outputs. kiln
// provides them as adapters over its V3 plugins: BertLegacyCreator (an IPluginCreator, "PLUGIN CREATOR_V1") creates the
// V3 plugin from the fields and wraps it; the wrapper forwards shapes, formats, types and enqueue() to it, serializes
// the V3 plugin's fields (kiln's own byte layout, validated when read back), and runs on kiln's host backend through a
// kiln::IPluginV2HostRunner (bertLegacyHostRunner()) that calls the V3 plugin's host capability.
//
//     auto creator = std::make_unique<BertLegacyCreator>(std::make_unique<SkipLayerNormCreator>());
//     registry.registerCreator(*creator, "");                                  // CustomSkipLayerNormPluginDynamic "1"
//     kilnRegisterPluginV2HostRunner(creator->getPluginName(), "1", "", &bertLegacyHostRunner());
#pragma once

#include "common.h"
#include "kiln/plugin_host.h"

#include <memory>
#include <string>

namespace kiln::plugins
{

KILN_IGNORE_DEPRECATED_BEGIN

//! The version of every BERT-family V2 plugin.
inline constexpr char const* kBertLegacyVersion = "1";

//! The V1 creator of one BERT-family plugin's version "1", made from the creator of its V3 version.
class BertLegacyCreator final : public nvinfer1::IPluginCreator
{
public:
    explicit BertLegacyCreator(std::unique_ptr<StandardCreator> v3);
    BertLegacyCreator(BertLegacyCreator const&) = delete;
    BertLegacyCreator& operator=(BertLegacyCreator const&) = delete;
    ~BertLegacyCreator() override;

    char const* getPluginName() const noexcept override { return mV3->getPluginName(); }
    char const* getPluginVersion() const noexcept override { return kBertLegacyVersion; }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return mV3->getFieldNames(); }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(
        char const* name, void const* serialData, size_t serialLength) noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::unique_ptr<StandardCreator> mV3;
    std::string mNamespace;
};

//! The host runner of every BERT-family V2 plugin (registered for each with kilnRegisterPluginV2HostRunner).
kiln::IPluginV2HostRunner& bertLegacyHostRunner();

KILN_IGNORE_DEPRECATED_END

} // namespace kiln::plugins
