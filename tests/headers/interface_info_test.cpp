// getInterfaceInfo() of every class in the spec's section 4.0 table that the headers declare: the exact kind
// string (spaces included), major and minor, reached through IVersionedInterface as the engine does (no RTTI).
// The fixtures never override getInterfaceInfo, so the values come from the headers.

#include "NvInfer.h"
#include "full_callbacks.h"
#include "full_host_plugin.h"
#include "full_v2_plugins.h"
#include "full_v3_plugin.h"
#include "minimal_fixtures.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

struct InfoRow
{
    char const* name;
    IVersionedInterface const* object;
    char const* kind;
    int32_t major;
    int32_t minor;
};

} // namespace

#define KILN_INFO(Interface, object, kind, major, minor)                                                               \
    InfoRow                                                                                                            \
    {                                                                                                                  \
#Interface, static_cast < IVersionedInterface const*>(static_cast <Interface const*>(&(object))), kind, major, \
            minor                                                                                                      \
    }

TEST(InterfaceInfo, KindStringsAndVersions)
{
    FullV3Plugin v3;
    FullHostPlugin host;
    MinimalV3Plugin<IPluginV3OneBuild> v3WithV1Build;
    FullV3Creator v3Creator;
    FullV2Creator v2Creator;
    FullPluginResource resource;
    FullErrorRecorder recorder;
    FullGpuAllocator allocator;
    FullGpuAsyncAllocator asyncAllocator;
    FullOutputAllocator outputAllocator;
    FullStreamReader reader;
    FullStreamReaderV2 readerV2;
    FullStreamWriter writer;
    FullDebugListener listener;
    FullProgressMonitor monitor;

    InfoRow const rows[] = {
        KILN_INFO(v_1_0::IPluginV3, v3, "PLUGIN", 1, 0),
        KILN_INFO(v_1_0::IPluginV3OneCore, v3, "PLUGIN_V3ONE_CORE", 1, 0),
        KILN_INFO(v_1_0::IPluginV3OneBuild, v3WithV1Build, "PLUGIN_V3ONE_BUILD", 1, 0),
        KILN_INFO(v_2_0::IPluginV3OneBuild, v3, "PLUGIN_V3ONE_BUILD", 2, 0),
        KILN_INFO(v_1_0::IPluginV3OneRuntime, v3, "PLUGIN_V3ONE_RUNTIME", 1, 0),
        KILN_INFO(kiln::v_1_0::IPluginV3OneHost, host, "KILN_PLUGIN_V3ONE_HOST", 1, 0),
        KILN_INFO(v_1_0::IPluginCreator, v2Creator, "PLUGIN CREATOR_V1", 1, 0),
        KILN_INFO(v_1_0::IPluginCreatorV3One, v3Creator, "PLUGIN CREATOR_V3ONE", 1, 0),
        KILN_INFO(v_1_0::IPluginResource, resource, "IPluginResource", 1, 0),
        KILN_INFO(v_1_0::IErrorRecorder, recorder, "IErrorRecorder", 1, 0),
        KILN_INFO(v_1_0::IGpuAllocator, allocator, "IGpuAllocator", 1, 0),
        KILN_INFO(v_1_0::IGpuAsyncAllocator, asyncAllocator, "IGpuAllocator", 1, 0),
        KILN_INFO(v_1_0::IOutputAllocator, outputAllocator, "IOutputAllocator", 1, 0),
        KILN_INFO(v_1_0::IStreamReader, reader, "IStreamReader", 1, 0),
        KILN_INFO(v_1_0::IStreamReaderV2, readerV2, "IStreamReaderV2", 1, 0),
        KILN_INFO(v_1_0::IStreamWriter, writer, "IStreamWriter", 1, 0),
        KILN_INFO(v_1_0::IDebugListener, listener, "IDebugListener", 1, 0),
        KILN_INFO(v_1_0::IProgressMonitor, monitor, "IProgressMonitor", 1, 0),
    };
    for (InfoRow const& row : rows)
    {
        InterfaceInfo const info = row.object->getInterfaceInfo();
        ASSERT_NE(info.kind, nullptr) << row.name;
        EXPECT_EQ(std::string(info.kind), std::string(row.kind)) << row.name;
        EXPECT_EQ(info.major, row.major) << row.name;
        EXPECT_EQ(info.minor, row.minor) << row.name;
        EXPECT_EQ(row.object->getAPILanguage(), APILanguage::kCPP) << row.name;
    }
}

TEST(InterfaceInfo, RootsLeaveItPure)
{
    // IPluginCapability and IPluginCreatorInterface do not implement getInterfaceInfo (spec 4.1, 4.8).
    struct BareCapability : IPluginCapability
    {
    };
    struct BareCreator : IPluginCreatorInterface
    {
    };
    EXPECT_TRUE(std::is_abstract_v<IVersionedInterface>);
    EXPECT_TRUE(std::is_abstract_v<BareCapability>);
    EXPECT_TRUE(std::is_abstract_v<BareCreator>);
}

TEST(InterfaceInfo, InterfaceInfoIsAnAggregateReturnedByValue)
{
    InterfaceInfo const info{"PLUGIN", 1, 0};
    EXPECT_STREQ(info.kind, "PLUGIN");
    EXPECT_EQ(info.major, 1);
    auto const make = []() -> InterfaceInfo { return {"IGpuAllocator", 1, 0}; };
    EXPECT_STREQ(make().kind, "IGpuAllocator");
    EXPECT_TRUE(std::is_aggregate_v<InterfaceInfo>);
    EXPECT_TRUE((std::is_same_v<InterfaceKind, char const*>));
}
