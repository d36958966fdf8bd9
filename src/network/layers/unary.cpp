// SPDX-License-Identifier: Apache-2.0
// Unary operations; kISINF and kISNAN give kBOOL.
#include "network/checks.h"
#include "network/network.h"
#include "network/shape_rules.h"

#include <algorithm>
#include <optional>

namespace kiln
{

using nvinfer1::UnaryOperation;

template <>
class KindImpl<LayerType::kUNARY> final : public nvinfer1::apiv::VUnaryLayer, public KindBase
{
public:
    using KindBase::KindBase;

    void setOperation(UnaryOperation op) noexcept override
    {
        if (mLayer.checkEnum("setOperation", "operation", op))
        {
            edit().op = op;
        }
    }
    UnaryOperation getOperation() const noexcept override { return p().op; }

    bool computesShapeValues() const noexcept { return true; }
    DataType outputType(int32_t /*index*/) const noexcept
    {
        UnaryOperation const op = p().op;
        return op == UnaryOperation::kISINF || op == UnaryOperation::kISNAN ? DataType::kBOOL : inputType(0);
    }
    Dims outputDims(int32_t /*index*/) const noexcept { return inputDims(0); }

private:
    UnaryParams const& p() const noexcept { return mLayer.paramsAs<UnaryParams>(); }
    //! The parameters, to change: the layer's outputs are then computed again (Layer::editParams).
    UnaryParams& edit() noexcept { return mLayer.editParams<UnaryParams>(); }
};

nvinfer1::IUnaryLayer* NetworkApi::addUnary(nvinfer1::ITensor& input, UnaryOperation operation) noexcept
{
    constexpr char const* kWhere = "INetworkDefinition::addUnary";
    return mNetwork.reporter().guard(
        kWhere, static_cast<nvinfer1::IUnaryLayer*>(nullptr), [&]() -> nvinfer1::IUnaryLayer* {
            Tensor* data = mNetwork.own(&input, kWhere, "input");
            if (data == nullptr)
            {
                return nullptr;
            }
            if (!isValidEnum(operation))
            {
                return mNetwork.fail(kWhere, "operation ", operation, " is not a valid UnaryOperation");
            }
            return &mNetwork.addLayer<LayerType::kUNARY>({data}, UnaryParams{operation}, 1);
        });
}

// The symbolic shape rule (network/shape_rules.h).
Expected<std::vector<SymbolicTensor>> inferOutputShapes(UnaryParams const& /*params*/, ShapeRuleContext& context)
{
    // Same shape as input 0.
    return passThrough(context, false);
}

} // namespace kiln
