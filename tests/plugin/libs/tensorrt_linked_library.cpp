// SPDX-License-Identifier: Apache-2.0
// A plugin library linked the way one built against TensorRT 10 is: it records libnvinfer.so.10 as a dependency
// (see nvinfer_soname_stub.cpp) and registers its creator statically through getPluginRegistry().
#include "support/probe_plugins.h"

namespace
{
class LinkedV3Creator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return new kiln::test::ProbeV3Plugin("LinkedV3", "1", "");
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return "LinkedV3"; }
    char const* getPluginVersion() const noexcept override { return "1"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    nvinfer1::PluginFieldCollection mFields{};
};
} // namespace

REGISTER_TENSORRT_PLUGIN(LinkedV3Creator);

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 0;
    return nullptr;
}
