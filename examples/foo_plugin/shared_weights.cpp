// SPDX-License-Identifier: Apache-2.0
// SharedWeights: see shared_weights.h.
#include "shared_weights.h"

#ifdef KILN_EXAMPLE_CUDA
#include "foo_kernel.h"
#endif

#include <atomic>
#include <memory>

namespace
{
std::atomic<int32_t> gDownloads{0};
std::atomic<int32_t> gReleases{0};
} // namespace

SharedWeights::SharedWeights(bool init)
{
    if (init)
    {
        mHostWeights = download();
#ifdef KILN_EXAMPLE_CUDA
        mWeights = uploadWeights(mHostWeights.data(), kFooWidth);
#endif
        ++gDownloads;
    }
}

SharedWeights::~SharedWeights()
{
    release();
}

int32_t SharedWeights::release() noexcept
{
    if (mHostWeights.empty() && mWeights == nullptr)
    {
        return 0; // Not initialised, or released already.
    }
    bool ok = true;
#ifdef KILN_EXAMPLE_CUDA
    ok = mWeights == nullptr || freeWeights(mWeights);
#endif
    mWeights = nullptr;
    mHostWeights = {};
    ++gReleases;
    return ok ? 0 : -1;
}

nvinfer1::IPluginResource* SharedWeights::clone() noexcept
{
    try
    {
        return std::make_unique<SharedWeights>(/* init */ true).release();
    }
    catch (...)
    {
        return nullptr;
    }
}

std::vector<float> SharedWeights::download()
{
    std::vector<float> weights(static_cast<std::size_t>(kFooWidth));
    for (int64_t i = 0; i < kFooWidth; ++i)
    {
        weights[static_cast<std::size_t>(i)] = static_cast<float>(i % 16 - 8) / 8.0F;
    }
    return weights;
}

int32_t SharedWeights::downloadCount() noexcept
{
    return gDownloads;
}

int32_t SharedWeights::releaseCount() noexcept
{
    return gReleases;
}
