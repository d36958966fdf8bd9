// Test fixture: FullV3Plugin (full_v3_plugin.h) with kiln's host capability (include/kiln/plugin_host.h) as a fifth
// base, as a plugin that also runs on kiln's host backend is written: getCapabilityInterface() answers
// kiln::kPLUGIN_CAPABILITY_HOST with the IPluginV3OneHost sub-object and the TensorRT types as before. enqueueHost
// overrides the one method of IPluginV3OneHost with the exact signature. C++14, RTTI-free.

#ifndef KILN_TESTS_HEADERS_FULL_HOST_PLUGIN_H
#define KILN_TESTS_HEADERS_FULL_HOST_PLUGIN_H

#include "full_v3_plugin.h"
#include "kiln/plugin_host.h"

namespace kiln_test
{

constexpr int32_t kHostEnqueueResult = 3201;

//! A complete V3 plugin with the host capability.
class FullHostPlugin : public FullV3Plugin, public kiln::IPluginV3OneHost
{
public:
    explicit FullHostPlugin(float scale = 1.F, char const* pluginNamespace = "") noexcept
        : FullV3Plugin(scale, pluginNamespace)
    {
    }

    FullHostPlugin(FullHostPlugin const&) = default;
    FullHostPlugin& operator=(FullHostPlugin const&) = delete;
    ~FullHostPlugin() override = default;

    // IPluginV3: the host capability first (an if, not a case label: the value is not an enumerator).
    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        if (type == kiln::kPLUGIN_CAPABILITY_HOST)
        {
            return static_cast<kiln::IPluginV3OneHost*>(this);
        }
        return FullV3Plugin::getCapabilityInterface(type);
    }

    nvinfer1::IPluginV3* clone() noexcept override { return new FullHostPlugin(*this); }

    // IPluginV3OneRuntime: the context's clone keeps the host capability.
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* context) noexcept override
    {
        static_cast<void>(context);
        return new FullHostPlugin(*this);
    }

    // kiln::IPluginV3OneHost (slot 4): output[0] = scale * input[0], element by element over input 0's volume.
    int32_t enqueueHost(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace) noexcept override
    {
        static_cast<void>(outputDesc);
        mLastWorkspace = workspace;
        int64_t volume = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            volume *= inputDesc[0].dims.d[i];
        }
        float const* const in = static_cast<float const*>(inputs[0]);
        float* const out = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < volume; ++i)
        {
            out[i] = scale() * in[i];
        }
        return kHostEnqueueResult;
    }

    void* lastWorkspace() const noexcept { return mLastWorkspace; }

private:
    LiveCounter mCounter;
    void* mLastWorkspace{nullptr};
};

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FULL_HOST_PLUGIN_H
