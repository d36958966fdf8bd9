// Vtable slots of the V3 plugin family and the creators (spec sections 4.0-4.9, 5.2, 6.6), Itanium ABI. Each table
// is the spec's table: slot, member, exact signature. KILN_EXPECT_VTABLE also checks the total number of slots,
// so a virtual added or removed anywhere in the class fails the test.

#include "NvInfer.h"
#include "kiln/plugin_host.h"
#include "slot_probe.h"

#if defined(KILN_ITANIUM_ABI)

using namespace nvinfer1;

TEST(VtableSlots, IVersionedInterface)
{
    using C = IVersionedInterface;
    KILN_EXPECT_VTABLE(IVersionedInterface, 4, 0, KILN_SLOT(0, C, getAPILanguage, APILanguage() const noexcept),
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept), KILN_DTOR(2));
}

TEST(VtableSlots, IPluginCapability)
{
    KILN_EXPECT_VTABLE(v_1_0::IPluginCapability, 4, 4);
}

TEST(VtableSlots, IPluginV3)
{
    using C = v_1_0::IPluginV3;
    KILN_EXPECT_VTABLE(v_1_0::IPluginV3, 6, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, getCapabilityInterface, IPluginCapability * (PluginCapabilityType) noexcept),
        KILN_SLOT(5, C, clone, IPluginV3 * () noexcept));
}

TEST(VtableSlots, IPluginV3OneCore)
{
    using C = v_1_0::IPluginV3OneCore;
    KILN_EXPECT_VTABLE(v_1_0::IPluginV3OneCore, 7, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, getPluginName, AsciiChar const*() const noexcept),
        KILN_SLOT(5, C, getPluginVersion, AsciiChar const*() const noexcept),
        KILN_SLOT(6, C, getPluginNamespace, AsciiChar const*() const noexcept));
}

TEST(VtableSlots, IPluginV3OneBuild)
{
    using C = v_1_0::IPluginV3OneBuild;
    KILN_EXPECT_VTABLE(v_1_0::IPluginV3OneBuild, 15, 4,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, configurePlugin,
            int32_t(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept),
        KILN_SLOT(5, C, getOutputDataTypes, int32_t(DataType*, int32_t, DataType const*, int32_t) const noexcept),
        KILN_SLOT(6, C, getOutputShapes,
            int32_t(DimsExprs const*, int32_t, DimsExprs const*, int32_t, DimsExprs*, int32_t, IExprBuilder&) noexcept),
        KILN_SLOT(
            7, C, supportsFormatCombination, bool(int32_t, DynamicPluginTensorDesc const*, int32_t, int32_t) noexcept),
        KILN_SLOT(8, C, getNbOutputs, int32_t() const noexcept),
        KILN_SLOT(9, C, getWorkspaceSize,
            size_t(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) const noexcept),
        KILN_SLOT(10, C, getValidTactics, int32_t(int32_t*, int32_t) noexcept),
        KILN_SLOT(11, C, getNbTactics, int32_t() noexcept), KILN_SLOT(12, C, getTimingCacheID, char const*() noexcept),
        KILN_SLOT(13, C, getFormatCombinationLimit, int32_t() noexcept),
        KILN_SLOT(14, C, getMetadataString, char const*() noexcept));
}

TEST(VtableSlots, IPluginV3OneBuildV2)
{
    using C = v_2_0::IPluginV3OneBuild;
    KILN_EXPECT_VTABLE(v_2_0::IPluginV3OneBuild, 16, 15,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(14, C, getMetadataString, char const*() noexcept),
        KILN_SLOT(15, C, getAliasedInput, int32_t(int32_t) noexcept));
}

