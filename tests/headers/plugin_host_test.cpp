// kiln's host capability (include/kiln/plugin_host.h): the capability type kiln asks for, the class's shape and
// defaults, and a complete plugin (full_host_plugin.h) reached through the pointers kiln will use:
// getCapabilityInterface with kPLUGIN_CAPABILITY_HOST, then enqueueHost through IPluginV3OneHost. Its vtable, interface
// info and destructor slots are checked with the spec's interfaces (vtable_v3_test.cpp, interface_info_test.cpp,
// vtable_destructor_test.cpp).

#include "NvInfer.h"
#include "full_host_plugin.h"
#include "kiln/plugin_host.h"

#include <gtest/gtest.h>

#include <cstring>
#include <type_traits>
#include <vector>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

//! Overrides only enqueueHost: that it can be instantiated proves it is the one pure method.
class OnlyEnqueueHost : public kiln::IPluginV3OneHost
{
public:
    int32_t enqueueHost(PluginTensorDesc const* /*inputDesc*/, PluginTensorDesc const* /*outputDesc*/,
        void const* const* /*inputs*/, void* const* /*outputs*/, void* /*workspace*/) noexcept override
    {
        return 0;
    }
};

PluginTensorDesc linearFloat(Dims const& dims)
{
    PluginTensorDesc desc{};
    desc.dims = dims;
    desc.type = DataType::kFLOAT;
    desc.format = TensorFormat::kLINEAR;
    desc.scale = 1.F;
    return desc;
}

} // namespace

TEST(PluginHost, CapabilityTypeIsOutsideTensorRTs)
{
    constexpr PluginCapabilityType type = kiln::kPLUGIN_CAPABILITY_HOST;
    static_assert(static_cast<int32_t>(type) == 0x4B4C4E01, "kiln's host capability type changed");
    EXPECT_TRUE((std::is_same_v<decltype(kiln::kPLUGIN_CAPABILITY_HOST), PluginCapabilityType const>));
    EXPECT_NE(type, PluginCapabilityType::kCORE);
    EXPECT_NE(type, PluginCapabilityType::kBUILD);
    EXPECT_NE(type, PluginCapabilityType::kRUNTIME);
}

TEST(PluginHost, ClassShape)
{
    EXPECT_TRUE((std::is_same_v<kiln::IPluginV3OneHost, kiln::v_1_0::IPluginV3OneHost>));
    EXPECT_TRUE((std::is_base_of_v<IPluginCapability, kiln::IPluginV3OneHost>));
    EXPECT_TRUE(std::is_abstract_v<kiln::IPluginV3OneHost>);
    EXPECT_FALSE(std::is_abstract_v<OnlyEnqueueHost>);
    EXPECT_EQ(sizeof(kiln::IPluginV3OneHost), sizeof(void*));
    EXPECT_EQ(alignof(kiln::IPluginV3OneHost), alignof(void*));

    OnlyEnqueueHost host;
    IVersionedInterface const& versioned = host;
    EXPECT_STREQ(versioned.getInterfaceInfo().kind, "KILN_PLUGIN_V3ONE_HOST");
    EXPECT_EQ(versioned.getAPILanguage(), APILanguage::kCPP);
}

TEST(PluginHost, V2HostRunnerShape)
{
    EXPECT_TRUE((std::is_same_v<kiln::IPluginV2HostRunner, kiln::v_1_0::IPluginV2HostRunner>));
    EXPECT_TRUE((std::is_base_of_v<IVersionedInterface, kiln::IPluginV2HostRunner>));
    EXPECT_TRUE(std::is_abstract_v<kiln::IPluginV2HostRunner>);
    EXPECT_EQ(sizeof(kiln::IPluginV2HostRunner), sizeof(void*));
    struct Runner final : kiln::IPluginV2HostRunner
    {
        int32_t enqueueHost(IPluginV2&, PluginTensorDesc const*, PluginTensorDesc const*, void const* const*,
            void* const*, void*) noexcept override
        {
            return 0;
        }
    } runner;
    IVersionedInterface const& versioned = runner;
    EXPECT_STREQ(versioned.getInterfaceInfo().kind, "KILN_PLUGIN_V2_HOST_RUNNER");
    EXPECT_EQ(versioned.getInterfaceInfo().major, 1);
    EXPECT_EQ(versioned.getAPILanguage(), APILanguage::kCPP);
}

TEST(PluginHost, CompletePluginThroughBasePointers)
{
    int32_t const live = liveObjects();
    {
        FullHostPlugin* const full = new FullHostPlugin(2.F, "ns");
        IPluginV3* const plugin = full;

        IPluginCapability* const capability = plugin->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST);
        ASSERT_NE(capability, nullptr);
        EXPECT_EQ(capability, static_cast<IPluginCapability*>(static_cast<kiln::IPluginV3OneHost*>(full)));
        EXPECT_NE(static_cast<void*>(capability), static_cast<void*>(plugin)); // an adjusted sub-object
        EXPECT_STREQ(capability->getInterfaceInfo().kind, "KILN_PLUGIN_V3ONE_HOST");
        // The TensorRT capabilities are unchanged.
        EXPECT_STREQ(
            plugin->getCapabilityInterface(PluginCapabilityType::kCORE)->getInterfaceInfo().kind, "PLUGIN_V3ONE_CORE");
        EXPECT_STREQ(plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME)->getInterfaceInfo().kind,
            "PLUGIN_V3ONE_RUNTIME");

        auto* const host = static_cast<kiln::IPluginV3OneHost*>(capability);
        Dims const dims{2, {2, 3}};
        PluginTensorDesc const in = linearFloat(dims);
        PluginTensorDesc const out = linearFloat(dims);
        std::vector<float> const input{1.F, 2.F, 3.F, -4.F, 0.5F, 0.F};
        std::vector<float> output(input.size(), -1.F);
        void const* const inputs[] = {input.data()};
        void* const outputs[] = {output.data()};
        unsigned char workspace[16] = {};
        EXPECT_EQ(host->enqueueHost(&in, &out, inputs, outputs, workspace), kHostEnqueueResult);
        EXPECT_EQ(output, (std::vector<float>{2.F, 4.F, 6.F, -8.F, 1.F, 0.F}));
        EXPECT_EQ(full->lastWorkspace(), static_cast<void*>(workspace));

        // The context's clone keeps the capability; every object is deleted through IPluginV3*.
        auto* const runtime
            = static_cast<IPluginV3OneRuntime*>(plugin->getCapabilityInterface(PluginCapabilityType::kRUNTIME));
        IPluginV3* const attached = runtime->attachToContext(nullptr);
        ASSERT_NE(attached, nullptr);
        EXPECT_NE(attached->getCapabilityInterface(kiln::kPLUGIN_CAPABILITY_HOST), nullptr);
        delete attached;
        delete plugin;
    }
    EXPECT_EQ(liveObjects(), live);
}
