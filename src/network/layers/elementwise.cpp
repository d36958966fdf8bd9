// SPDX-License-Identifier: Apache-2.0
// Element-wise binary operations on two inputs of equal rank, broadcasting extents of 1. Comparisons give kBOOL.
#include "network/checks.h"
#include "network/network.h"

namespace kiln
{

using nvinfer1::ElementWiseOperation;

template <>
class KindImpl<LayerType::kELEMENTWISE> final : public nvinfer1::apiv::VElementWiseLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(ElementWiseOperation op) noexcept override
    {
        if (mLayer.checkEnum("setOperation", "operation", op))
        {
            p().op = op;
        }
    }
    ElementWiseOperation getOperation() const noexcept override { return p().op; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept
    {
        ElementWiseOperation const op = p().op;
        bool const comparison = op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kGREATER
            || op == ElementWiseOperation::kLESS;
        return comparison ? DataType::kBOOL : inputType(0);
    }
    Dims outputDims(int32_t /*index*/) const noexcept { return broadcastDims({inputDims(0), inputDims(1)}); }

private:
    ElementWiseParams& p() const noexcept { return mLayer.paramsAs<ElementWiseParams>(); }
};

nvinfer1::IElementWiseLayer* NetworkApi::addElementWise(
    nvinfer1::ITensor& input1, nvinfer1::ITensor& input2, ElementWiseOperation op) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addElementWise";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IElementWiseLayer*>(nullptr), [&]() -> nvinfer1::IElementWiseLayer* {
            Tensor* first = mNetwork.own(&input1, kWhere, "first input");
            Tensor* second = first != nullptr ? mNetwork.own(&input2, kWhere, "second input") : nullptr;
            if (second == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(op))
            {
                return mNetwork.fail(kWhere, "operation ", op, " is not a valid ElementWiseOperation");
            }
            int32_t const rank1 = first->dims().nbDims;
            int32_t const rank2 = second->dims().nbDims;
            if (rank1 >= 0 && rank2 >= 0 && rank1 != rank2)
            {
                return mNetwork.fail(kWhere, "inputs ", quotedText(first->name()), " ", first->dims(), " and ",
                    quotedText(second->name()), " ", second->dims(),
                    " differ in rank; element-wise inputs have one rank (broadcast with a shuffle first)");
            }
            return &mNetwork.addLayer<LayerType::kELEMENTWISE>({first, second}, ElementWiseParams{op}, 1);
        });
}

} // namespace kiln
