// SPDX-License-Identifier: Apache-2.0
// An if-conditional of a network (IIfConditional). The conditional itself is no layer: it is a group of boundary
// layers (network/layers/if_conditional.cpp) that share its index: the condition layer, the input layers and the
// output layers. The layers of its branches are ordinary layers; which branch a layer belongs to follows from the
// graph (runtime/executor.h, "Branches").
//
//     IfConditional& conditional = network.addConditional();   // INetworkDefinition::addIfConditional
//     conditional.conditionLayer();                             // nullptr until setCondition
#pragma once

#include "NvInfer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

class Layer;
class Network;

//! One if-conditional. Owned by its network.
class IfConditional final : public nvinfer1::IIfConditional
{
public:
    IfConditional(Network& network, int32_t index, std::string name);

    int32_t index() const noexcept { return mIndex; }
    std::string const& name() const noexcept { return mName; }
    //! The condition layer, or nullptr before setCondition.
    Layer* conditionLayer() const noexcept { return mCondition; }
    //! The output layers, in the order they were added.
    std::vector<Layer*> const& outputLayers() const noexcept { return mOutputs; }

private:
    //! What the inline IIfConditional methods call.
    class Api final : public nvinfer1::apiv::VIfConditional
    {
    public:
        explicit Api(IfConditional& conditional) noexcept
            : mConditional(conditional)
        {
        }
        nvinfer1::IConditionLayer* setCondition(nvinfer1::ITensor& tensor) noexcept override;
        nvinfer1::IIfConditionalInputLayer* addInput(nvinfer1::ITensor& tensor) noexcept override;
        nvinfer1::IIfConditionalOutputLayer* addOutput(
            nvinfer1::ITensor& trueTensor, nvinfer1::ITensor& falseTensor) noexcept override;
        void setName(char const* name) noexcept override;
        char const* getName() const noexcept override;

    private:
        IfConditional& mConditional;
    };

    Api mApi{*this};
    Network& mNetwork;
    int32_t mIndex;
    std::string mName;
    Layer* mCondition{};
    std::vector<Layer*> mOutputs;
};

} // namespace kiln
