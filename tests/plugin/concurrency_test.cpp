// SPDX-License-Identifier: Apache-2.0
// The registry under concurrent use from many threads: resources acquired and released on shared keys, creators
// registered, looked up, listed and deregistered, libraries loaded and unloaded. Run under ThreadSanitizer in
// the sanitizer build (ctest label tsan); in the plain build it still checks the counts.
#include "support/capture.h"
#include "support/counted_resource.h"
#include "support/probe_plugins.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kiln::test
{
namespace
{

constexpr int kThreads = 8;
constexpr int kIterations = 2000;

TEST_F(RegistryTest, ConcurrentAcquireAndReleaseKeepTheCountsRight)
{
    ResourceCounters counters;
    std::vector<std::string> const keys{"W0", "W1", "W2"};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        threads.emplace_back([&, t] {
            CountedResource original{counters};
            for (int i = 0; i < kIterations; ++i)
            {
                std::string const& key = keys[static_cast<std::size_t>((t + i) % 3)];
                auto* stored = static_cast<CountedResource*>(mRegistry->acquirePluginResource(key.c_str(), &original));
                // A user may read the shared clone until it releases it.
                if (stored == nullptr || stored->weights().size() != 16U)
                {
                    ++failures;
                    continue;
                }
                if (mRegistry->releasePluginResource(key.c_str()) != 0)
                {
                    ++failures;
                }
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(failures, 0) << mLog.text();
    EXPECT_GT(counters.clones, 0);
    EXPECT_EQ(counters.clones.load(), counters.releases.load()) << "every clone is released exactly once";
    EXPECT_EQ(counters.clones.load(), counters.deletions.load()) << "and deleted exactly once";
    for (auto const& key : keys)
    {
        EXPECT_NE(mRegistry->releasePluginResource(key.c_str()), 0) << key << " must be gone";
    }
}

TEST_F(RegistryTest, ConcurrentHoldersShareOneClone)
{
    ResourceCounters counters;
    CountedResource original{counters};
    ASSERT_NE(mRegistry->acquirePluginResource("held", &original), nullptr); // keeps the clone alive throughout
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        threads.emplace_back([&] {
            CountedResource mine{counters};
            for (int i = 0; i < kIterations; ++i)
            {
                mRegistry->acquirePluginResource("held", &mine);
                mRegistry->releasePluginResource("held");
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(counters.clones, 1);
    EXPECT_EQ(counters.releases, 0);
    EXPECT_EQ(mRegistry->releasePluginResource("held"), 0);
    EXPECT_EQ(counters.releases, 1);
}

TEST_F(RegistryTest, ConcurrentRegistrationLookupAndListing)
{
    std::vector<std::unique_ptr<ProbeV3Creator>> creators;
    for (int t = 0; t < kThreads; ++t)
    {
        creators.push_back(std::make_unique<ProbeV3Creator>("Threaded" + std::to_string(t), "1", "ns"));
    }
    ProbeV3Creator contested{"Contested", "1", "ns"};
    std::atomic<int> contestedWins{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        threads.emplace_back([&, t] {
            ProbeV3Creator& mine = *creators[static_cast<std::size_t>(t)];
            std::string const name = mine.getPluginName();
            if (mRegistry->registerCreator(contested, "ns"))
            {
                ++contestedWins;
            }
            for (int i = 0; i < kIterations / 10; ++i)
            {
                if (!mRegistry->registerCreator(mine, "ns"))
                {
                    ++failures;
                }
                if (mRegistry->getCreator(name.c_str(), "1", "ns") != &mine)
                {
                    ++failures;
                }
                int32_t count = 0;
                auto* const* all = mRegistry->getAllCreators(&count);
                for (int32_t c = 0; c < count; ++c)
                {
                    if (all[c] == nullptr)
                    {
                        ++failures;
                    }
                }
                if (!mRegistry->deregisterCreator(mine))
                {
                    ++failures;
                }
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(failures, 0) << mLog.text();
    EXPECT_EQ(contestedWins, 1) << "exactly one thread registers a contested key";
    int32_t count = -1;
    mRegistry->getAllCreators(&count);
    EXPECT_EQ(count, 1);
}

TEST_F(RegistryTest, ConcurrentLibraryLoadsIntoSeparateRegistries)
{
    std::string const path = libraryPath("v3_library");
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
    {
        threads.emplace_back([&] {
            for (int i = 0; i < 20; ++i)
            {
                nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(mRegistry);
                auto* handle = registry->loadLibrary(path.c_str());
                if (handle == nullptr || registry->getCreator("LibV3First", "1", "kilnTest") == nullptr)
                {
                    ++failures;
                }
                registry->deregisterLibrary(handle);
                kilnDestroyPluginRegistry(registry);
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    EXPECT_EQ(failures, 0) << mLog.text();
}

} // namespace
} // namespace kiln::test
