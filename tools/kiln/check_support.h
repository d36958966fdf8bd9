// SPDX-License-Identifier: Apache-2.0
// What `kiln check-plugin`'s V3 and V2 checks share: the execution-context stand-ins a plugin is attached to (a GPU
// allocator that hands out host memory and counts what is outstanding), the supportsFormatCombination questions asked
// of either descriptor type (PluginTensorDesc for V2, DynamicPluginTensorDesc for V3), the leak measure and the
// resource balance.
#pragma once

#include "check_rules.h"
#include "live_objects.h"
#include "plugin_sample.h"
#include "sandbox.h"
#include "values.h"

#include "NvInferRuntime.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln_tool
{

//! An IGpuAllocator for checks without a GPU: host memory, with what is outstanding counted.
class CountingGpuAllocator final : public nvinfer1::IGpuAllocator
{
public:
    ~CountingGpuAllocator() override;
    void* allocate(
        uint64_t const size, uint64_t const alignment, nvinfer1::AllocatorFlags const flags) noexcept override;
    bool deallocate(void* const memory) noexcept override;

    std::size_t outstanding() const noexcept { return mBlocks.size(); }
    uint64_t outstandingBytes() const noexcept;

private:
    std::map<void*, uint64_t> mBlocks;
};

//! The IPluginResourceContext a check attaches plugins to: its GPU allocator, no error recorder.
class CheckResourceContext final : public nvinfer1::IPluginResourceContext
{
public:
    nvinfer1::IGpuAllocator* getGpuAllocator() const noexcept override { return &mAllocator; }
    nvinfer1::IErrorRecorder* getErrorRecorder() const noexcept override { return nullptr; }
    CountingGpuAllocator& allocator() const noexcept { return mAllocator; }

private:
    mutable CountingGpuAllocator mAllocator;
};

//! The descriptor part of a V2 (PluginTensorDesc) or V3 (DynamicPluginTensorDesc) supportsFormatCombination entry.
inline nvinfer1::PluginTensorDesc& coreOf(nvinfer1::PluginTensorDesc& desc) noexcept
{
    return desc;
}
inline nvinfer1::PluginTensorDesc& coreOf(nvinfer1::DynamicPluginTensorDesc& desc) noexcept
{
    return desc.desc;
}

//! The V3 descriptors of descs: min, opt and max are the shape.
std::vector<nvinfer1::DynamicPluginTensorDesc> dynamicOf(std::vector<nvinfer1::PluginTensorDesc> const& descs);

//! "1 output", "2 outputs".
inline std::string counted(std::size_t n, std::string const& noun)
{
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

//! "pos 1 (output 0, FP16)" for messages.
std::string positionText(int32_t pos, int32_t nbInputs, nvinfer1::DataType type);

//! Asks supports(pos, inOut) for every position with only inOut[0..pos] readable; the first read past them, as a
//! message, or nullopt.
template <typename Desc>
std::optional<std::string> readPastPos(
    std::vector<Desc> const& inOut, std::function<bool(int32_t pos, Desc const* inOut)> const& supports)
{
    for (int32_t pos = 0; pos < static_cast<int32_t>(inOut.size()); ++pos)
    {
        GuardedBuffer buffer(static_cast<std::size_t>(pos + 1) * sizeof(Desc), alignof(Desc));
        auto* descs = static_cast<Desc*>(buffer.data());
        std::copy(inOut.begin(), inOut.begin() + pos + 1, descs);
        std::optional<Fault> const fault = callGuarded({&buffer}, [&] { supports(pos, descs); });
        if (fault)
        {
            return "supportsFormatCombination(pos=" + std::to_string(pos) + ") read inOut["
                + std::to_string(fault->offset / sizeof(Desc)) + "], past inOut[0.." + std::to_string(pos)
                + "], the only entries valid at that position";
        }
    }
    return std::nullopt;
}

//! Asks each position about each candidate type (the sample's first) twice of one plugin and once of its clone; the
//! first answer that differs, as a message, or nullopt. The sample's own types must be accepted.
template <typename Desc>
std::optional<std::string> inconsistentAnswer(std::vector<Desc> const& sample, int32_t nbInputs,
    std::function<bool(int32_t pos, Desc const* inOut)> const& plugin,
    std::function<bool(int32_t pos, Desc const* inOut)> const& clone)
{
    for (int32_t pos = 0; pos < static_cast<int32_t>(sample.size()); ++pos)
    {
        std::vector<Desc> inOut = sample;
        nvinfer1::DataType const sampleType = coreOf(inOut[static_cast<std::size_t>(pos)]).type;
        std::vector<nvinfer1::DataType> types{sampleType};
        for (nvinfer1::DataType const type : candidateTypes())
        {
            if (type != sampleType)
            {
                types.push_back(type);
            }
        }
        for (nvinfer1::DataType const type : types)
        {
            coreOf(inOut[static_cast<std::size_t>(pos)]).type = type;
            bool const first = plugin(pos, inOut.data());
            bool const second = plugin(pos, inOut.data());
            bool const cloned = clone(pos, inOut.data());
            std::string const asked = "supportsFormatCombination(" + positionText(pos, nbInputs, type) + ")";
            auto const yes = [](bool answer) { return answer ? std::string("true") : std::string("false"); };
            if (first != second || first != cloned)
            {
                return asked + " answered " + yes(first) + ", then " + yes(second) + ", and the clone " + yes(cloned);
            }
            if (type == sampleType && !first)
            {
                return asked + " refused the sample's type, which it accepted while the sample was found";
            }
        }
    }
    return std::nullopt;
}

//! Live allocations before and after cycles calls of cycle (after warmUp calls not counted).
struct LeakMeasure
{
    int64_t before{};
    int64_t after{};
    int32_t cycles{};
};

LeakMeasure measureLeak(std::function<void()> const& cycle, int32_t warmUp = 2, int32_t cycles = 10);

//! The resources-released finding from what counting saw and what allocator still holds.
Finding resourceFinding(ResourceCounting const& counting, CountingGpuAllocator const& allocator);

//! The no-leak finding of measure, where cycleText says what one cycle does.
Finding leakFinding(LeakMeasure const& measure, std::string const& cycleText);

} // namespace kiln_tool
