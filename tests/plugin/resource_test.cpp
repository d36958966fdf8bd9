// SPDX-License-Identifier: Apache-2.0
// acquirePluginResource / releasePluginResource: the registry stores a clone, counts users by key, and releases
// and deletes the clone when the last user lets go; every refusal has its message.
#include "support/capture.h"
#include "support/counted_resource.h"

namespace kiln::test
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;

class ResourceTest : public RegistryTest
{
protected:
    ResourceCounters mCounters;
};

TEST_F(ResourceTest, StoresACloneAndCountsUsers)
{
    CountedResource original{mCounters};
    auto* first = static_cast<CountedResource*>(mRegistry->acquirePluginResource("W", &original));
    ASSERT_NE(first, nullptr);
    EXPECT_NE(first, &original) << "the registry keeps a clone, not the object passed";
    EXPECT_TRUE(first->isClone());
    EXPECT_EQ(first->weights().size(), 16U);
    EXPECT_EQ(mCounters.clones, 1);

    CountedResource another{mCounters};
    auto* second = mRegistry->acquirePluginResource("W", &another);
    EXPECT_EQ(second, first) << "later acquires return the stored clone";
    EXPECT_EQ(mCounters.clones, 1) << "and clone nothing";

    EXPECT_EQ(mRegistry->releasePluginResource("W"), 0);
    EXPECT_EQ(mCounters.releases, 0) << "one user is left";
    EXPECT_EQ(mRegistry->releasePluginResource("W"), 0);
    EXPECT_EQ(mCounters.releases, 1);
    EXPECT_EQ(mCounters.deletions, 1);

    // The key is free again: the next acquire clones anew.
    auto* third = mRegistry->acquirePluginResource("W", &original);
    ASSERT_NE(third, nullptr);
    EXPECT_EQ(mCounters.clones, 2);
    EXPECT_EQ(mRegistry->releasePluginResource("W"), 0);
    EXPECT_EQ(mCounters.deletions, 2);
}

TEST_F(ResourceTest, KeysAreIndependent)
{
    CountedResource original{mCounters};
    auto* a = mRegistry->acquirePluginResource("A", &original);
    auto* b = mRegistry->acquirePluginResource("B", &original);
    EXPECT_NE(a, b);
    EXPECT_EQ(mRegistry->releasePluginResource("A"), 0);
    EXPECT_EQ(mCounters.releases, 1);
    EXPECT_EQ(mRegistry->acquirePluginResource("B", &original), b);
    EXPECT_EQ(mRegistry->releasePluginResource("B"), 0);
    EXPECT_EQ(mRegistry->releasePluginResource("B"), 0);
    EXPECT_EQ(mCounters.releases, 2);
}

TEST_F(ResourceTest, ReleasingAnUnknownKeyIsRefused)
{
    EXPECT_NE(mRegistry->releasePluginResource("nothing"), 0);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"IPluginRegistry::releasePluginResource", "no plugin resource is acquired under key \"nothing\""}))
        << mLog.text();
}

TEST_F(ResourceTest, AFailedCloneStoresNothing)
{
    CountedResource broken{mCounters, /*failClone=*/true};
    EXPECT_EQ(mRegistry->acquirePluginResource("W", &broken), nullptr);
    EXPECT_TRUE(mLog.has(
        Severity::kERROR, {"acquirePluginResource", "clone() of the plugin resource for key \"W\" returned nullptr"}))
        << mLog.text();
    EXPECT_NE(mRegistry->releasePluginResource("W"), 0) << "nothing was stored";

    CountedResource working{mCounters};
    EXPECT_NE(mRegistry->acquirePluginResource("W", &working), nullptr) << "the key is still free";
    EXPECT_EQ(mRegistry->releasePluginResource("W"), 0);
}

TEST_F(ResourceTest, NullKeyOrResourceIsRefused)
{
    CountedResource original{mCounters};
    EXPECT_EQ(mRegistry->acquirePluginResource(nullptr, &original), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"acquirePluginResource", "resource key is null"}));
    EXPECT_EQ(mRegistry->acquirePluginResource("", &original), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"acquirePluginResource", "resource key is empty"}));
    EXPECT_EQ(mRegistry->acquirePluginResource("W", nullptr), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"acquirePluginResource", "the resource for key \"W\" is null"}));
    EXPECT_NE(mRegistry->releasePluginResource(nullptr), 0);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"releasePluginResource", "resource key is null"}));
    EXPECT_EQ(mCounters.clones, 0);
}

TEST_F(ResourceTest, AFailingReleaseIsReportedAndTheResourceIsStillRemoved)
{
    CountedResource original{mCounters, false, /*releaseStatus=*/3};
    ASSERT_NE(mRegistry->acquirePluginResource("W", &original), nullptr);
    EXPECT_NE(mRegistry->releasePluginResource("W"), 0);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"release() of the plugin resource under key \"W\" failed with status 3"}))
        << mLog.text();
    EXPECT_EQ(mCounters.deletions, 1);
    EXPECT_NE(mRegistry->releasePluginResource("W"), 0);
}

TEST_F(ResourceTest, DestroyingTheRegistryReleasesWhatIsStillAcquired)
{
    nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(nullptr);
    CountedResource original{mCounters};
    ASSERT_NE(registry->acquirePluginResource("W", &original), nullptr);
    ASSERT_NE(registry->acquirePluginResource("W", &original), nullptr);
    kilnDestroyPluginRegistry(registry);
    EXPECT_EQ(mCounters.releases, 1);
    EXPECT_EQ(mCounters.deletions, 1);
    EXPECT_TRUE(mLog.has(Severity::kWARNING, {"plugin resource \"W\" was still acquired 2 time(s)"})) << mLog.text();
}

//! A resource whose clone acquires another resource from the same registry (nested use is allowed).
class NestingResource final : public nvinfer1::IPluginResource
{
public:
    NestingResource(nvinfer1::IPluginRegistry* registry, ResourceCounters& counters)
        : mRegistry(registry)
        , mCounters(&counters)
    {
    }
    int32_t release() noexcept override { return mRegistry->releasePluginResource("inner"); }
    nvinfer1::IPluginResource* clone() noexcept override
    {
        CountedResource inner{*mCounters};
        if (mRegistry->acquirePluginResource("inner", &inner) == nullptr)
        {
            return nullptr;
        }
        return new NestingResource(mRegistry, *mCounters);
    }

private:
    nvinfer1::IPluginRegistry* mRegistry;
    ResourceCounters* mCounters;
};

TEST_F(ResourceTest, ACloneMayAcquireAnotherResource)
{
    NestingResource outer{mRegistry, mCounters};
    ASSERT_NE(mRegistry->acquirePluginResource("outer", &outer), nullptr);
    EXPECT_EQ(mCounters.clones, 1);
    EXPECT_EQ(mRegistry->releasePluginResource("outer"), 0);
    EXPECT_EQ(mCounters.releases, 1) << "the outer release released the inner one";
    EXPECT_EQ(mCounters.deletions, 1);
}

TEST(GlobalRegistryResources, WorkThroughGetPluginRegistry)
{
    ResourceCounters counters;
    CountedResource original{counters};
    auto* stored = getPluginRegistry()->acquirePluginResource("kiln.test.global", &original);
    ASSERT_NE(stored, nullptr);
    EXPECT_EQ(getPluginRegistry()->releasePluginResource("kiln.test.global"), 0);
    EXPECT_EQ(counters.deletions, 1);
}

} // namespace
} // namespace kiln::test
