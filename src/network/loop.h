// SPDX-License-Identifier: Apache-2.0
// A loop of a network (ILoop). The loop itself is no layer: it is a group of boundary layers
// (network/layers/loop.cpp) that share its index: trip limits, iterators, recurrences and outputs. The layers of its
// body are ordinary layers: those that read, directly or not, an iterator's or a recurrence's output (plan/loops.h).
//
//     Loop& loop = ...;   // INetworkDefinition::addLoop
//     loop.tripLimit(nvinfer1::TripLimit::kCOUNT);   // the kCOUNT limit layer, or nullptr
#pragma once

#include "NvInfer.h"

#include <array>
#include <cstdint>
#include <string>

namespace kiln
{

class Layer;
class Network;

//! One loop. Owned by its network.
class Loop final : public nvinfer1::ILoop
{
public:
    Loop(Network& network, int32_t index, std::string name);

    int32_t index() const noexcept { return mIndex; }
    std::string const& name() const noexcept { return mName; }
    //! The trip limit layer of kind, or nullptr.
    Layer* tripLimit(nvinfer1::TripLimit kind) const noexcept { return mTripLimits[static_cast<std::size_t>(kind)]; }

private:
    //! What the inline ILoop methods call.
    class Api final : public nvinfer1::apiv::VLoop
    {
    public:
        explicit Api(Loop& loop) noexcept
            : mLoop(loop)
        {
        }
        nvinfer1::IRecurrenceLayer* addRecurrence(nvinfer1::ITensor& initialValue) noexcept override;
        nvinfer1::ITripLimitLayer* addTripLimit(nvinfer1::ITensor& tensor, nvinfer1::TripLimit limit) noexcept override;
        nvinfer1::IIteratorLayer* addIterator(nvinfer1::ITensor& tensor, int32_t axis, bool reverse) noexcept override;
        nvinfer1::ILoopOutputLayer* addLoopOutput(
            nvinfer1::ITensor& tensor, nvinfer1::LoopOutput outputKind, int32_t axis) noexcept override;
        void setName(char const* name) noexcept override;
        char const* getName() const noexcept override;

    private:
        Loop& mLoop;
    };

    Api mApi{*this};
    Network& mNetwork;
    int32_t mIndex;
    std::string mName;
    std::array<Layer*, 2> mTripLimits{};
};

} // namespace kiln
