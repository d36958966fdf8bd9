// SPDX-License-Identifier: Apache-2.0
// Identity: copies its input (in a weakly typed network setOutputType may make it convert).
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

template <>
class KindImpl<LayerType::kIDENTITY> final : public nvinfer1::apiv::VIdentityLayer, public KindBase
{
public:
    using KindBase::KindBase;

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept { return inputType(0); }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }
};

nvinfer1::IIdentityLayer* NetworkApi::addIdentity(nvinfer1::ITensor& input) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addIdentity";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IIdentityLayer*>(nullptr), [&]() -> nvinfer1::IIdentityLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            return &mNetwork.addLayer<LayerType::kIDENTITY>({data}, IdentityParams{}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(IdentityParams const& /*params*/, ShapeRuleContext& context)
{
    // Same shape; shape-tensor values pass through (the driver keeps them only for index types).
    return passThrough(context, true);
}

} // namespace kiln
