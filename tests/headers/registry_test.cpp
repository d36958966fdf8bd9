// IPluginRegistry as callers see it (spec 5.1, 5.3): which registerCreator / deregisterCreator overload a call
// selects, the "" default namespace of getCreator / getPluginCreator, resources, and REGISTER_TENSORRT_PLUGIN.
// This program does not link libkiln: it defines getPluginRegistry() itself, returning a FullPluginRegistry, so the
// static registrations below land in a registry the test can inspect.

#include "NvInfer.h"
#include "full_callbacks.h"
#include "full_registry.h"
#include "full_v2_plugins.h"
#include "full_v3_plugin.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace nvinfer1;
using namespace kiln_test;

extern "C" nvinfer1::IPluginRegistry* getPluginRegistry() noexcept
{
    static FullPluginRegistry registry;
    return &registry;
}

namespace
{
using kiln_test::FullV2Creator;
using kiln_test::FullV3Creator;

REGISTER_TENSORRT_PLUGIN(FullV3Creator);
REGISTER_TENSORRT_PLUGIN(FullV2Creator);
} // namespace

TEST(Registry, StaticRegistrationPicksTheOverloadByCreatorType)
{
    IPluginRegistry* const registry = getPluginRegistry();
    int32_t nbAll = 0;
    int32_t nbV2 = 0;
    IPluginCreatorInterface* const* const all = registry->getAllCreators(&nbAll);
    IPluginCreator* const* const v2 = registry->getPluginCreatorList(&nbV2);
    ASSERT_EQ(nbAll, 2);
    ASSERT_EQ(nbV2, 1) << "a V2 creator must arrive through registerCreator(IPluginCreator&, ...)";
    EXPECT_STREQ(all[0]->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    EXPECT_STREQ(all[1]->getInterfaceInfo().kind, "PLUGIN CREATOR_V1");
    EXPECT_STREQ(v2[0]->getPluginName(), "KilnFullV2Dynamic");
    int32_t nbRecursive = 0;
    EXPECT_NE(registry->getAllCreatorsRecursive(&nbRecursive), nullptr);
    EXPECT_EQ(nbRecursive, 2);
}

TEST(Registry, OverloadSelection)
{
    FullPluginRegistry registryObject;
    IPluginRegistry& registry = registryObject;
    FullV2Creator v2;
    FullV3Creator v3;

    EXPECT_TRUE(registry.registerCreator(v2, "ns"));
    EXPECT_STREQ(registryObject.lastCall(), "registerCreator(IPluginCreator&)");
    EXPECT_STREQ(registryObject.lastNamespace(), "ns");
    EXPECT_TRUE(registry.registerCreator(v3, "ns"));
    EXPECT_STREQ(registryObject.lastCall(), "registerCreator(IPluginCreatorInterface&)");

    // Holding only the root type always selects the IPluginCreatorInterface overload (slot 12).
    IPluginCreatorInterface& v2AsRoot = v2;
    EXPECT_TRUE(registry.registerCreator(v2AsRoot, ""));
    EXPECT_STREQ(registryObject.lastCall(), "registerCreator(IPluginCreatorInterface&)");

    EXPECT_TRUE(registry.deregisterCreator(v2));
    EXPECT_STREQ(registryObject.lastCall(), "deregisterCreator(IPluginCreator const&)");
    EXPECT_TRUE(registry.deregisterCreator(v3));
    EXPECT_STREQ(registryObject.lastCall(), "deregisterCreator(IPluginCreatorInterface const&)");
}

TEST(Registry, LookupsDefaultToTheEmptyNamespace)
{
    FullPluginRegistry registryObject;
    IPluginRegistry& registry = registryObject;
    FullV2Creator v2;
    registry.registerCreator(v2, "");

    EXPECT_EQ(registry.getPluginCreator("KilnFullV2Dynamic", kV2PluginVersion), &v2);
    ASSERT_NE(registryObject.lastNamespace(), nullptr);
    EXPECT_STREQ(registryObject.lastNamespace(), "");

    EXPECT_NE(registry.getCreator("KilnFullV2Dynamic", kV2PluginVersion), nullptr);
    EXPECT_STREQ(registryObject.lastCall(), "getCreator");
    ASSERT_NE(registryObject.lastNamespace(), nullptr);
    EXPECT_STREQ(registryObject.lastNamespace(), "");
}

TEST(Registry, OtherMethods)
{
    int32_t const live = liveObjects();
    {
        FullPluginRegistry registryObject;
        IPluginRegistry& registry = registryObject;
        FullErrorRecorder recorder;
        registry.setErrorRecorder(&recorder);
        EXPECT_EQ(registry.getErrorRecorder(), &recorder);
        EXPECT_TRUE(registry.isParentSearchEnabled());
        registry.setParentSearchEnabled(false);
        EXPECT_FALSE(registry.isParentSearchEnabled());
        EXPECT_EQ(registry.loadLibrary("libnothing.so"), nullptr);
        EXPECT_STREQ(registryObject.lastCall(), "loadLibrary");
        registry.deregisterLibrary(nullptr);
        EXPECT_STREQ(registryObject.lastCall(), "deregisterLibrary");

        FullPluginResource original;
        IPluginResource* const shared = registry.acquirePluginResource("key", &original);
        ASSERT_NE(shared, nullptr);
        EXPECT_NE(shared, &original);
        EXPECT_EQ(registry.acquirePluginResource("key", &original), shared);
        EXPECT_EQ(registry.releasePluginResource("key"), 0);
        EXPECT_FALSE(static_cast<FullPluginResource*>(shared)->released());
        EXPECT_EQ(registry.releasePluginResource("key"), 0);
        EXPECT_FALSE(original.released());
    }
    EXPECT_EQ(liveObjects(), live);
}
