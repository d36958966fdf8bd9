// SPDX-License-Identifier: Apache-2.0
#include "check_support.h"

#include <cstdlib>

namespace kiln_tool
{

using namespace nvinfer1;

CountingGpuAllocator::~CountingGpuAllocator()
{
    for (auto const& [memory, bytes] : mBlocks)
    {
        std::free(memory);
    }
}

void* CountingGpuAllocator::allocate(uint64_t const size, uint64_t const alignment, AllocatorFlags const) noexcept
{
    std::size_t const align = std::max<std::size_t>(alignment, alignof(std::max_align_t));
    if ((align & (align - 1)) != 0)
    {
        return nullptr;
    }
    void* memory = std::aligned_alloc(align, (std::max<std::size_t>(size, 1) + align - 1) / align * align);
    if (memory != nullptr)
    {
        try
        {
            mBlocks.emplace(memory, size);
        }
        catch (...)
        {
            std::free(memory);
            return nullptr;
        }
    }
    return memory;
}

bool CountingGpuAllocator::deallocate(void* const memory) noexcept
{
    auto const found = mBlocks.find(memory);
    if (found == mBlocks.end())
    {
        return false;
    }
    std::free(memory);
    mBlocks.erase(found);
    return true;
}

uint64_t CountingGpuAllocator::outstandingBytes() const noexcept
{
    uint64_t bytes = 0;
    for (auto const& [memory, size] : mBlocks)
    {
        bytes += size;
    }
    return bytes;
}

std::vector<DynamicPluginTensorDesc> dynamicOf(std::vector<PluginTensorDesc> const& descs)
{
    std::vector<DynamicPluginTensorDesc> dynamic;
    for (PluginTensorDesc const& desc : descs)
    {
        dynamic.push_back(DynamicPluginTensorDesc{desc, desc.dims, desc.dims, desc.dims});
    }
    return dynamic;
}

std::string positionText(int32_t pos, int32_t nbInputs, DataType type)
{
    std::string const which
        = pos < nbInputs ? "input " + std::to_string(pos) : "output " + std::to_string(pos - nbInputs);
    return "pos=" + std::to_string(pos) + ", " + which + ", " + std::string(typeName(type)) + " linear";
}

LeakMeasure measureLeak(std::function<void()> const& cycle, int32_t warmUp, int32_t cycles)
{
    for (int32_t i = 0; i < warmUp; ++i)
    {
        cycle();
    }
    LeakMeasure measure{liveAllocations(), 0, cycles};
    for (int32_t i = 0; i < cycles; ++i)
    {
        cycle();
    }
    measure.after = liveAllocations();
    return measure;
}

Finding resourceFinding(ResourceCounting const& counting, CountingGpuAllocator const& allocator)
{
    std::string seen;
    for (auto const& [key, count] : counting.counts())
    {
        std::string const line = "\"" + key + "\" acquired " + std::to_string(count.acquired) + ", released "
            + std::to_string(count.released);
        if (count.acquired != count.released)
        {
            return broken("resources-released", "registry resource " + line + " after every object was destroyed");
        }
        seen += (seen.empty() ? "" : "; ") + line;
    }
    if (allocator.outstanding() > 0)
    {
        return broken("resources-released",
            std::to_string(allocator.outstanding()) + " allocations (" + std::to_string(allocator.outstandingBytes())
                + " bytes) from the context's GPU allocator were never given back after every object was destroyed");
    }
    std::string const registry = !ResourceCounting::available()
        ? "registry resources not counted (this program's getPluginRegistry is not the counting one)"
        : seen.empty() ? "no registry resources acquired"
                       : "registry resources balanced: " + seen;
    return passed("resources-released", registry + "; nothing outstanding from the context's GPU allocator");
}

Finding leakFinding(LeakMeasure const& measure, std::string const& cycleText)
{
    int64_t const left = measure.after - measure.before;
    std::string const cycles = std::to_string(measure.cycles) + " cycles of " + cycleText;
    if (left > 0)
    {
        return broken("no-leak",
            cycles + " left " + std::to_string(left) + " more live allocations than before (about "
                + std::to_string((left + measure.cycles - 1) / measure.cycles) + " per cycle)");
    }
    return passed("no-leak", cycles + " left the live allocation count flat");
}

} // namespace kiln_tool
