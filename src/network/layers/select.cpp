// SPDX-License-Identifier: Apache-2.0
// Select: condition ? then : else, element-wise over three broadcast inputs of one rank.
#include "network/checks.h"
#include "network/network.h"

namespace kiln
{

template <>
class KindImpl<LayerType::kSELECT> final : public nvinfer1::apiv::VSelectLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(1); }
    Dims outputDims(int32_t /*index*/) const noexcept
    {
        return broadcastDims({inputDims(0), inputDims(1), inputDims(2)});
    }
};

nvinfer1::ISelectLayer* NetworkApi::addSelect(
    nvinfer1::ITensor& condition, nvinfer1::ITensor& thenInput, nvinfer1::ITensor& elseInput) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addSelect";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ISelectLayer*>(nullptr), [&]() -> nvinfer1::ISelectLayer* {
            Tensor* test = mNetwork.own(&condition, kWhere, "condition");
            Tensor* whenTrue = test != nullptr ? mNetwork.own(&thenInput, kWhere, "then input") : nullptr;
            Tensor* whenFalse = whenTrue != nullptr ? mNetwork.own(&elseInput, kWhere, "else input") : nullptr;
            if (whenFalse == nullptr)
            {
                return nullptr;
            }
            if (test->type() != DataType::kBOOL)
            {
                return mNetwork.fail(kWhere, "condition ", quotedText(test->name()), " has type ", test->type(),
                    "; a condition is kBOOL");
            }
            int32_t rank = -1;
            for (Tensor const* tensor : {test, whenTrue, whenFalse})
            {
                int32_t const other = tensor->dims().nbDims;
                if (rank >= 0 && other >= 0 && other != rank)
                {
                    return mNetwork.fail(kWhere, "input ", quotedText(tensor->name()), " has rank ", other,
                        " but another input has rank ", rank, "; select inputs have one rank");
                }
                rank = other >= 0 ? other : rank;
            }
            return &mNetwork.addLayer<LayerType::kSELECT>({test, whenTrue, whenFalse}, SelectParams{}, 1);
        });
}

} // namespace kiln
