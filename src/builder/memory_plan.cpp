// SPDX-License-Identifier: Apache-2.0
#include "builder/memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace kiln
{
namespace
{

bool overlaps(BufferRequest const& a, BufferRequest const& b) noexcept
{
    return a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
}

int64_t alignUp(int64_t value, int64_t alignment) noexcept
{
    return (value + alignment - 1) & ~(alignment - 1);
}

} // namespace

Expected<MemoryPlan> planMemory(std::span<BufferRequest const> buffers, int64_t alignment)
{
    if (alignment <= 0 || (alignment & (alignment - 1)) != 0)
    {
        return Error{nvinfer1::ErrorCode::kINVALID_ARGUMENT,
            "memory plan alignment " + std::to_string(alignment) + " is not a power of two"};
    }
    for (std::size_t i = 0; i < buffers.size(); ++i)
    {
        BufferRequest const& b = buffers[i];
        if (b.bytes < 0 || b.firstStep > b.lastStep || b.bytes > std::numeric_limits<int64_t>::max() / 2)
        {
            return Error{nvinfer1::ErrorCode::kINTERNAL_ERROR,
                "memory plan request " + std::to_string(i) + " is malformed: " + std::to_string(b.bytes)
                    + " bytes live from step " + std::to_string(b.firstStep) + " to " + std::to_string(b.lastStep)};
        }
    }

    std::vector<std::size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return buffers[a].bytes > buffers[b].bytes; });

    MemoryPlan plan;
    plan.offsets.assign(buffers.size(), 0);
    std::vector<std::size_t> placed;
    for (std::size_t index : order)
    {
        BufferRequest const& request = buffers[index];
        int64_t const size = alignUp(request.bytes, alignment);
        // The ranges taken by buffers live at the same time, by offset; take the first gap that fits.
        std::multimap<int64_t, int64_t> taken;
        for (std::size_t other : placed)
        {
            if (overlaps(request, buffers[other]))
            {
                taken.emplace(plan.offsets[other], plan.offsets[other] + alignUp(buffers[other].bytes, alignment));
            }
        }
        int64_t offset = 0;
        for (auto const& [begin, end] : taken)
        {
            if (begin >= offset + size)
            {
                break;
            }
            offset = std::max(offset, end);
        }
        plan.offsets[index] = offset;
        plan.totalBytes = std::max(plan.totalBytes, offset + size);
        placed.push_back(index);
    }
    return plan;
}

int64_t peakLiveBytes(std::span<BufferRequest const> buffers)
{
    std::map<int32_t, int64_t> delta;
    for (BufferRequest const& b : buffers)
    {
        delta[b.firstStep] += b.bytes;
        delta[b.lastStep + 1] -= b.bytes;
    }
    int64_t live = 0;
    int64_t peak = 0;
    for (auto const& [step, change] : delta)
    {
        live += change;
        peak = std::max(peak, live);
    }
    return peak;
}

} // namespace kiln
