// SPDX-License-Identifier: Apache-2.0
// A plugin resource that counts its clones, releases and deletions, as the SharedWeights example does with its
// weights: the original is never initialised; only clones hold data.
#pragma once

#include "NvInferRuntime.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace kiln::test
{

struct ResourceCounters
{
    std::atomic<int32_t> clones{0};
    std::atomic<int32_t> releases{0};
    std::atomic<int32_t> deletions{0};
};

class CountedResource final : public nvinfer1::IPluginResource
{
public:
    explicit CountedResource(ResourceCounters& counters, bool failClone = false, int32_t releaseStatus = 0)
        : mCounters(&counters)
        , mFailClone(failClone)
        , mReleaseStatus(releaseStatus)
    {
    }

    ~CountedResource() override
    {
        if (mIsClone)
        {
            ++mCounters->deletions;
        }
    }

    int32_t release() noexcept override
    {
        ++mCounters->releases;
        mWeights.clear();
        return mReleaseStatus;
    }

    nvinfer1::IPluginResource* clone() noexcept override
    {
        if (mFailClone)
        {
            return nullptr;
        }
        auto* copy = new CountedResource(*mCounters, false, mReleaseStatus);
        copy->mIsClone = true;
        copy->mWeights.assign(16, 1.0F); // only the clone is initialised
        ++mCounters->clones;
        return copy;
    }

    std::vector<float> const& weights() const { return mWeights; }
    bool isClone() const { return mIsClone; }

private:
    ResourceCounters* mCounters;
    bool mFailClone;
    int32_t mReleaseStatus;
    bool mIsClone{false};
    std::vector<float> mWeights;
};

} // namespace kiln::test
