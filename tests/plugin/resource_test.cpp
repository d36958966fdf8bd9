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

//! Like NestingResource, with an inner key of its own.
class NestingResourceFor final : public nvinfer1::IPluginResource
{
public:
    NestingResourceFor(nvinfer1::IPluginRegistry* registry, ResourceCounters& counters, std::string key)
        : mRegistry(registry)
        , mCounters(&counters)
        , mKey(std::move(key))
    {
    }
    std::string const& key() const { return mKey; }
    int32_t release() noexcept override { return mRegistry->releasePluginResource((mKey + ".inner").c_str()); }
    nvinfer1::IPluginResource* clone() noexcept override
    {
        CountedResource inner{*mCounters};
        if (mRegistry->acquirePluginResource((mKey + ".inner").c_str(), &inner) == nullptr)
        {
            return nullptr;
        }
        return new NestingResourceFor(mRegistry, *mCounters, mKey);
    }

private:
    nvinfer1::IPluginRegistry* mRegistry;
    ResourceCounters* mCounters;
    std::string mKey;
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

#include <chrono>
#include <thread>

namespace kiln::test
{
namespace
{

//! A resource whose clone() acquires its own key: refused, not a deadlock.
class SelfAcquiringResource final : public nvinfer1::IPluginResource
{
public:
    explicit SelfAcquiringResource(nvinfer1::IPluginRegistry* registry)
        : mRegistry(registry)
    {
    }
    int32_t release() noexcept override { return 0; }
    nvinfer1::IPluginResource* clone() noexcept override
    {
        mInner = mRegistry->acquirePluginResource("self", this);
        return new SelfAcquiringResource(mRegistry);
    }
    nvinfer1::IPluginResource* mInner{reinterpret_cast<nvinfer1::IPluginResource*>(1)};

private:
    nvinfer1::IPluginRegistry* mRegistry;
};

TEST_F(ResourceTest, ACloneThatAcquiresItsOwnKeyIsRefused)
{
    SelfAcquiringResource resource{mRegistry};
    ASSERT_NE(mRegistry->acquirePluginResource("self", &resource), nullptr);
    EXPECT_EQ(resource.mInner, nullptr);
    EXPECT_TRUE(
        mLog.has(Severity::kERROR, {"acquirePluginResource of key \"self\" from inside that key's own clone()"}))
        << mLog.text();
    EXPECT_EQ(mRegistry->releasePluginResource("self"), 0);
}

//! A resource whose clone() and release() wait for another thread that uses another key.
class WaitingResource final : public nvinfer1::IPluginResource
{
public:
    WaitingResource(nvinfer1::IPluginRegistry* registry, ResourceCounters& counters)
        : mRegistry(registry)
        , mCounters(&counters)
    {
    }
    int32_t release() noexcept override
    {
        std::thread([&] { mRegistry->releasePluginResource("helper"); }).join();
        return 0;
    }
    nvinfer1::IPluginResource* clone() noexcept override
    {
        nvinfer1::IPluginResource* helper = nullptr;
        std::thread([&] {
            CountedResource original{*mCounters};
            helper = mRegistry->acquirePluginResource("helper", &original);
        }).join();
        return helper != nullptr ? new WaitingResource(mRegistry, *mCounters) : nullptr;
    }

private:
    nvinfer1::IPluginRegistry* mRegistry;
    ResourceCounters* mCounters;
};

TEST_F(ResourceTest, CloneAndReleaseMayWaitForThreadsThatUseOtherKeys)
{
    WaitingResource resource{mRegistry, mCounters};
    ASSERT_NE(mRegistry->acquirePluginResource("waiting", &resource), nullptr);
    EXPECT_EQ(mCounters.clones, 1) << "the helper was acquired from another thread during clone()";
    EXPECT_EQ(mRegistry->releasePluginResource("waiting"), 0);
    EXPECT_EQ(mCounters.releases, 1) << "and released from another thread during release()";
}

TEST_F(ResourceTest, OtherAcquirersOfAKeyWaitForItsClone)
{
    //! A clone that takes a while; a second thread asking for the same key gets the same object.
    class SlowResource final : public nvinfer1::IPluginResource
    {
    public:
        explicit SlowResource(std::atomic<int>& clones)
            : mClones(&clones)
        {
        }
        int32_t release() noexcept override { return 0; }
        nvinfer1::IPluginResource* clone() noexcept override
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            ++*mClones;
            return new SlowResource(*mClones);
        }

    private:
        std::atomic<int>* mClones;
    };
    std::atomic<int> clones{0};
    SlowResource first{clones};
    SlowResource second{clones};
    nvinfer1::IPluginResource* a = nullptr;
    nvinfer1::IPluginResource* b = nullptr;
    std::thread one([&] { a = mRegistry->acquirePluginResource("slow", &first); });
    std::thread two([&] { b = mRegistry->acquirePluginResource("slow", &second); });
    one.join();
    two.join();
    EXPECT_EQ(clones, 1);
    EXPECT_NE(a, nullptr);
    EXPECT_EQ(a, b);
    EXPECT_EQ(mRegistry->releasePluginResource("slow"), 0);
    EXPECT_EQ(mRegistry->releasePluginResource("slow"), 0);
}

TEST_F(ResourceTest, DestructionReleasesNewestFirstSoDependenciesOutliveTheirUsers)
{
    // Each outer resource acquired its inner one in clone() and releases it in release(): the inner must still be
    // there when the outer is released at destruction.
    nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(nullptr);
    std::vector<std::unique_ptr<NestingResourceFor>> outers;
    for (int i = 0; i < 8; ++i)
    {
        outers.push_back(std::make_unique<NestingResourceFor>(registry, mCounters, "outer" + std::to_string(i)));
        ASSERT_NE(registry->acquirePluginResource(outers.back()->key().c_str(), outers.back().get()), nullptr);
    }
    kilnDestroyPluginRegistry(registry);
    EXPECT_EQ(mCounters.clones, 8);
    EXPECT_EQ(mCounters.releases, 8) << "every inner resource released once";
    EXPECT_EQ(mCounters.deletions, 8);
    EXPECT_EQ(mLog.text(Severity::kERROR), "") << "no nested release found its key gone";
}

} // namespace
} // namespace kiln::test
