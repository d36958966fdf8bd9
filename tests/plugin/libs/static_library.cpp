// SPDX-License-Identifier: Apache-2.0
// A plugin library that registers its creator statically (REGISTER_TENSORRT_PLUGIN) into the process-wide
// registry when it is loaded, and offers no creators through getCreators.
#include "support/probe_plugins.h"

namespace
{
class StaticV3Creator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return mCreator.createPlugin(nullptr, nullptr, nvinfer1::TensorRTPhase::kBUILD);
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return mCreator.getFieldNames(); }
    char const* getPluginName() const noexcept override { return "StaticV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    kiln::test::ProbeV3Creator mCreator{"StaticV3", "1", ""};
};
} // namespace

REGISTER_TENSORRT_PLUGIN(StaticV3Creator);

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 0;
    return nullptr;
}
