// SPDX-License-Identifier: Apache-2.0
// Cast: converts its input to another element type.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kCAST> final : public nvinfer1::apiv::VCastLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setToType(DataType toType) noexcept override
    {
        if (mLayer.checkEnum("setToType", "data type", toType))
        {
            edit().toType = toType;
        }
    }
    DataType getToType() const noexcept override { return p().toType; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return p().toType; }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    CastParams const& p() const noexcept { return mLayer.paramsAs<CastParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    CastParams& edit() noexcept { return mLayer.editParams<CastParams>(); }
};

nvinfer1::ICastLayer* NetworkApi::addCast(nvinfer1::ITensor& input, DataType toType) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addCast";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::ICastLayer*>(nullptr), [&]() -> nvinfer1::ICastLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(toType))
            {
                return mNetwork.fail(kWhere, "data type ", toType, " is not a valid DataType");
            }
            return &mNetwork.addLayer<LayerType::kCAST>({data}, CastParams{toType}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(CastParams const& /*params*/, ShapeRuleContext& context)
{
    // Same shape; shape-tensor values pass through (the driver keeps them only for index types).
    return passThrough(context, true);
}

} // namespace kiln