TEST(VtableSlots, IPluginV3OneRuntime)
{
    using C = v_1_0::IPluginV3OneRuntime;
    KILN_EXPECT_VTABLE(v_1_0::IPluginV3OneRuntime, 9, 4,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, setTactic, int32_t(int32_t) noexcept),
        KILN_SLOT(
            5, C, onShapeChange, int32_t(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) noexcept),
        KILN_SLOT(6, C, enqueue,
            int32_t(PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*,
                cudaStream_t) noexcept),
        KILN_SLOT(7, C, attachToContext, IPluginV3 * (IPluginResourceContext*) noexcept),
        KILN_SLOT(8, C, getFieldsToSerialize, PluginFieldCollection const*() noexcept));
}

// kiln's host capability (include/kiln/plugin_host.h): not in the spec; its table is kiln's ABI promise.
TEST(VtableSlots, KilnIPluginV3OneHost)
{
    using C = kiln::v_1_0::IPluginV3OneHost;
    KILN_EXPECT_VTABLE(kiln::v_1_0::IPluginV3OneHost, 5, 4,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, enqueueHost,
            int32_t(
                PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*, void*) noexcept));
}

// kiln's host runner of V2 plugins (include/kiln/plugin_host.h): likewise kiln's ABI promise.
TEST(VtableSlots, KilnIPluginV2HostRunner)
{
    using C = kiln::v_1_0::IPluginV2HostRunner;
    KILN_EXPECT_VTABLE(kiln::v_1_0::IPluginV2HostRunner, 5, 4,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, enqueueHost,
            int32_t(IPluginV2&, PluginTensorDesc const*, PluginTensorDesc const*, void const* const*, void* const*,
                void*) noexcept));
}

TEST(VtableSlots, IPluginCreatorInterface)
{
    KILN_EXPECT_VTABLE(v_1_0::IPluginCreatorInterface, 4, 4);
}

TEST(VtableSlots, IPluginCreatorV3One)
{
    using C = v_1_0::IPluginCreatorV3One;
    KILN_EXPECT_VTABLE(v_1_0::IPluginCreatorV3One, 9, 4,
        KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(
            4, C, createPlugin, IPluginV3 * (AsciiChar const*, PluginFieldCollection const*, TensorRTPhase) noexcept),
        KILN_SLOT(5, C, getFieldNames, PluginFieldCollection const*() noexcept),
        KILN_SLOT(6, C, getPluginName, AsciiChar const*() const noexcept),
        KILN_SLOT(7, C, getPluginVersion, AsciiChar const*() const noexcept),
        KILN_SLOT(8, C, getPluginNamespace, AsciiChar const*() const noexcept));
}

TEST(VtableSlots, IPluginCreator)
{
    using C = v_1_0::IPluginCreator;
    KILN_EXPECT_VTABLE(v_1_0::IPluginCreator, 11, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, getPluginName, AsciiChar const*() const noexcept),
        KILN_SLOT(5, C, getPluginVersion, AsciiChar const*() const noexcept),
        KILN_SLOT(6, C, getFieldNames, PluginFieldCollection const*() noexcept),
        KILN_SLOT(7, C, createPlugin, IPluginV2 * (AsciiChar const*, PluginFieldCollection const*) noexcept),
        KILN_SLOT(8, C, deserializePlugin, IPluginV2 * (AsciiChar const*, void const*, size_t) noexcept),
        KILN_SLOT(9, C, setPluginNamespace, void(AsciiChar const*) noexcept),
        KILN_SLOT(10, C, getPluginNamespace, AsciiChar const*() const noexcept));
}

TEST(VtableSlots, IPluginResource)
{
    using C = v_1_0::IPluginResource;
    KILN_EXPECT_VTABLE(v_1_0::IPluginResource, 6, 4, KILN_SLOT(1, C, getInterfaceInfo, InterfaceInfo() const noexcept),
        KILN_SLOT(4, C, release, int32_t() noexcept), KILN_SLOT(5, C, clone, IPluginResource * () noexcept));
}

#else

TEST(VtableSlots, V3Family)
{
    GTEST_SKIP() << "slot numbers are defined for the Itanium C++ ABI only";
}

#endif
