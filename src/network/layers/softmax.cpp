// SPDX-License-Identifier: Apache-2.0
// Softmax along one axis, given as a bit mask with one bit set.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <bit>

namespace kiln
{

template <>
class KindImpl<LayerType::kSOFTMAX> final : public nvinfer1::apiv::VSoftMaxLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setAxes(uint32_t axes) noexcept override
    {
        int32_t const rank = inputDims(0).nbDims;
        if (std::popcount(axes) != 1)
        {
            mLayer.fail("setAxes", "the axes mask ", axes, " must have exactly one bit set");
            return;
        }
        if (rank >= 0 && std::countr_zero(axes) >= std::max(rank, 1))
        {
            mLayer.fail("setAxes", "axis ", std::countr_zero(axes), " is out of range for an input of rank ", rank);
            return;
        }
        edit().axes = axes;
    }
    uint32_t getAxes() const noexcept override { return p().axes; }

    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    SoftMaxParams const& p() const noexcept { return mLayer.paramsAs<SoftMaxParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    SoftMaxParams& edit() noexcept { return mLayer.editParams<SoftMaxParams>(); }
};

nvinfer1::ISoftMaxLayer* NetworkApi::addSoftMax(nvinfer1::ITensor& input) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addSoftMax";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ISoftMaxLayer*>(nullptr), [&]() -> nvinfer1::ISoftMaxLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            uint32_t const axes = 1U << defaultChannelAxis(data->dims().nbDims);
            return &mNetwork.addLayer<LayerType::kSOFTMAX>({data}, SoftMaxParams{axes}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(SoftMaxParams const& params, ShapeRuleContext& context)
{
    int32_t const rank = context.input(0).rank();
    if (rank >= 0
        && (params.axes == 0 || (params.axes & (params.axes - 1)) != 0 || rank == 0
            || (rank < 32 && (params.axes >> rank) != 0)))
    {
        return context.error("the axes bit mask ", params.axes, " must name exactly one axis of the input's ", rank);
    }
    return passThrough(context, false);
}

} // namespace kiln
