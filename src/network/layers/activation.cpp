// SPDX-License-Identifier: Apache-2.0
// Activation: one element-wise function of ActivationType, with the alpha and beta some functions take.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kACTIVATION> final : public nvinfer1::apiv::VActivationLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setActivationType(nvinfer1::ActivationType type) noexcept override
    {
        if (mLayer.checkEnum("setActivationType", "activation type", type))
        {
            edit().type = type;
        }
    }
    nvinfer1::ActivationType getActivationType() const noexcept override { return p().type; }
    void setAlpha(float alpha) noexcept override { edit().alpha = alpha; }
    void setBeta(float beta) noexcept override { edit().beta = beta; }
    float getAlpha() const noexcept override { return p().alpha; }
    float getBeta() const noexcept override { return p().beta; }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    ActivationParams const& p() const noexcept { return mLayer.paramsAs<ActivationParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    ActivationParams& edit() noexcept { return mLayer.editParams<ActivationParams>(); }
};

nvinfer1::IActivationLayer* NetworkApi::addActivation(nvinfer1::ITensor& input, nvinfer1::ActivationType type) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addActivation";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IActivationLayer*>(nullptr), [&]() -> nvinfer1::IActivationLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(type))
            {
                return mNetwork.fail(kWhere, "activation type ", type, " is not a valid ActivationType");
            }
            return &mNetwork.addLayer<LayerType::kACTIVATION>({data}, ActivationParams{type, 0.F, 0.F}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(ActivationParams const& /*params*/, ShapeRuleContext& context)
{
    // Same shape as input 0.
    return passThrough(context, false);
}

} // namespace kiln
